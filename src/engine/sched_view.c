/* The scheduler's side of a hop. */
#include "engine/sched_view.h"

#include "analyze/legs.h"
#include "analyze/sched_catalog.h"
#include "read/escape.h"
#include "read/ring_window.h"
#include "read/shrink_guard.h"
#include "util/prog.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

/* No scheduler data to read: says why in v->reason (1), else 0. */
static int no_data(latrec_sched_view *v, const latrec_input *in)
{
    if (in->sched_ring < 0) {
        if (in->run_state == LATREC_RUN_RECORDING)
            snprintf(v->reason, sizeof(v->reason),
                     "the run is still being recorded and has no sched.latrec yet "
                     "(a latrec record without the live ring writes it at its end)");
        else if (in->run_state == LATREC_RUN_UNFINISHED)
            snprintf(v->reason, sizeof(v->reason), "the recording never finished (latrec killed?): sched.latrec was never written");
        else if (in->sched_reason[0])
            snprintf(v->reason, sizeof(v->reason), "%s", in->sched_reason);
        else if (in->have_run)
            snprintf(v->reason, sizeof(v->reason), "no sched.latrec in this run: recorded without the scheduler collector");
        else
            snprintf(v->reason, sizeof(v->reason), "not a run of latrec record");
        return 1;
    }
    if (in->opts.wall) {
        snprintf(v->reason, sizeof(v->reason), "not with --wall (the scheduler data is on the monotonic clock)");
        return 1;
    }
    return 0;
}

static int cannot_load(latrec_sched_view *v, const latrec_ring *r)
{
    fprintf(stderr, "%s: %s: cannot load the scheduler data\n", latrec_prog, r->path);
    snprintf(v->reason, sizeof(v->reason), "%s could not be loaded", r->basename);
    return -1;
}

int latrec_sched_view_open(latrec_sched_view *v, const latrec_input *in)
{
    memset(v, 0, sizeof(*v));
    if (no_data(v, in)) return 0;
    const latrec_ring *r = &in->set.rings[in->sched_ring];
    if (!(v->model = latrec_sched_model_new()) || latrec_sched_load(v->model, r) < 0) {
        latrec_sched_model_free(v->model);
        v->model = NULL;
        return cannot_load(v, r);
    }
    return 0;
}

/* ---- a pass --------------------------------------------------------------- */

/* sched.latrec read in write order, its pages mapped near the cursor only
 * (read/ring_window.h), as latrec_sched_load reads it; through a mapping of
 * its own (the same pages: mremap of a shared mapping with old size 0),
 * since the merge reads the same file ahead of it and each window's advice
 * works for one reader of a mapping only (a second one's faults map large
 * folios across the first one's window, behind both read positions). */
struct latrec_sched_view_src {
    latrec_ring ring; /* the input's, but map and recs when own */
    int own;
    latrec_cursor cur;
    latrec_ring_window win;
};

static int src_next(void *ctx, latrec_rec *rec)
{
    struct latrec_sched_view_src *s = ctx;
    if (!latrec_ring_next(&s->ring, &s->cur, rec)) return 0;
    latrec_ring_window_at(&s->ring, &s->win, s->cur.pos - 1);
    return 1;
}

static void src_rewind(void *ctx)
{
    struct latrec_sched_view_src *s = ctx;
    latrec_ring_window_end(&s->ring, &s->win);
    latrec_ring_cursor_init(&s->cur);
    latrec_ring_window_start(&s->ring, &s->win);
}

static struct latrec_sched_view_src *src_open(const latrec_ring *r)
{
    struct latrec_sched_view_src *s = calloc(1, sizeof(*s));
    if (!s) return NULL;
    s->ring = *r;
    void *map = mremap(r->map, 0, r->map_len, MREMAP_MAYMOVE);
    if (map != MAP_FAILED) { /* else the input's mapping, shared */
        s->ring.map = map;
        s->ring.recs = (const latrec_rec *)(void *)((char *)map + ((const char *)r->recs - (const char *)r->map));
        s->ring.guard = latrec_shrink_guard_add(map, r->map_len);
        s->own = 1;
    }
    latrec_ring_cursor_init(&s->cur);
    latrec_ring_window_start(&s->ring, &s->win);
    return s;
}

static void src_close(struct latrec_sched_view_src *s)
{
    if (!s) return;
    latrec_ring_window_end(&s->ring, &s->win);
    if (s->own) {
        latrec_shrink_guard_remove(s->ring.guard);
        munmap(s->ring.map, s->ring.map_len);
    }
    free(s);
}

