/*
 * merge.c - k-way time-ordered merge over rings (binary min-heap).
 */
#include "read/merge.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct latrec_merge_src {
    latrec_cursor  cur;
    latrec_rec     head; /* the ring's next record, not yet emitted */
    uint64_t       key;  /* head's merge key */
    uint64_t       pos;  /* head's write-order position */
    latrec_wallmap wall;
    int            no_wall; /* left out: no wall-clock mapping (add_rings) */
};

static int fail(char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int fail(char *err, size_t errlen, const char *fmt, ...)
{
    if (err && errlen) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, errlen, fmt, ap);
        va_end(ap);
    }
    return -1;
}

/* Strict order on heap entries: (key, ring index). Positions of one ring
 * never meet in the heap (one head per ring), so the ring index settles
 * every tie. */
struct latrec_merge_ent {
    uint64_t key;  /* the ring's head key, kept here so sifting stays in the heap */
    uint32_t ring;
};

static inline int before(const struct latrec_merge_ent *a, const struct latrec_merge_ent *b)
{
    return a->key != b->key ? a->key < b->key : a->ring < b->ring;
}

static void sift_down(latrec_merge *m, size_t i)
{
    struct latrec_merge_ent *h = m->heap;
    size_t n = m->heap_len;
    struct latrec_merge_ent x = h[i];
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= n)
            break;
        if (c + 1 < n && before(&h[c + 1], &h[c]))
            c++;
        if (!before(&h[c], &x))
            break;
        h[i] = h[c];
        i = c;
    }
    h[i] = x;
}

/* Load ring i's next record as its head; 0 when the ring is exhausted. */
static inline int advance(latrec_merge *m, uint32_t i)
{
    struct latrec_merge_src *s = &m->src[i];
    if (!latrec_ring_next(&m->rings[i], &s->cur, &s->head))
        return 0;
    s->pos = s->cur.pos - 1;
    s->key = (m->flags & LATREC_MERGE_WALL)
                 ? latrec_wallmap_apply(&s->wall, s->head.t_ns)
                 : s->head.t_ns;
    return 1;
}

int latrec_merge_init(latrec_merge *m, const latrec_ring *rings, size_t n,
                      unsigned flags, char *err, size_t errlen)
{
    memset(m, 0, sizeof *m);
    if (err && errlen)
        err[0] = '\0';
    if (n > UINT32_MAX)
        return fail(err, errlen, "too many rings");
    m->rings = rings;
    m->n = n;
    m->flags = flags;
    if (n == 0)
        return 0;

    if (!(flags & (LATREC_MERGE_WALL | LATREC_MERGE_ALLOW_MIXED_BOOTS))) {
        /* Compare every known boot id with the first known one. */
        size_t ref = n;
        for (size_t i = 0; i < n; i++) {
            if (rings[i].status != LATREC_RING_OK || !latrec_ring_boot_known(&rings[i]))
                continue;
            if (ref == n)
                ref = i;
            else if (latrec_ring_boot_differs(&rings[ref], &rings[i]))
                return fail(err, errlen,
                            "%s and %s come from different boots: merge on "
                            "the wall clock",
                            rings[ref].path, rings[i].path);
        }
    }

    m->src = calloc(n, sizeof *m->src);
    m->heap = calloc(n, sizeof *m->heap);
    if (!m->src || !m->heap) {
        latrec_merge_free(m);
        return fail(err, errlen, "out of memory");
    }
    for (size_t i = 0; i < n; i++) {
        if (rings[i].status != LATREC_RING_OK)
            continue;
        if (flags & LATREC_MERGE_WALL) {
            char why[LATREC_REASON_LEN];
            if (latrec_wallmap_init(&m->src[i].wall, &rings[i], why, sizeof why) != 0) {
                latrec_merge_free(m);
                return fail(err, errlen, "%s: %s", rings[i].path, why);
            }
        }
        latrec_ring_cursor_init(&m->src[i].cur);
        if (advance(m, (uint32_t)i))
            m->heap[m->heap_len++] = (struct latrec_merge_ent){ m->src[i].key, (uint32_t)i };
    }
    for (size_t i = m->heap_len / 2; i-- > 0;)
        sift_down(m, i);
    return 0;
}

