/* The paths of a pass read by process: each process's ended instances
 * logged under the key of the moment a pass in time order ends them, the
 * logs merged by it into the pass's path assemblers (pass_plog.h). */
#include "engine/pass_plog.h"

#include <stdlib.h>
#include <string.h>

#define CHUNK_BYTES (256u << 10)

/* A logged instance: its key (k0, k1, k2), then its instance (bytes). An
 * item of an instance open at its process's end also has its place at the
 * end of the stream (a1, a2) and its place in the builder's finish
 * (order). */
struct pitem {
    uint64_t k0, k1;
    uint32_t k2, bytes;
    uint64_t order, a1;
    uint32_t a2, pad_;
};
#define ITEM_INST(it) ((const latrec_instance *)((const char *)(it) + sizeof(struct pitem)))

struct chunk {
    struct chunk *next; /* published by the writer once it writes no more here */
    size_t used;        /* bytes published */
    size_t cap;
    _Alignas(8) char data[];
};

/* One process's items, sorted by key: the log, then (once the process
 * ended) the graces still running at its end (sorted by key) and the
 * instances open at the end (by their place there). */
struct item_list {
    struct pitem **v;
    size_t n, cap, next; /* next: the reader's */
};

struct latrec_plog {
    /* the writer's */
    _Alignas(64) struct chunk *tail;
    size_t tail_used;
    unsigned made; /* chunks (atomic: the backlog) */
    uint64_t n_end;
    struct item_list graces, open;
    const uint8_t *path_leg;
    /* published: every later item has a key of at least (w, 0, 0); the
     * process ended (its lists complete) */
    _Alignas(64) uint64_t w;
    int done;
    /* the reader's */
    _Alignas(64) struct chunk *head;
    size_t pos;
    unsigned freed; /* atomic */
};

struct latrec_plogs {
    latrec_pass *p;
    uint32_t n;
    latrec_plog *g;
    uint64_t fed; /* atomic */
    int ended;    /* every process ended: the graces at the ends placed */
};

static struct chunk *chunk_new(size_t cap)
{
    struct chunk *c = malloc(sizeof(*c) + cap);
    if (c) {
        c->next = NULL;
        c->used = 0;
        c->cap = cap;
    }
    return c;
}

latrec_plogs *latrec_plogs_new(latrec_pass *p, uint32_t n_procs, const uint8_t *path_leg)
{
    latrec_plogs *s = calloc(1, sizeof(*s));
    if (!s) return NULL;
    s->p = p;
    s->n = n_procs;
    s->g = aligned_alloc(64, ((size_t)n_procs * sizeof(*s->g) + 63) & ~(size_t)63);
    if (!s->g) {
        free(s);
        return NULL;
    }
    memset(s->g, 0, (size_t)n_procs * sizeof(*s->g));
    for (uint32_t q = 0; q < n_procs; q++) {
        latrec_plog *g = &s->g[q];
        g->path_leg = path_leg;
        if (!(g->head = g->tail = chunk_new(CHUNK_BYTES))) {
            latrec_plogs_free(s);
            return NULL;
        }
    }
    return s;
}

static void list_free(struct item_list *l)
{
    for (size_t i = 0; i < l->n; i++) free(l->v[i]);
    free(l->v);
}

void latrec_plogs_free(latrec_plogs *s)
{
    if (!s) return;
    for (uint32_t q = 0; q < s->n; q++) {
        latrec_plog *g = &s->g[q];
        for (struct chunk *c = g->head, *nx; c; c = nx) {
            nx = c->next;
            free(c);
        }
        list_free(&g->graces);
        list_free(&g->open);
    }
    free(s->g);
    free(s);
}

latrec_plog *latrec_plogs_of(latrec_plogs *s, uint32_t proc)
{
    return proc < s->n ? &s->g[proc] : NULL;
}

/* ---- the writer ------------------------------------------------------------ */

/* The ring of an instance's first stamp (the record that opened it: the
 * first of its stamps in the stream's order), or -1. */
static int64_t first_ring(const latrec_instance *inst)
{
    int64_t ring = -1;
    for (int i = 0; i < inst->n_hits; i++)
        if (inst->hits[i].t_ns && inst->hits[i].t_ns == inst->first_t && (ring < 0 || inst->hits[i].ring < ring))
            ring = inst->hits[i].ring;
    return ring;
}

