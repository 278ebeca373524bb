/* trace.json writer (trace-event format). */
#include "cli/timeline.h"

#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "read/outfile.h"

struct latrec_timeline {
    latrec_outfile out; /* written aside, renamed over trace.json at close */
    FILE *f;
    const latrec_input *in;
    const latrec_legs *legs;
    uint64_t origin;
    uint64_t flow_id;
    int first;
    int failed;
};

static void put(latrec_timeline *t, json_t *ev)
{
    if (!ev) {
        t->failed = ENOMEM;
        return;
    }
    if (!t->first && fputs(",\n", t->f) == EOF) t->failed = errno;
    t->first = 0;
    if (json_dumpf(ev, t->f, JSON_COMPACT) != 0) t->failed = errno ? errno : EIO;
    json_decref(ev);
}

/* A JSON string of s. Ring names come from file headers and catalog names
 * from users' files: text that is not UTF-8 (which JSON cannot carry) gets
 * '?' for every byte >= 0x80 instead of failing the whole trace. */
static json_t *jstr(const char *s)
{
    json_t *j = json_string(s);
    if (j) return j;
    char buf[256];
    size_t i = 0;
    for (; s[i] && i < sizeof(buf) - 1; i++) buf[i] = (unsigned char)s[i] < 0x80 ? s[i] : '?';
    buf[i] = '\0';
    return json_string(buf);
}

static json_int_t pid_of(const latrec_timeline *t, uint32_t process)
{
    const latrec_process *p = latrec_legs_process(t->legs, process);
    return p->pid ? (json_int_t)p->pid : (json_int_t)(1000000 + process);
}

static json_int_t tid_of(const latrec_timeline *t, uint32_t ring)
{
    uint32_t tid = latrec_ring_tid(&t->in->set.rings[ring]);
    return tid ? (json_int_t)tid : (json_int_t)(ring + 1);
}

static double us(const latrec_timeline *t, uint64_t ns)
{
    return (double)(int64_t)(ns - t->origin) / 1000.0;
}

latrec_timeline *latrec_timeline_open(const char *path, const latrec_input *in, const latrec_legs *legs)
{
    latrec_timeline *t = calloc(1, sizeof(*t));
    if (!t) return NULL;
    char err[512];
    if (latrec_outfile_open(&t->out, path, 0, err, sizeof(err)) < 0) {
        const int e = errno;
        free(t);
        errno = e;
        return NULL;
    }
    t->f = t->out.f;
    t->in = in;
    t->legs = legs;
    t->first = 1;
    latrec_input_totals tot;
    latrec_input_totals_get(in, &tot);
    t->origin = tot.first_t;
    if (in->opts.wall) { /* instances carry wall-clock stamps: the earliest one */
        t->origin = UINT64_MAX;
        for (size_t i = 0; i < in->set.n; i++) {
            const latrec_ring *r = &in->set.rings[i];
            latrec_wallmap map;
            if (r->status != LATREC_RING_OK || !r->valid || latrec_wallmap_init(&map, r, NULL, 0) < 0) continue;
            const uint64_t w = latrec_wallmap_apply(&map, r->min_t_ns);
            if (w < t->origin) t->origin = w;
        }
        if (t->origin == UINT64_MAX) t->origin = 0;
    }
    fputs("{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n", t->f);
    uint32_t done_proc[4096];
    size_t n_done = 0;
    for (size_t i = 0; i < in->set.n; i++) {
        const latrec_ring *r = &in->set.rings[i];
        if (r->status != LATREC_RING_OK) continue;
        uint32_t proc = latrec_legs_ring_process(legs, (uint32_t)i);
        int seen = 0;
        for (size_t k = 0; k < n_done; k++) seen |= done_proc[k] == proc;
        if (!seen && n_done < sizeof(done_proc) / sizeof(done_proc[0])) {
            done_proc[n_done++] = proc;
            put(t, json_pack("{s:s, s:s, s:I, s:{s:o}}", "name", "process_name", "ph", "M", "pid",
                             pid_of(t, proc), "args", "name", jstr(latrec_legs_process(legs, proc)->label)));
        }
        put(t, json_pack("{s:s, s:s, s:I, s:I, s:{s:o}}", "name", "thread_name", "ph", "M", "pid",
                         pid_of(t, proc), "tid", tid_of(t, (uint32_t)i), "args", "name", jstr(r->name)));
    }
    return t;
}

