/* trace.json writer (trace-event format): the file, the leg instances as
 * async slices with their hops, stamps on their threads, flows between
 * threads; the window and the event budget. */
#include "cli/timeline.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cli/timeline_impl.h"
#include "read/escape.h"

void tl_put(latrec_timeline *t, json_t *ev)
{
    if (!ev) {
        t->failed = ENOMEM;
        return;
    }
    if (!t->first && fputs(",\n", t->f) == EOF) t->failed = errno;
    t->first = 0;
    /* 15 digits: the ns of an 11-day trace in us, without binary noise. */
    if (json_dumpf(ev, t->f, JSON_COMPACT | JSON_REAL_PRECISION(15)) != 0) t->failed = errno ? errno : EIO;
    json_decref(ev);
    t->tot.events++;
}

/* Ring names come from file headers and catalog names from users' files:
 * text that is not UTF-8 (which JSON cannot carry) keeps every byte,
 * escaped as \xHH (read/escape.h), instead of failing the whole trace. */
json_t *tl_str(const char *s)
{
    json_t *j = json_string(s);
    if (j) return j;
    char *e = latrec_escape_bytes(s);
    j = json_string(e ? e : "");
    free(e);
    return j;
}

json_int_t tl_pid_of_process(const latrec_timeline *t, uint32_t process)
{
    const latrec_process *p = latrec_legs_process(t->legs, process);
    return p->pid ? (json_int_t)p->pid : (json_int_t)(1000000 + process);
}

json_int_t tl_tid_of_ring(const latrec_timeline *t, uint32_t ring)
{
    uint32_t tid = latrec_ring_tid(&t->in->set.rings[ring]);
    return tid ? (json_int_t)tid : (json_int_t)(ring + 1);
}

double tl_us(const latrec_timeline *t, uint64_t ns)
{
    return (double)(int64_t)(ns - t->origin) / 1000.0;
}

/* ts 0: the first record (with --wall, the earliest wall-clock stamp). */
static uint64_t origin_of(const latrec_input *in)
{
    latrec_input_totals tot;
    latrec_input_totals_get(in, &tot);
    if (!in->opts.wall) return tot.first_t;
    uint64_t o = UINT64_MAX;
    for (size_t i = 0; i < in->set.n; i++) {
        const latrec_ring *r = &in->set.rings[i];
        latrec_wallmap map;
        if (r->status != LATREC_RING_OK || !r->valid || latrec_wallmap_init(&map, r, NULL, 0) < 0) continue;
        const uint64_t w = latrec_wallmap_apply(&map, r->min_t_ns);
        if (w < o) o = w;
    }
    return o == UINT64_MAX ? 0 : o;
}

latrec_timeline *latrec_timeline_open(const char *path, const latrec_input *in, const latrec_legs *legs,
                                      const latrec_timeline_opts *opts, char *err, size_t errlen)
{
    latrec_timeline *t = calloc(1, sizeof(*t));
    if (!t) {
        snprintf(err, errlen, "%s: out of memory", path);
        return NULL;
    }
    if (latrec_outfile_open(&t->out, path, 0, err, errlen) < 0) {
        const int e = errno;
        free(t);
        errno = e;
        return NULL;
    }
    t->f = t->out.f;
    t->in = in;
    t->legs = legs;
    if (opts) t->opts = *opts;
    t->first = 1;
    t->origin = origin_of(in);
    tl_sched_open(t);
    fputs("{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n", t->f);
    tl_write_names(t);
    return t;
}

static json_t *async_ev(const char *ph, const char *name, uint64_t id, double ts, json_int_t pid, json_int_t tid)
{
    char idbuf[24];
    snprintf(idbuf, sizeof(idbuf), "0x%llx", (unsigned long long)id);
    return json_pack("{s:o, s:s, s:s, s:s, s:f, s:I, s:I}", "name", tl_str(name), "cat", "leg", "ph", ph, "id", idbuf,
                     "ts", ts, "pid", pid, "tid", tid);
}

/* Two stamps of one thread track (same process, same thread). */
static int same_thread(const latrec_timeline *t, const latrec_hit *a, const latrec_hit *b)
{
    return tl_tid_of_ring(t, a->ring) == tl_tid_of_ring(t, b->ring) &&
           latrec_legs_ring_process(t->legs, a->ring) == latrec_legs_ring_process(t->legs, b->ring);
}