/* The instance as the assemblers need it: whole for a leg a path uses, else
 * its latest stamp only. */
static size_t inst_bytes(const latrec_plog *g, const latrec_instance *inst)
{
    const int n = g->path_leg[inst->leg] ? inst->n_hits : 1;
    return sizeof(latrec_instance) + (size_t)n * sizeof(latrec_hit);
}

static void inst_copy(const latrec_plog *g, const latrec_instance *inst, latrec_instance *to, size_t bytes)
{
    if (g->path_leg[inst->leg]) {
        memcpy(to, inst, bytes);
        return;
    }
    memcpy(to, inst, sizeof(*inst));
    uint64_t t = 0;
    for (int i = 0; i < inst->n_hits; i++) t = inst->hits[i].t_ns > t ? inst->hits[i].t_ns : t;
    to->n_hits = 1;
    memset(&to->hits[0], 0, sizeof(to->hits[0]));
    to->hits[0].t_ns = t;
}

static int list_push(struct item_list *l, struct pitem *it)
{
    if (l->n == l->cap) {
        const size_t cap = l->cap ? 2 * l->cap : 256;
        struct pitem **v = realloc(l->v, cap * sizeof(*v));
        if (!v) return -1;
        l->v = v;
        l->cap = cap;
    }
    l->v[l->n++] = it;
    return 0;
}

/* An item of the log: room for `need` bytes at its end. */
static void *log_room(latrec_plog *g, size_t need)
{
    struct chunk *c = g->tail;
    if (g->tail_used + need > c->cap) {
        struct chunk *n = chunk_new(need > CHUNK_BYTES ? need : CHUNK_BYTES);
        if (!n) return NULL;
        __atomic_store_n(&c->next, n, __ATOMIC_RELEASE); /* c is full: no more is written there */
        g->tail = c = n;
        g->tail_used = 0;
        __atomic_store_n(&g->made, g->made + 1, __ATOMIC_RELAXED);
    }
    return c->data + g->tail_used;
}

int latrec_plog_put(latrec_plog *g, const latrec_instance *inst, const latrec_leg *leg, int phase, uint64_t now,
                    uint32_t ring)
{
    const int nc = leg->n_chain;
    const latrec_hit *last = nc > 0 && nc <= inst->n_hits ? &inst->hits[nc - 1] : NULL;
    const int in_grace = last && last->t_ns; /* its last chain stage came: in grace since (legs.c) */
    uint64_t d = 0;
    if (in_grace && __builtin_add_overflow(last->t_ns, (uint64_t)LATREC_LEGS_GRACE_NS, &d)) return -2;
    struct pitem k = { 0 };
    int at_end = 0; /* 1: a grace still running at the process's end; 2: open at its end */
    if (in_grace && d < now) {
        k.k0 = d, k.k1 = 1, k.k2 = last->ring; /* its grace ran out */
    } else if (phase == LATREC_PLOG_FEED) {
        k.k0 = now, k.k1 = 0, k.k2 = ring; /* ended by the record fed */
    } else if (phase == LATREC_PLOG_SETTLE) {
        return -2; /* a settle ends graces only */
    } else {
        const int64_t r = first_ring(inst);
        if (r < 0) return -2;
        at_end = in_grace ? 1 : 2;
        k.order = g->n_end++;
        k.a1 = inst->first_t;
        k.a2 = (uint32_t)r;
        if (in_grace) k.k0 = d, k.k1 = 1, k.k2 = last->ring;
        else k.k0 = UINT64_MAX, k.k1 = k.a1, k.k2 = k.a2;
    }
    const size_t ib = inst_bytes(g, inst), need = sizeof(struct pitem) + ((ib + 7) & ~(size_t)7);
    struct pitem *it = at_end ? malloc(need) : log_room(g, need);
    if (!it) return -1;
    k.bytes = (uint32_t)ib;
    *it = k;
    inst_copy(g, inst, (latrec_instance *)(void *)(it + 1), ib);
    if (at_end) {
        if (list_push(at_end == 1 ? &g->graces : &g->open, it) < 0) {
            free(it);
            return -1;
        }
        return 0;
    }
    g->tail_used += need;
    __atomic_store_n(&g->tail->used, g->tail_used, __ATOMIC_RELEASE);
    return 0;
}

