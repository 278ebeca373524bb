/*
 * analyze/sched_model_impl.h - the scheduler model's private state, shared
 * by its halves: building (sched_model.c), queries (sched_query.c) and
 * letting go of the past (sched_forget.c). Not a public header: nothing
 * outside those files includes it.
 */
#ifndef LATREC_ANALYZE_SCHED_MODEL_IMPL_H
#define LATREC_ANALYZE_SCHED_MODEL_IMPL_H

#include <stddef.h>
#include <stdint.h>

#include "analyze/sched_model.h"

#define NO_T     UINT64_MAX
#define N_KINDS  16
#define AGG_STACK 32

typedef struct u64vec {
    uint64_t *v;
    size_t    n, cap;
} u64vec;

/* One thread generation. */
typedef struct gen {
    uint32_t idx; /* own index in m->g */
    uint32_t tid, gen_no, tgid;
    /* live state */
    uint8_t  state, cause;
    uint8_t  wait_cause, wait_mig;
    uint16_t cpu;      /* cpu of the open interval */
    uint16_t task_cpu; /* where the kernel has it (MIGRATE while blocked) */
    uint8_t  born;     /* FORK, WAKEUP_NEW or EXEC began it */
    uint8_t  exited;   /* EXIT seen */
    uint8_t  closed;   /* timeline ended */
    uint8_t  woken_new;
    uint8_t  watch; /* m->on_leave wants to hear when the open state ends */
    uint64_t since, wait_start;
    uint64_t state_start; /* when the open state began (since moves on at a
                             latrec_sched_settle cut; this does not) */
    uint64_t first_t, end_t;
    /* timeline */
    latrec_sched_interval *iv;
    uint64_t *ends; /* iv[i].end_ns, packed for the searches */
    size_t   n_iv, cap_iv, cap_ends;
    uint64_t tot[3];
    uint64_t forgot_end; /* end of the last interval latrec_sched_forget let
                            go (0: none): the timeline reaches back to it */
    u64vec   pre, mig; /* preemption and migration times */
    uint64_t n_stored, first_iv; /* intervals stored over its life; the first one's start */
} gen;

typedef struct name_ent {
    uint64_t t;
    char     comm[LATREC_SCHED_COMM_LEN];
} name_ent;

typedef struct tident {
    uint32_t  tid;
    int32_t   cur;   /* latest generation, -1 none */
    int32_t   dying; /* exited generation replaced before its final switch-out */
    uint32_t *gens;  /* generation indices, in time order */
    size_t    n_gens, cap_gens;
    name_ent *names; /* in time order */
    size_t    n_names, cap_names;
} tident;

typedef struct occ {
    uint64_t start, end; /* [start, end); end NO_T while open */
    uint32_t tid;
    int32_t  gen; /* target generation, or -1 */
} occ;

typedef struct cpustate {
    occ     *v;
    uint64_t *ends; /* v[i].end, packed for the searches (open: NO_T) */
    size_t   n, cap, cap_ends;
    int      open; /* v[n - 1] is the task on the CPU now */
    uint32_t open_prev;
    int32_t  running_gen; /* target generation RUNNING here, or -1 */
    uint32_t waiters;     /* target generations RUNNABLE here */
    uint64_t wait_edge;   /* when waiters last went from 0 to 1 */
} cpustate;

struct latrec_sched_model {
    gen     *g;
    size_t   n_g, cap_g;
    tident  *td;
    size_t   n_td, cap_td;
    int32_t *hash; /* tid -> td index; -1 empty */
    size_t   hash_cap;
    cpustate cpu[LATREC_SCHED_MAX_CPUS];
    latrec_sched_wait *w;
    size_t   n_w, cap_w;
    latrec_rec *grp; /* records of one t_ns, awaiting replay */
    uint8_t    *defer;
    size_t   n_grp, cap_grp;
    uint64_t cur_t;
    int      finished, oom;
    int      no_waits; /* the runqueue waits counted, not kept (no one walks them) */
    latrec_sched_counts c;
    /* Told (g->watch set, then cleared) when g's open state ends: kept
     * (stored as [since, t)) or dropped to UNKNOWN; analyze/sched_pass.c. */
    void (*on_leave)(void *ctx, const gen *g, int keep);
    void *leave_ctx;
};

/* The generation was ever in a known state (an interval was stored): its
 * totals, which latrec_sched_forget leaves, not n_iv, which it shrinks. */
static inline int had_state(const gen *g)
{
    return (g->tot[0] | g->tot[1] | g->tot[2]) != 0;
}

/* ---- look-ups both halves use ---------------------------------------- */