void latrec_timeline_add_instance(latrec_timeline *t, const latrec_instance *inst)
{
    const latrec_leg *leg = latrec_legs_leg(t->legs, inst->leg);
    const latrec_catalog *cat = &t->in->cat;
    char name[2 * LATREC_NAME_MAX + 8], ba[8], bb[8];
    snprintf(name, sizeof(name), "%s/%s", latrec_legs_component_name(t->legs, inst->component), leg->name);
    int first = -1, last = -1;
    for (int i = 0; i < leg->n_chain; i++)
        if (inst->hits[i].t_ns) {
            if (first < 0) first = i;
            last = i;
        }
    if (first < 0) return; /* extras only: nothing to place */
    const latrec_hit *h0 = &inst->hits[first], *h1 = &inst->hits[last];
    const json_int_t pid = pid_of(t, inst->process);
    if (first == last) {
        put(t, json_pack("{s:o, s:s, s:s, s:f, s:I, s:I, s:{s:I}}", "name", jstr(name), "ph", "i", "s", "t",
                         "ts", us(t, h0->t_ns), "pid", pid, "tid", tid_of(t, h0->ring), "args", "seq",
                         (json_int_t)inst->seq));
        return;
    }
    put(t, json_pack("{s:o, s:s, s:s, s:f, s:f, s:I, s:I, s:{s:I, s:b}}", "name", jstr(name), "cat", "leg", "ph",
                     "X", "ts", us(t, h0->t_ns), "dur", (double)(int64_t)(h1->t_ns - h0->t_ns) / 1000.0,
                     "pid", pid, "tid", tid_of(t, h0->ring), "args", "seq", (json_int_t)inst->seq,
                     "complete", inst->complete));
    int prev = first;
    for (int i = first + 1; i <= last; i++) {
        const latrec_hit *a = &inst->hits[prev], *b = &inst->hits[i];
        if (!b->t_ns) continue;
        snprintf(name, sizeof(name), "%s -> %s", latrec_catalog_stage_name(cat, leg->chain[prev], ba),
                 latrec_catalog_stage_name(cat, leg->chain[i], bb));
        put(t, json_pack("{s:o, s:s, s:s, s:f, s:f, s:I, s:I, s:{s:I}}", "name", jstr(name), "cat", "hop", "ph",
                         "X", "ts", us(t, a->t_ns), "dur", (double)(int64_t)(b->t_ns - a->t_ns) / 1000.0,
                         "pid", pid, "tid", tid_of(t, b->ring), "args", "seq", (json_int_t)inst->seq));
        if (a->ring != b->ring) {
            json_int_t id = (json_int_t)++t->flow_id;
            json_int_t pid_a = pid_of(t, latrec_legs_ring_process(t->legs, a->ring));
            put(t, json_pack("{s:o, s:s, s:s, s:I, s:f, s:I, s:I}", "name", jstr(name), "cat", "flow", "ph", "s",
                             "id", id, "ts", us(t, a->t_ns), "pid", pid_a, "tid", tid_of(t, a->ring)));
            put(t, json_pack("{s:o, s:s, s:s, s:s, s:I, s:f, s:I, s:I}", "name", jstr(name), "cat", "flow", "ph",
                             "f", "bp", "e", "id", id, "ts", us(t, b->t_ns), "pid", pid, "tid",
                             tid_of(t, b->ring)));
        }
        prev = i;
    }
}

int latrec_timeline_close(latrec_timeline *t)
{
    if (fputs("\n]}\n", t->f) == EOF && !t->failed) t->failed = errno;
    if (fflush(t->f) != 0 && !t->failed) t->failed = errno;
    char err[512];
    if (t->failed) latrec_outfile_abort(&t->out);
    else if (latrec_outfile_commit(&t->out, err, sizeof(err)) < 0) t->failed = errno;
    int failed = t->failed;
    free(t);
    errno = failed;
    return failed ? -1 : 0;
}