void latrec_plog_publish(latrec_plog *g, uint64_t w)
{
    __atomic_store_n(&g->w, w, __ATOMIC_RELEASE);
}

static int grace_cmp(const void *a, const void *b)
{
    const struct pitem *x = *(struct pitem *const *)a, *y = *(struct pitem *const *)b;
    if (x->k0 != y->k0) return x->k0 < y->k0 ? -1 : 1;
    if (x->k2 != y->k2) return x->k2 < y->k2 ? -1 : 1;
    return x->order < y->order ? -1 : x->order > y->order;
}

/* By the place at the end of the stream: the order instances were opened. */
static int end_cmp(const void *a, const void *b)
{
    const struct pitem *x = *(struct pitem *const *)a, *y = *(struct pitem *const *)b;
    if (x->a1 != y->a1) return x->a1 < y->a1 ? -1 : 1;
    if (x->a2 != y->a2) return x->a2 < y->a2 ? -1 : 1;
    return x->order < y->order ? -1 : x->order > y->order;
}

int latrec_plog_end(latrec_plog *g, uint64_t w)
{
    if (g->graces.n) qsort(g->graces.v, g->graces.n, sizeof(*g->graces.v), grace_cmp);
    for (size_t i = 1; i < g->graces.n;
         i++) /* two graces of one ring started at one stamp: their order is the ring's */
        if (g->graces.v[i]->k0 == g->graces.v[i - 1]->k0 && g->graces.v[i]->k2 == g->graces.v[i - 1]->k2) return -2;
    if (g->open.n) qsort(g->open.v, g->open.n, sizeof(*g->open.v), end_cmp);
    __atomic_store_n(&g->w, w, __ATOMIC_RELEASE);
    __atomic_store_n(&g->done, 1, __ATOMIC_RELEASE);
    return 0;
}

unsigned latrec_plog_backlog(const latrec_plog *g)
{
    return __atomic_load_n(&g->made, __ATOMIC_RELAXED) - __atomic_load_n(&g->freed, __ATOMIC_RELAXED);
}

/* ---- the reader -------------------------------------------------------------- */

/* The log's next item, or NULL (none published yet). */
static const struct pitem *log_peek(latrec_plog *g)
{
    for (;;) {
        struct chunk *c = g->head;
        if (g->pos < __atomic_load_n(&c->used, __ATOMIC_ACQUIRE)) return (const struct pitem *)(c->data + g->pos);
        struct chunk *nx = __atomic_load_n(&c->next, __ATOMIC_ACQUIRE);
        if (!nx) return NULL;
        if (g->pos < __atomic_load_n(&c->used, __ATOMIC_ACQUIRE)) return (const struct pitem *)(c->data + g->pos);
        g->head = nx;
        g->pos = 0;
        free(c);
        __atomic_store_n(&g->freed, g->freed + 1, __ATOMIC_RELAXED);
    }
}

/* An ended process's next item past its log: a grace running at its end,
 * else an instance open at its end; *list the list it is in. */
static const struct pitem *end_peek(latrec_plog *g, struct item_list **list)
{
    if (g->graces.next < g->graces.n) {
        *list = &g->graces;
        return g->graces.v[g->graces.next];
    }
    *list = &g->open;
    return g->open.next < g->open.n ? g->open.v[g->open.next] : NULL;
}

static int key_less(const struct pitem *a, const struct pitem *b)
{
    if (a->k0 != b->k0) return a->k0 < b->k0;
    if (a->k1 != b->k1) return a->k1 < b->k1;
    return a->k2 < b->k2;
}

/* Every process ended, the last record at t_end: a grace running at a
 * process's end that no record came after ends with the stream, at its
 * place among the instances open there. 0, or -1 out of memory. */
static int place_end_graces(latrec_plogs *s, uint64_t t_end)
{
    for (uint32_t q = 0; q < s->n; q++) {
        latrec_plog *g = &s->g[q];
        struct item_list *gr = &g->graces, *op = &g->open;
        size_t keep = gr->next;
        while (keep < gr->n && gr->v[keep]->k0 < t_end) keep++; /* sorted: the rest end with the stream */
        if (keep == gr->n) continue;
        const size_t need = op->n + (gr->n - keep);
        if (need > op->cap) {
            struct pitem **v = realloc(op->v, need * sizeof(*v));
            if (!v) return -1;
            op->v = v;
            op->cap = need;
        }
        for (size_t i = keep; i < gr->n; i++) {
            struct pitem *it = gr->v[i];
            it->k0 = UINT64_MAX, it->k1 = it->a1, it->k2 = it->a2;
            op->v[op->n++] = it;
        }
        gr->n = keep;
        qsort(op->v + op->next, op->n - op->next, sizeof(*op->v), end_cmp);
    }
    s->ended = 1;
    return 0;
}