/* A view reading sched.latrec through a source of its own (*src, *rp its
 * ring): 1; 0 when there is no scheduler data (reason set); -1 when it
 * cannot be read (a line printed). */
static int open_source(latrec_sched_view *v, const latrec_input *in, latrec_sched_source *src, const latrec_ring **rp)
{
    memset(v, 0, sizeof(*v));
    if (no_data(v, in)) return 0;
    const latrec_ring *r = *rp = &in->set.rings[in->sched_ring];
    if (r->status != LATREC_RING_OK || (r->catalog[0] && strcmp(r->catalog, LATREC_SCHED_CATALOG) != 0))
        return cannot_load(v, r);
    if (!(v->src = src_open(r))) return cannot_load(v, r);
    *src = (latrec_sched_source){ src_next, src_rewind, v->src, r->lost };
    return 1;
}

int latrec_sched_view_open_pass(latrec_sched_view *v, const latrec_input *in)
{
    latrec_sched_source src;
    const latrec_ring *r;
    const int opened = open_source(v, in, &src, &r);
    if (opened <= 0) return opened;
    if (!(v->pass = latrec_sched_pass_new(&src))) {
        latrec_sched_view_close(v);
        return cannot_load(v, r);
    }
    v->model = (latrec_sched_model *)latrec_sched_pass_model(v->pass);
    return 0;
}

int latrec_sched_view_want(const latrec_sched_view *v, uint32_t tid, uint64_t t_a, uint64_t t_b)
{
    return v->pass ? latrec_sched_pass_want(v->pass, tid, t_a, t_b) : 0;
}

int latrec_sched_view_end_pass(latrec_sched_view *v)
{
    if (!v->pass || latrec_sched_pass_end(v->pass) == 0) return 0;
    return cannot_load(v, &v->src->ring);
}

/* ---- the runqueue waits, streamed ------------------------------------------ */

int latrec_sched_view_waits(latrec_sched_view *v, const latrec_input *in, latrec_sched_wait_fn fn, void *ctx)
{
    latrec_sched_source src;
    const latrec_ring *r;
    const int opened = open_source(v, in, &src, &r);
    if (opened <= 0) return opened;
    const int rc = latrec_sched_waits(&src, &v->model, fn, ctx);
    src_close(v->src);
    v->src = NULL;
    if (rc < 0) {
        latrec_sched_view_close(v);
        return cannot_load(v, r);
    }
    return rc;
}

/* ---- fed as read ------------------------------------------------------------- */

static int no_wait(void *ctx, const latrec_sched_wait *w)
{
    (void)ctx;
    (void)w;
    return 0;
}

int latrec_sched_view_open_stream(latrec_sched_view *v, const latrec_input *in)
{
    latrec_sched_source src;
    const latrec_ring *r;
    const int opened = open_source(v, in, &src, &r);
    if (opened <= 0) return opened;
    if (latrec_sched_waits(&src, &v->names, no_wait, NULL) < 0 || !(v->model = latrec_sched_model_new())) {
        latrec_sched_view_close(v);
        return cannot_load(v, r);
    }
    src_rewind(v->src);
    return 0;
}

#define STREAM_FORGET_EVERY 4096u /* records fed between two forgets */

int latrec_sched_view_feed(latrec_sched_view *v, size_t n)
{
    if (v->ended) return 0;
    latrec_rec rec;
    for (size_t k = 0; k < n; k++) {
        if (!src_next(v->src, &rec)) {
            v->ended = 1;
            if (latrec_sched_finish(v->model) == 0) return 0;
            return cannot_load(v, &v->src->ring);
        }
        if (latrec_sched_feed(v->model, &rec)) return cannot_load(v, &v->src->ring);
        if (++v->fed - v->fed_at_forget >= STREAM_FORGET_EVERY) {
            v->fed_at_forget = v->fed;
            const uint64_t now = latrec_sched_counters(v->model)->last_ns;
            latrec_sched_forget(v->model, v->keep_from < now ? v->keep_from : now);
        }
    }
    return 1;
}

/* ---- live ------------------------------------------------------------------ */

