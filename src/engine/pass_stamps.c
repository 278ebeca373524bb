/* The first-stage stamps of a pass by process (pass_split.c): inter-arrival
 * gaps need them in time order, and a thread reads its processes one after
 * another, each from the run's start. So each process's stamps are logged
 * in time order and handed to the sink at the end, every process's log
 * merged in time order.
 *
 * On two threads the merged stream is cut in two where the stamps before
 * the cut make a whole number of the sink's chunks of gaps
 * (sinks.first_stage_chunk: report's outlier chunks of 1000): the first
 * part goes to first_stage on the calling thread, the second to a part of
 * the sink's on a second thread (its first gap from the last stamp before
 * the cut), folded in after the first. The cut is found by the stamps'
 * values alone: the R-th smallest stamp V (by a search over the logs'
 * marks), every stamp below V and as many equal to V as the first part
 * lacks before the cut; which log's equal stamps go first does not change
 * the stream of values, so neither the gaps. */
#include <pthread.h>
#include <stdlib.h>

#include "engine/pass_stamps.h"

#define STAMPS_SCAN_MAX 8           /* logs merged by a look at each (more: a heap) */
#define STAMPS_SPLIT_MIN (1u << 12) /* fewer stamps: one thread (a second costs about what 4096 take) */

int latrec_stamp_log_grow(struct stamp_log *g)
{
    if (g->n % STAMP_MARK_EVERY == 0 && g->n_marks == g->n / STAMP_MARK_EVERY) { /* marks[k]: after k * EVERY */
        if (g->n_marks == g->cap_marks) {
            const size_t cap = g->cap_marks ? 2 * g->cap_marks : 16;
            struct stamp_mark *nm = realloc(g->marks, cap * sizeof(*nm));
            if (!nm) return -1;
            g->marks = nm;
            g->cap_marks = cap;
        }
        g->marks[g->n_marks++] = (struct stamp_mark){ g->len, g->last };
    }
    if (g->len + 10 > g->cap) {
        const size_t cap = g->cap ? 2 * g->cap : 4096;
        uint8_t *nb = realloc(g->buf, cap);
        if (!nb) return -1;
        g->buf = nb;
        g->cap = cap;
    }
    return 0;
}

void latrec_stamp_log_free(struct stamp_log *g)
{
    free(g->buf);
    free(g->marks);
    g->buf = NULL;
    g->marks = NULL;
}

static inline uint64_t varint_at(const uint8_t *buf, size_t *off)
{
    uint64_t d = 0;
    for (int shift = 0;; shift += 7) {
        const uint8_t b = buf[(*off)++];
        d |= (uint64_t)(b & 0x7f) << shift;
        if (!(b & 0x80)) return d;
    }
}

/* A log's reading after count of its stamps (t the last of them). */
struct stamp_pos {
    size_t off;
    uint64_t t, count;
};

/* After every stamp of g at or before v (before: below v). */
static struct stamp_pos pos_upto(const struct stamp_log *g, uint64_t v, int before)
{
    size_t lo = 0, hi = g->n_marks; /* marks[0] is the log's start */
    while (hi - lo > 1) {
        const size_t mid = lo + (hi - lo) / 2;
        if (before ? g->marks[mid].t < v : g->marks[mid].t <= v) lo = mid;
        else hi = mid;
    }
    struct stamp_pos ps = { g->n_marks ? g->marks[lo].off : 0, g->n_marks ? g->marks[lo].t : 0,
                            (uint64_t)lo * STAMP_MARK_EVERY };
    while (ps.count < g->n) {
        size_t off = ps.off;
        const uint64_t t = ps.t + varint_at(g->buf, &off);
        if (before ? t >= v : t > v) break;
        ps.off = off;
        ps.t = t;
        ps.count++;
    }
    return ps;
}

uint64_t latrec_stamp_log_upto(const struct stamp_log *g, uint64_t t_ns)
{
    return pos_upto(g, t_ns, 0).count;
}

/* A log read from a position: left of its stamps still to read, t the
 * last one read (the next is read as the distance from it). */
struct cursor {
    const struct stamp_log *g;
    size_t off;
    uint64_t left, t;
};

static inline void cursor_next(struct cursor *c)
{
    c->t += varint_at(c->g->buf, &c->off);
    c->left--;
}

static void heap_down(struct cursor *h, size_t n, size_t i)
{
    for (;;) {
        size_t m = i, a = 2 * i + 1, b = a + 1;
        if (a < n && h[a].t < h[m].t) m = a;
        if (b < n && h[b].t < h[m].t) m = b;
        if (m == i) return;
        struct cursor x = h[i];
        h[i] = h[m];
        h[m] = x;
        i = m;
    }
}

/* One part of the stream and where it goes: t's first_stage, or a part's. */
struct run {
    latrec_pass *p;
    latrec_leg_table *t;
    void *part; /* NULL: first_stage */
    struct cursor *h;
    size_t n;
};