/* The events of a drawn instance: chain stamps k >= 2. */
static uint64_t events_needed(const latrec_timeline *t, const latrec_instance *inst, int n_chain)
{
    uint64_t k = 0, flows = 0;
    int prev = -1;
    for (int i = 0; i < n_chain; i++) {
        if (!inst->hits[i].t_ns) continue;
        k++;
        if (prev >= 0 && !same_thread(t, &inst->hits[prev], &inst->hits[i])) flows++;
        prev = i;
    }
    return k < 2 ? 2 : 2 + 2 * (k - 1) + k + 2 * flows;
}

static void stamp_ev(latrec_timeline *t, const latrec_hit *h, const char *stage, const char *leg, uint64_t seq)
{
    json_int_t pid = tl_pid_of_process(t, latrec_legs_ring_process(t->legs, h->ring));
    tl_put(t, json_pack("{s:o, s:s, s:s, s:f, s:f, s:I, s:I, s:{s:I, s:o}}", "name", tl_str(stage), "cat", "stamp",
                        "ph", "X", "ts", tl_us(t, h->t_ns), "dur", 0.0, "pid", pid, "tid", tl_tid_of_ring(t, h->ring),
                        "args", "seq", (json_int_t)seq, "leg", tl_str(leg)));
}

static void flow_evs(latrec_timeline *t, const latrec_hit *a, const latrec_hit *b, const char *name, const char *cat)
{
    json_int_t id = (json_int_t)++t->flow_id;
    json_int_t pid_a = tl_pid_of_process(t, latrec_legs_ring_process(t->legs, a->ring));
    json_int_t pid_b = tl_pid_of_process(t, latrec_legs_ring_process(t->legs, b->ring));
    tl_put(t, json_pack("{s:o, s:s, s:s, s:I, s:f, s:I, s:I}", "name", tl_str(name), "cat", cat, "ph", "s", "id", id,
                        "ts", tl_us(t, a->t_ns), "pid", pid_a, "tid", tl_tid_of_ring(t, a->ring)));
    tl_put(t, json_pack("{s:o, s:s, s:s, s:s, s:I, s:f, s:I, s:I}", "name", tl_str(name), "cat", cat, "ph", "f", "bp",
                        "e", "id", id, "ts", tl_us(t, b->t_ns), "pid", pid_b, "tid", tl_tid_of_ring(t, b->ring)));
    t->tot.flows++;
}

static void draw_instance(latrec_timeline *t, const latrec_instance *inst, const latrec_leg *leg, int first, int last)
{
    const latrec_catalog *cat = latrec_legs_leg_catalog(t->legs, inst->leg);
    char name[2 * LATREC_NAME_MAX + 8], hop[2 * LATREC_NAME_MAX + 8], ba[8], bb[8];
    snprintf(name, sizeof(name), "%s/%s", latrec_legs_component_name(t->legs, inst->component), leg->name);
    const latrec_hit *h0 = &inst->hits[first], *h1 = &inst->hits[last];
    const json_int_t pid = tl_pid_of_process(t, inst->process), tid = tl_tid_of_ring(t, h0->ring);
    const json_int_t seq = (json_int_t)inst->seq;
    t->tot.instances++;
    if (first == last) {
        tl_put(t, json_pack("{s:o, s:s, s:s, s:s, s:f, s:I, s:I, s:{s:I}}", "name", tl_str(name), "cat", "leg", "ph",
                            "i", "s", "t", "ts", tl_us(t, h0->t_ns), "pid", pid, "tid", tid, "args", "seq", seq));
        stamp_ev(t, h0, latrec_catalog_stage_name(cat, leg->chain[first], ba), name, inst->seq);
        return;
    }
    /* The leg, its hops nested in it (same id), in the order a stack
     * reads them: begin, each hop's begin and end, end. */
    const uint64_t id = ++t->async_id;
    json_t *b = async_ev("b", name, id, tl_us(t, h0->t_ns), pid, tid);
    json_object_set_new(b, "args", json_pack("{s:s, s:I, s:b}", "kind", "leg", "seq", seq, "complete", inst->complete));
    tl_put(t, b);
    int prev = first;
    for (int i = first + 1; i <= last; i++) {
        const latrec_hit *ha = &inst->hits[prev], *hb = &inst->hits[i];
        if (!hb->t_ns) continue;
        snprintf(hop, sizeof(hop), "%s -> %s", latrec_catalog_stage_name(cat, leg->chain[prev], ba),
                 latrec_catalog_stage_name(cat, leg->chain[i], bb));
        b = async_ev("b", hop, id, tl_us(t, ha->t_ns), pid, tid);
        json_object_set_new(b, "args", json_pack("{s:s, s:I}", "kind", "hop", "seq", seq));
        tl_put(t, b);
        tl_put(t, async_ev("e", hop, id, tl_us(t, hb->t_ns), pid, tid));
        prev = i;
    }
    tl_put(t, async_ev("e", name, id, tl_us(t, h1->t_ns), pid, tid));
    /* Stamps on their threads, and a flow where a hop changes thread. */
    prev = -1;
    for (int i = first; i <= last; i++) {
        const latrec_hit *h = &inst->hits[i];
        if (!h->t_ns) continue;
        stamp_ev(t, h, latrec_catalog_stage_name(cat, leg->chain[i], ba), name, inst->seq);
        if (prev >= 0) {
            const latrec_hit *ha = &inst->hits[prev];
            if (!same_thread(t, ha, h)) {
                snprintf(hop, sizeof(hop), "%s -> %s", latrec_catalog_stage_name(cat, leg->chain[prev], ba),
                         latrec_catalog_stage_name(cat, leg->chain[i], bb));
                flow_evs(t, ha, h, hop, "flow");
            }
        }
        prev = i;
    }
}