int latrec_sched_view_open_live(latrec_sched_view *v, const latrec_input *in)
{
    memset(v, 0, sizeof(*v));
    v->live = 1;
    if (in->opts.wall) {
        snprintf(v->reason, sizeof(v->reason), "not with --wall (the scheduler data is on the monotonic clock)");
        v->ended = 1;
    } else if (in->have_run) {
        snprintf(v->reason, sizeof(v->reason),
                 "no sched.latrec yet (the scheduler collector publishes it "
                 "while it records)");
    } else {
        snprintf(v->reason, sizeof(v->reason), "not a run of latrec record");
    }
    return 0;
}

/* The live ring's header fields, as the collector last stored them. */
static uint64_t hdr_u64(const latrec_ring *r, size_t off)
{
    return __atomic_load_n((const uint64_t *)(const void *)((const char *)r->map + off), __ATOMIC_ACQUIRE);
}

static int attach(latrec_sched_view *v, const latrec_input *in)
{
    const latrec_ring *r = &in->set.rings[in->sched_ring];
    char safe[4200];
    if (latrec_ring_open(&v->ring, r->path) != 0 || !(v->model = latrec_sched_model_new())) {
        fprintf(stderr, "%s: %s: %s\n", latrec_prog, latrec_text_safe(r->path, safe, sizeof(safe)),
                v->ring.status == LATREC_RING_OK ? "out of memory" : v->ring.error);
        snprintf(v->reason, sizeof(v->reason), "%s could not be read", r->basename);
        latrec_ring_close(&v->ring);
        v->ended = 1;
        return -1;
    }
    latrec_ring_cursor_init(&v->cur);
    v->attached = 1;
    v->reason[0] = '\0';
    return 0;
}

/* Memory for the span still split, not the run: a hop starts at most the
 * leg horizon before it ends (the builder cuts longer instances), so what
 * ended more than that and a second before the mark is let go, once a
 * second at most. */
static void forget(latrec_sched_view *v, const latrec_input *in)
{
    const uint64_t keep = (in->opts.leg_horizon_ns ? in->opts.leg_horizon_ns : LATREC_LEGS_HORIZON_NS) + 1000000000ull;
    if (v->covered_ns <= keep || v->covered_ns - keep < v->forgot_ns + 1000000000ull) return;
    v->forgot_ns = v->covered_ns - keep;
    latrec_sched_forget(v->model, v->forgot_ns);
}

uint64_t latrec_sched_view_follow(latrec_sched_view *v, const latrec_input *in)
{
    if (!v->live || v->ended) return v->covered_ns;
    if (!v->attached && (in->sched_ring < 0 || attach(v, in) < 0)) return v->covered_ns;
    latrec_ring *r = &v->ring;
    /* the mark and the flag before the records: what they promise is in */
    const uint64_t mark = hdr_u64(r, offsetof(latrec_hdr, t1_mono_ns));
    const int closed =
        (__atomic_load_n((const uint32_t *)(const void *)((const char *)r->map + offsetof(latrec_hdr, flags)),
                         __ATOMIC_ACQUIRE) &
         LATREC_F_CLEAN_CLOSE) != 0;
    latrec_rec rec;
    int rc = 0;
    do {
        while (!rc && latrec_ring_next(r, &v->cur, &rec)) rc = latrec_sched_feed(v->model, &rec);
    } while (!rc && latrec_ring_poll(r, &v->cur));
    if (!rc && closed) {
        rc = latrec_sched_finish(v->model);
        v->covered_ns = UINT64_MAX;
        v->ended = 1;
    } else if (!rc && mark > v->covered_ns) {
        rc = latrec_sched_settle(v->model, mark);
        v->covered_ns = mark;
        forget(v, in);
    }
    if (rc) {
        char safe[4200];
        fprintf(stderr, "%s: %s: out of memory: no scheduler split from here on\n", latrec_prog,
                latrec_text_safe(r->path, safe, sizeof(safe)));
        snprintf(v->reason, sizeof(v->reason), "out of memory");
        v->ended = 1; /* covered_ns stays: the model (incomplete) answers nothing past it */
    }
    return v->covered_ns;
}