/* The cursors' stamps in time order to the run's sink. */
static void run_merge(struct run *r)
{
    const latrec_pass_sinks *s = &r->p->sinks;
    struct cursor *h = r->h;
    size_t n = 0;
    for (size_t i = 0; i < r->n; i++)
        if (h[i].left) {
            h[n] = h[i];
            cursor_next(&h[n++]);
        }
    /* Few logs (a run's processes): the least by a look at each beats the
     * heap's moves of whole cursors. Which of equal stamps goes first does
     * not change the stream of values. */
    while (n && n <= STAMPS_SCAN_MAX) {
        size_t m = 0;
        for (size_t i = 1; i < n; i++)
            if (h[i].t < h[m].t) m = i;
        if (r->part) s->part_first_stage(r->part, h[m].t);
        else s->first_stage(s->ctx, r->t, h[m].t);
        if (h[m].left) cursor_next(&h[m]);
        else h[m] = h[--n];
    }
    for (size_t i = n / 2; i-- > 0;) heap_down(h, n, i);
    while (n) {
        if (r->part) s->part_first_stage(r->part, h[0].t);
        else s->first_stage(s->ctx, r->t, h[0].t);
        if (h[0].left) cursor_next(&h[0]);
        else h[0] = h[--n];
        heap_down(h, n, 0);
    }
}

static void *run_thread(void *arg)
{
    run_merge(arg);
    return NULL;
}

/* The stamps of logs[0..n) below rank R in time order (a: from each log's
 * start, R in all) and from there on (b, each from the last stamp before
 * the cut; *prev the last one of all). */
static void cut_at(const struct stamp_log *const *logs, size_t n, uint64_t R, struct cursor *a, struct cursor *b,
                   uint64_t *prev)
{
    uint64_t lo = 0, hi = 0; /* the smallest V with R stamps at or before it */
    for (size_t i = 0; i < n; i++)
        if (logs[i]->last > hi) hi = logs[i]->last;
    while (lo < hi) {
        const uint64_t mid = lo + (hi - lo) / 2;
        uint64_t k = 0;
        for (size_t i = 0; i < n; i++) k += pos_upto(logs[i], mid, 0).count;
        if (k >= R) hi = mid;
        else lo = mid + 1;
    }
    uint64_t below = 0;
    for (size_t i = 0; i < n; i++) below += pos_upto(logs[i], lo, 1).count;
    uint64_t ties = R - below; /* stamps equal to V the first part takes */
    for (size_t i = 0; i < n; i++) {
        const struct stamp_log *g = logs[i];
        struct stamp_pos ps = pos_upto(g, lo, 1);
        while (ties && ps.count < g->n) { /* the next stamp is V while any of this log's are left */
            size_t off = ps.off;
            const uint64_t t = ps.t + varint_at(g->buf, &off);
            if (t != lo) break;
            ps = (struct stamp_pos){ off, t, ps.count + 1 };
            ties--;
        }
        a[i] = (struct cursor){ g, 0, ps.count, 0 };
        b[i] = (struct cursor){ g, ps.off, g->n - ps.count, ps.t };
    }
    *prev = lo;
}

int latrec_stamps_replay(latrec_pass *p, latrec_leg_table *t, const struct stamp_log *const *logs, size_t n,
                         int two_threads)
{
    const latrec_pass_sinks *s = &p->sinks;
    uint64_t total = 0;
    for (size_t i = 0; i < n; i++) total += logs[i]->n;
    struct cursor *h = calloc(2 * n + 1, sizeof(*h));
    if (!h) return -1;
    struct run first = { p, t, NULL, h, n }, second = { p, t, NULL, h + n, n };
    const uint64_t chunk = s->first_stage_chunk ? s->first_stage_chunk : 1;
    const uint64_t whole = total > 1 ? (total - 1) / chunk / 2 : 0; /* chunks of gaps before the cut */
    pthread_t th;
    int on_second = 0, rc = 0;
    if (two_threads && s->first_stage_part && total >= STAMPS_SPLIT_MIN && whole > 0) {
        uint64_t prev;
        cut_at(logs, n, 1 + whole * chunk, first.h, second.h, &prev);
        if (!(second.part = s->first_stage_part(s->ctx, t, prev))) rc = -1;
        else on_second = pthread_create(&th, NULL, run_thread, &second) == 0;
        if (second.part && !on_second) run_merge(&second); /* no thread: here (into its part all the same) */
    } else {
        for (size_t i = 0; i < n; i++) h[i] = (struct cursor){ logs[i], 0, logs[i]->n, 0 };
    }
    if (rc == 0) run_merge(&first);
    if (on_second) pthread_join(th, NULL);
    if (second.part && s->first_stage_fold(s->ctx, t, second.part) < 0) rc = -1;
    free(h);
    return rc;
}