int latrec_merge_next(latrec_merge *m, latrec_merged *out)
{
    if (m->heap_len == 0)
        return 0;
    uint32_t i = m->heap[0].ring;
    struct latrec_merge_src *s = &m->src[i];
    out->t_ns = s->key;
    out->ring = i;
    out->pos = s->pos;
    out->rec = s->head;
    if (advance(m, i))
        m->heap[0].key = s->key;
    else
        m->heap[0] = m->heap[--m->heap_len];
    if (m->heap_len > 1)
        sift_down(m, 0);
    return 1;
}

/* ---- live rings ---------------------------------------------------------- */

static void sift_up(latrec_merge *m, size_t i)
{
    struct latrec_merge_ent *h = m->heap, x = h[i];
    for (; i > 0 && before(&x, &h[(i - 1) / 2]); i = (i - 1) / 2) h[i] = h[(i - 1) / 2];
    h[i] = x;
}

int latrec_merge_peek(const latrec_merge *m, uint64_t *key)
{
    if (m->heap_len == 0) return 0;
    *key = m->heap[0].key;
    return 1;
}

/* Ring i has a head in the heap (a linear look: live polls only). */
static int queued(const latrec_merge *m, size_t i)
{
    for (size_t k = 0; k < m->heap_len; k++)
        if (m->heap[k].ring == i) return 1;
    return 0;
}

latrec_cursor *latrec_merge_cursor(latrec_merge *m, size_t i) { return &m->src[i].cur; }

uint64_t latrec_merge_key(const latrec_merge *m, size_t i, uint64_t t_ns)
{
    return (m->flags & LATREC_MERGE_WALL) ? latrec_wallmap_apply(&m->src[i].wall, t_ns) : t_ns;
}

int latrec_merge_repoll(latrec_merge *m, size_t i)
{
    struct latrec_merge_src *s = &m->src[i];
    if (queued(m, i)) return 1;
    if (m->rings[i].status != LATREC_RING_OK || s->no_wall || !advance(m, (uint32_t)i)) return 0;
    m->heap[m->heap_len] = (struct latrec_merge_ent){ s->key, (uint32_t)i };
    sift_up(m, m->heap_len++);
    return 1;
}

int latrec_merge_add_rings(latrec_merge *m, const latrec_ring *rings, size_t n, char *err, size_t errlen)
{
    if (err && errlen) err[0] = '\0';
    if (n > UINT32_MAX) return fail(err, errlen, "too many rings");
    m->rings = rings;
    if (n <= m->n) return 0;
    struct latrec_merge_src *src = realloc(m->src, n * sizeof(*src));
    if (src) m->src = src;
    struct latrec_merge_ent *heap = src ? realloc(m->heap, n * sizeof(*heap)) : NULL;
    if (!heap) return fail(err, errlen, "out of memory");
    m->heap = heap;
    int rc = 0;
    for (size_t i = m->n; i < n; i++) {
        memset(&m->src[i], 0, sizeof(m->src[i]));
        latrec_ring_cursor_init(&m->src[i].cur);
        char why[LATREC_REASON_LEN];
        if (rings[i].status == LATREC_RING_OK && (m->flags & LATREC_MERGE_WALL) &&
            latrec_wallmap_init(&m->src[i].wall, &rings[i], why, sizeof(why)) != 0) {
            m->src[i].no_wall = 1;
            if (rc == 0) rc = fail(err, errlen, "%s: %s", rings[i].path, why);
        }
    }
    size_t from = m->n;
    m->n = n;
    for (size_t i = from; i < n; i++) latrec_merge_repoll(m, i);
    return rc;
}

void latrec_merge_free(latrec_merge *m)
{
    free(m->src);
    free(m->heap);
    memset(m, 0, sizeof *m);
}