void latrec_sched_view_label(const latrec_sched_view *v, const latrec_input *in, uint32_t tid, uint32_t gen, char *buf,
                             size_t len)
{
    char name[128] = "";
    for (size_t i = 0; i < in->set.n && !name[0]; i++) {
        const latrec_ring *r = &in->set.rings[i];
        if ((int)i == in->sched_ring || r->status != LATREC_RING_OK || !r->valid || latrec_ring_tid(r) != tid) continue;
        /* the ring is this generation's when written while it lived */
        if (v->model && latrec_sched_gen_at(v->model, tid, r->min_t_ns) != (int64_t)gen) continue;
        latrec_input_ring_role(r, name, sizeof(name));
    }
    if (!name[0]) {
        const char *comm = v->model ? latrec_sched_thread_name(v->model, tid, gen) : NULL;
        snprintf(name, sizeof(name), "%s", comm && comm[0] ? comm : "?");
    }
    char safe[sizeof(name) * 4]; /* escaped for the terminal (read/escape.h) */
    latrec_text_safe(name, safe, sizeof(safe));
    if (gen) snprintf(buf, len, "%s/%u#%u", safe, tid, gen);
    else snprintf(buf, len, "%s/%u", safe, tid);
}

void latrec_sched_view_close(latrec_sched_view *v)
{
    if (v->pass) { /* the model is the pass's */
        latrec_sched_pass_free(v->pass);
        v->pass = NULL;
        v->model = NULL;
    }
    src_close(v->src);
    v->src = NULL;
    latrec_sched_model_free(v->model);
    v->model = NULL;
    latrec_sched_model_free(v->names);
    v->names = NULL;
    if (v->attached) latrec_ring_close(&v->ring);
    v->attached = 0;
}

int latrec_sched_view_add_also(const latrec_sched_view *v, latrec_sched_acc *acc, latrec_sched_acc *also, uint32_t tid,
                               uint64_t t_a, uint64_t t_b)
{
    latrec_sched_breakdown b;
    if (v->pass) return latrec_sched_pass_add(v->pass, acc, also, tid, t_a, t_b);
    if (!v->model || latrec_sched_view_gave_up(v) || t_b < t_a ||
        latrec_sched_split_sums(v->model, &acc->hint, tid, t_a, t_b, &b) < 0 || b.gen < 0)
        return -1;
    latrec_sched_acc_add(acc, &b);
    if (also) latrec_sched_acc_add(also, &b);
    return 0;
}

int latrec_sched_view_add(const latrec_sched_view *v, latrec_sched_acc *acc, uint32_t tid, uint64_t t_a,
                          uint64_t t_b)
{
    if (v->pass) return latrec_sched_pass_add(v->pass, acc, NULL, tid, t_a, t_b); /* report's, per hop */
    return latrec_sched_view_add_also(v, acc, NULL, tid, t_a, t_b);
}

void latrec_sched_view_explain(const latrec_sched_view *v, uint32_t tid, uint64_t t_a, uint64_t t_b,
                               const char *unit, double div, char *out, size_t len)
{
    latrec_sched_breakdown b;
    if (!v->model) {
        snprintf(out, len, "scheduler data n/a: %s", v->reason);
        return;
    }
    const int rc = v->pass ? latrec_sched_pass_answer(v->pass, tid, t_a, t_b, &b)
                   : t_b < t_a ? -1
                               : latrec_sched_split(v->model, tid, t_a, t_b, &b);
    if (rc < 0 || b.gen < 0) {
        snprintf(out, len, "the scheduler data has no timeline for tid %u", tid);
        return;
    }
    size_t n = 0;
#define PUT(...) do { int k_ = snprintf(out + n, n < len ? len - n : 0, __VA_ARGS__); if (k_ > 0) n += (size_t)k_; } while (0)
    PUT("%.1f %s on CPU", (double)b.on_cpu_ns / div, unit);
    if (b.runnable_ns) {
        PUT(", %.1f %s runnable", (double)b.runnable_ns / div, unit);
        for (int i = 0; i < b.n_others; i++) {
            const latrec_sched_other *o = &b.others[i];
            if (i == 0) PUT(" on CPU %u behind ", o->cpu);
            else PUT(", ");
            if (o->tid == 0) PUT("the idle task");
            else PUT("%s/%u", o->comm[0] ? o->comm : "?", o->tid);
            PUT(" (%.1f %s)", (double)o->ns / div, unit);
        }
        if (b.n_tasks > (uint32_t)b.n_others) PUT(" and %u more", b.n_tasks - (uint32_t)b.n_others);
    }
    if (b.blocked_ns) PUT(", %.1f %s blocked", (double)b.blocked_ns / div, unit);
    if (b.unknown_ns) PUT(", %.1f %s unknown", (double)b.unknown_ns / div, unit);
    PUT("; %u preemption%s, %u migration%s", b.preemptions, b.preemptions == 1 ? "" : "s", b.migrations,
        b.migrations == 1 ? "" : "s");
#undef PUT
}