void latrec_timeline_add_instance(latrec_timeline *t, const latrec_instance *inst)
{
    const latrec_leg *leg = latrec_legs_leg(t->legs, inst->leg);
    int first = -1, last = -1;
    for (int i = 0; i < leg->n_chain; i++)
        if (inst->hits[i].t_ns) {
            if (first < 0) first = i;
            last = i;
        }
    if (first < 0) return; /* extras only: nothing to place */
    const uint64_t t0 = inst->hits[first].t_ns;
    const int64_t rel = (int64_t)(t0 - t->origin);
    if (rel < (int64_t)t->opts.from_ns || (t->opts.to_ns && rel >= (int64_t)t->opts.to_ns)) {
        t->tot.outside++;
        return;
    }
    if (t->tot.stopped || tl_sched_flush(t, t0) < 0) {
        t->tot.cut++;
        return;
    }
    if (!tl_fits(t, events_needed(t, inst, leg->n_chain))) {
        t->tot.stopped = 1;
        t->tot.stopped_at_ns = (uint64_t)rel;
        t->tot.cut++;
        return;
    }
    draw_instance(t, inst, leg, first, last);
}

/* 1 when instance inst was drawn (its first chain stamp in the window;
 * the caller knows the timeline has not stopped). *last gets its last
 * chain stamp, *first its first. */
static int drawn(const latrec_timeline *t, const latrec_instance *inst, const latrec_hit **first,
                 const latrec_hit **last)
{
    const latrec_leg *leg = latrec_legs_leg(t->legs, inst->leg);
    *first = *last = NULL;
    for (int i = 0; i < leg->n_chain; i++)
        if (inst->hits[i].t_ns) {
            if (!*first) *first = &inst->hits[i];
            *last = &inst->hits[i];
        }
    if (!*first) return 0;
    const int64_t rel = (int64_t)((*first)->t_ns - t->origin);
    return rel >= (int64_t)t->opts.from_ns && (!t->opts.to_ns || rel < (int64_t)t->opts.to_ns);
}