/* first index with v[i] >= x */
static inline size_t u64_lower(const u64vec *v, uint64_t x)
{
    size_t lo = 0, hi = v->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (v->v[mid] < x) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

/* first index i >= lo with v[i] >= x, galloping from lo */
static inline size_t u64_gallop(const u64vec *v, size_t lo, uint64_t x)
{
    if (lo >= v->n || v->v[lo] >= x) return lo;
    size_t prev = lo, step = 1;
    while (lo + step < v->n && v->v[lo + step] < x) {
        prev = lo + step;
        step *= 2;
    }
    size_t a = prev + 1, b = lo + step < v->n ? lo + step : v->n;
    while (a < b) {
        size_t mid = a + (b - a) / 2;
        if (v->v[mid] < x) a = mid + 1;
        else b = mid;
    }
    return a;
}

static inline uint32_t u64_count(const u64vec *v, uint64_t a, uint64_t b)
{
    if (v->n == 0 || v->v[0] >= b || v->v[v->n - 1] < a) return 0;
    size_t i = u64_lower(v, a);
    return (uint32_t)(u64_gallop(v, i, b) - i);
}

/* first i in [lo, hi) with ends[i] > t, or hi */
static inline size_t end_upper(const uint64_t *ends, size_t lo, size_t hi, uint64_t t)
{
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (ends[mid] <= t) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

/* ns per state before t; i = iv_upper(.., t). By value and without an
 * indexed store: a split subtracts two of them at once, and a store into
 * the middle of an array it loads back whole stalls the load. */
typedef struct tri {
    uint64_t on, runnable, blocked;
} tri;

static inline tri prefix_at(const gen *g, size_t i, uint64_t t)
{
    if (i >= g->n_iv) return (tri){ g->tot[0], g->tot[1], g->tot[2] };
    const latrec_sched_interval *iv = &g->iv[i];
    uint64_t d = t > iv->start_ns ? t - iv->start_ns : 0;
    return (tri){ iv->before_ns[0] + (iv->state == LATREC_SCHED_RUNNING ? d : 0),
                  iv->before_ns[1] + (iv->state == LATREC_SCHED_RUNNABLE ? d : 0),
                  iv->before_ns[2] + (iv->state == LATREC_SCHED_BLOCKED ? d : 0) };
}

/* first i in [0, n) with v[i] > t (n: none), searched back from the end */
static inline size_t back_upper(const uint64_t *v, size_t n, uint64_t t)
{
    if (n == 0 || v[n - 1] <= t) return n;
    size_t hi = n - 1, step = 1; /* v[hi] > t */
    while (step <= hi && v[hi - step] > t) {
        hi -= step;
        step *= 2;
    }
    return end_upper(v, step <= hi ? hi - step + 1 : 0, hi, t);
}

/* Times of v in [a, b), searched back from the end. */
static inline uint32_t back_count(const u64vec *v, uint64_t a, uint64_t b)
{
    if (v->n == 0 || v->v[v->n - 1] < a) return 0;
    const size_t ib = b ? back_upper(v->v, v->n, b - 1) : 0;
    return (uint32_t)(ib - (a ? back_upper(v->v, ib, a - 1) : 0));
}

static inline size_t hslot(uint32_t tid, size_t cap)
{
    return (size_t)((tid * 0x9E3779B1u) ^ (tid >> 15)) & (cap - 1);
}

static inline const tident *td_find(const latrec_sched_model *m, uint32_t tid)
{
    if (!m->hash) return NULL;
    for (size_t s = hslot(tid, m->hash_cap);; s = (s + 1) & (m->hash_cap - 1)) {
        int32_t i = m->hash[s];
        if (i < 0) return NULL;
        if (m->td[i].tid == tid) return &m->td[i];
    }
}

static inline const gen *gen_at(const latrec_sched_model *m, const tident *td, uint64_t t)
{
    if (td->n_gens == 0) return NULL;
    if (td->n_gens == 1) return &m->g[td->gens[0]];
    size_t lo = 0, hi = td->n_gens; /* last k with first_t <= t */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (m->g[td->gens[mid]].first_t <= t) lo = mid + 1;
        else hi = mid;
    }
    return &m->g[td->gens[lo ? lo - 1 : 0]];
}

/* Who ran on the CPUs g waited on in [a, b) can no longer change: each
 * CPU's open occupancy began at or after the wait there, or no target
 * thread has waited there since before its end (a later switch record
 * gives an unrecorded task the time back to then only). */
static inline int occupancy_final(const latrec_sched_model *m, const gen *g, size_t i0, uint64_t a, uint64_t b)
{
    for (size_t i = i0; i < g->n_iv && g->iv[i].start_ns < b; i++) {
        const latrec_sched_interval *iv = &g->iv[i];
        if (iv->state != LATREC_SCHED_RUNNABLE || iv->cpu >= LATREC_SCHED_MAX_CPUS) continue;
        const uint64_t s = iv->start_ns > a ? iv->start_ns : a, e = iv->end_ns < b ? iv->end_ns : b;
        if (s >= e) continue;
        const cpustate *cs = &m->cpu[iv->cpu];
        if (cs->open && cs->v[cs->n - 1].start >= e) continue;
        if (!cs->waiters || cs->wait_edge >= e) continue;
        return 0;
    }
    return 1;
}

/* ---- queries the halves share (sched_query.c) ------------------------ */

/* Who ran instead, before naming: the generation index (-1: not a target
 * thread) and the time its name is looked up at, per others[] entry. */
typedef struct sched_name_key {
    int32_t  gen;
    uint64_t t;
} sched_name_key;

/* latrec_sched_split_sums over generation g (NULL: none; t_a <= t_b);
 * *iap gets the interval t_a falls in. */
void sched_split_gen(const latrec_sched_model *m, const gen *g, latrec_sched_hint *h, uint64_t t_a, uint64_t t_b,
                     latrec_sched_breakdown *out, size_t *iap);
/* sched_split_gen's ns figures, preemptions and migrations of generation
 * g (t_a <= t_b; the other fields of out are left), its searches from the
 * end of g's arrays: for a pass asking about the recent past. */
void sched_split_recent(const latrec_sched_model *m, const gen *g, uint64_t t_a, uint64_t t_b,
                        latrec_sched_breakdown *out);
/* Who ran on g's CPU while it was runnable in [a, b) (interval i0 on):
 * out's others[] but their comm, n_tasks, instead_ns; keys[] say how to
 * name them (sched_name_others). 0, or -1 out of memory (none listed). */
int sched_others_collect(const latrec_sched_model *m, const gen *g, size_t i0, uint64_t a, uint64_t b,
                         latrec_sched_breakdown *out, sched_name_key keys[LATREC_SCHED_TOP]);
void sched_name_others(const latrec_sched_model *m, latrec_sched_breakdown *out,
                       const sched_name_key keys[LATREC_SCHED_TOP]);

#endif