/* Feed it to the pass's assemblers: what latrec_pass_on_instance does with
 * an instance, for the paths. */
static int feed(latrec_plogs *s, const struct pitem *it)
{
    return latrec_path_index_feed(s->p->paths, ITEM_INST(it));
}

struct key {
    uint64_t k0, k1;
    uint32_t k2;
};

static int below(const struct pitem *a, const struct key *b)
{
    if (a->k0 != b->k0) return a->k0 < b->k0;
    if (a->k1 != b->k1) return a->k1 < b->k1;
    return a->k2 < b->k2;
}

/* g's next item (its log's, then once it ended its lists'); *list the
 * list it is in (NULL: the log). */
static const struct pitem *next_of(latrec_plog *g, int done, struct item_list **list)
{
    *list = NULL;
    const struct pitem *it = log_peek(g);
    return !it && done ? end_peek(g, list) : it;
}

/* Past g's item it (in list, NULL: the log). */
static void consume(latrec_plog *g, struct item_list *list, const struct pitem *it)
{
    if (list) list->next++;
    else g->pos += sizeof(struct pitem) + ((it->bytes + 7u) & ~7u);
}

long latrec_plogs_drain(latrec_plogs *s)
{
    long fed = 0;
    for (;;) {
        const struct pitem *best = NULL;
        latrec_plog *bg = NULL;
        struct item_list *blist = NULL;
        int bdone = 0, all_done = 1;
        /* below limit: no other process has, or will have, an item before */
        struct key limit = { UINT64_MAX, UINT64_MAX, UINT32_MAX };
        uint64_t t_known = 0;
        for (uint32_t q = 0; q < s->n; q++) {
            latrec_plog *g = &s->g[q];
            /* done and w before the log: what they say was written before */
            const int done = __atomic_load_n(&g->done, __ATOMIC_ACQUIRE);
            const uint64_t w = __atomic_load_n(&g->w, __ATOMIC_ACQUIRE);
            if (w > t_known) t_known = w;
            all_done &= done;
            struct item_list *list;
            const struct pitem *it = next_of(g, done, &list);
            struct key k = { w, 0, 0 }; /* a process still to come may end one from there on */
            const struct pitem *lim = it;
            if (!it && done) continue;
            if (it && (!best || key_less(it, best))) {
                lim = best; /* the one it takes the place of bounds it now */
                best = it, bg = g, blist = list, bdone = done;
                if (!lim) continue;
            }
            if (lim) k = (struct key){ lim->k0, lim->k1, lim->k2 };
            if (k.k0 < limit.k0 || (k.k0 == limit.k0 && (k.k1 < limit.k1 || (k.k1 == limit.k1 && k.k2 < limit.k2))))
                limit = k;
        }
        if (!best || !below(best, &limit)) break;
        long run = 0;
        do {
            if (blist == &bg->graces && best->k0 >= t_known) {
                /* a grace running at its process's end: no record after it yet */
                if (!all_done || s->ended) goto out;
                if (place_end_graces(s, t_known) < 0) return -1;
                break;
            }
            if (feed(s, best) < 0) return -1;
            consume(bg, blist, best);
            run++;
        } while ((best = next_of(bg, bdone, &blist)) && below(best, &limit));
        fed += run;
    }
out:
    __atomic_store_n(&s->fed, s->fed + (uint64_t)fed, __ATOMIC_RELAXED);
    return fed;
}

int latrec_plogs_finished(latrec_plogs *s)
{
    for (uint32_t q = 0; q < s->n; q++) {
        latrec_plog *g = &s->g[q];
        if (!__atomic_load_n(&g->done, __ATOMIC_ACQUIRE) || log_peek(g) || g->graces.next < g->graces.n ||
            g->open.next < g->open.n)
            return 0;
    }
    return 1;
}

uint64_t latrec_plogs_progress(const latrec_plogs *s)
{
    return __atomic_load_n(&s->fed, __ATOMIC_RELAXED);
}