void latrec_timeline_add_path(latrec_timeline *t, const latrec_path_instance *pi)
{
    if (!pi->complete || t->tot.stopped) return;
    const char *path_name = latrec_path_index_name(t->in->paths, pi->path); /* run-wide (convert's index) */
    const latrec_hit *first[LATREC_MAX_PATH_LEGS], *last[LATREC_MAX_PATH_LEGS];
    for (int i = 0; i < pi->n_legs; i++)
        if (!drawn(t, pi->legs[i], &first[i], &last[i])) return;
    /* a slice for the whole path, a flow at each hand-off */
    if (!tl_fits(t, 2 + 2 * (uint64_t)(pi->n_legs - 1))) {
        t->tot.stopped = 1;
        t->tot.stopped_at_ns = pi->start_ns - t->origin;
        return;
    }
    const json_int_t pid = tl_pid_of_process(t, pi->legs[0]->process), tid = tl_tid_of_ring(t, first[0]->ring);
    const uint64_t id = ++t->async_id;
    json_t *b = async_ev("b", path_name, id, tl_us(t, first[0]->t_ns), pid, tid);
    json_object_set_new(b, "cat", json_string("path"));
    json_object_set_new(b, "args", json_pack("{s:s}", "kind", "path"));
    tl_put(t, b);
    json_t *e = async_ev("e", path_name, id, tl_us(t, last[pi->n_legs - 1]->t_ns), pid, tid);
    json_object_set_new(e, "cat", json_string("path"));
    tl_put(t, e);
    /* The hand-offs as the path's segments define them (analyze/paths.h). */
    latrec_segment seg[LATREC_MAX_SEGS];
    const int n_seg = latrec_path_index_segments(t->in->paths, pi->path, seg);
    char name[LATREC_PATH_NAME_MAX + 2 * LATREC_NAME_MAX + 16];
    for (int i = 0; i < n_seg; i++) {
        int64_t v;
        const latrec_hit *a, *hb;
        if (seg[i].kind != LATREC_SEG_HANDOFF ||
            !latrec_path_index_segment_value(t->in->paths, pi, &seg[i], &v, &a, &hb) || !a || !hb ||
            same_thread(t, a, hb))
            continue;             /* nothing to point at */
        if (hb->t_ns < a->t_ns) { /* the next leg began before this one ended: no arrow back in time */
            t->tot.handoffs_backwards++;
            continue;
        }
        snprintf(name, sizeof(name), "%s: %s", path_name, seg[i].leg);
        flow_evs(t, a, hb, name, "path");
    }
    t->tot.paths++;
}

/* What was left out, for a reader of the file (catapult shows otherData). */
static void write_other(latrec_timeline *t)
{
    const latrec_timeline_totals *s = &t->tot;
    json_t *o =
        json_pack("{s:s, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I}", "generator", "latrec convert --format chrome",
                  "instances", (json_int_t)s->instances, "paths", (json_int_t)s->paths, "path_handoffs_backwards",
                  (json_int_t)s->handoffs_backwards, "instances_outside_window", (json_int_t)s->outside,
                  "instances_cut", (json_int_t)s->cut, "sched_slices", (json_int_t)s->sched_slices, "sched_slices_cut",
                  (json_int_t)s->sched_cut, "max_events", (json_int_t)t->opts.max_events);
    if (o && s->stopped) json_object_set_new(o, "stopped_at_us", json_real((double)s->stopped_at_ns / 1000.0));
    if (o && !s->sched) json_object_set_new(o, "sched", tl_str(s->sched_reason));
    fputs("\n],\"otherData\":", t->f);
    if (!o || json_dumpf(o, t->f, JSON_COMPACT | JSON_REAL_PRECISION(15)) != 0) t->failed = o ? EIO : ENOMEM;
    json_decref(o);
}

int latrec_timeline_close(latrec_timeline *t, latrec_timeline_totals *tot, char *err, size_t errlen)
{
    if (!t->tot.stopped) tl_sched_flush(t, UINT64_MAX);
    tl_sched_count_rest(t);
    write_other(t);
    if (fputs("}\n", t->f) == EOF && !t->failed) t->failed = errno;
    if (fflush(t->f) != 0 && !t->failed) t->failed = errno;
    if (t->failed) {
        snprintf(err, errlen, "%s: %s", t->out.path, strerror(t->failed));
        latrec_outfile_abort(&t->out);
    } else if (latrec_outfile_commit(&t->out, err, errlen) < 0) {
        t->failed = errno;
    }
    int failed = t->failed;
    if (tot) *tot = t->tot;
    tl_sched_close(t);
    free(t);
    errno = failed;
    return failed ? -1 : 0;
}

void latrec_timeline_abort(latrec_timeline *t)
{
    if (!t) return;
    latrec_outfile_abort(&t->out);
    tl_sched_close(t);
    free(t);
}
