/*
 * analyze/sched_query.c - questions asked of a built scheduler model: the
 * split of a hop, a thread's state, name and generation at a time, its
 * intervals, the runqueue waits. Rules: sched_model.h.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/sched_model_impl.h"

/* ---- public: queries -------------------------------------------------- */

/* as end_upper over [lo, n), galloping from lo (t is usually close) */
static size_t end_gallop(const uint64_t *ends, size_t lo, size_t n, uint64_t t)
{
    if (lo >= n || ends[lo] > t) return lo;
    size_t prev = lo, step = 1;
    while (lo + step < n && ends[lo + step] <= t) {
        prev = lo + step;
        step *= 2;
    }
    size_t hi = lo + step < n ? lo + step + 1 : n;
    return end_upper(ends, prev + 1, hi, t);
}

/* As end_upper over [0, n), searching outward from h (any h is correct;
 * one near the answer makes it a few steps): galloping back when the
 * answer lies before h, on from h otherwise. */
static size_t end_seek(const uint64_t *ends, size_t n, size_t h, uint64_t t)
{
    if (h > n) h = n;
    if (h == 0 || ends[h - 1] <= t) return end_gallop(ends, h, n, t);
    size_t hi = h - 1, step = 1; /* ends[hi] > t */
    while (step <= hi && ends[hi - step] > t) {
        hi -= step;
        step *= 2;
    }
    return end_upper(ends, step <= hi ? hi - step + 1 : 0, hi, t);
}

/* Times of v in [a, b), the search for a starting at *h (left there). */
static uint32_t u64_count_from(const u64vec *v, size_t *h, uint64_t a, uint64_t b)
{
    if (v->n == 0 || v->v[0] >= b || v->v[v->n - 1] < a) return 0;
    size_t i = a ? end_seek(v->v, v->n, *h, a - 1) : 0; /* first v[i] >= a */
    *h = i;
    return (uint32_t)(u64_gallop(v, i, b) - i);
}

static const char *names_at(const tident *td, uint64_t t, uint64_t lo, uint64_t hi)
{
    if (!td || td->n_names == 0) return NULL;
    size_t a = 0, b = td->n_names; /* first name with t_n > t */
    while (a < b) {
        size_t mid = a + (b - a) / 2;
        if (td->names[mid].t <= t) a = mid + 1;
        else b = mid;
    }
    if (a > 0 && td->names[a - 1].t >= lo) return td->names[a - 1].comm;
    for (size_t j = a; j < td->n_names; j++) { /* its first name, later on */
        if (td->names[j].t >= hi) break;
        if (td->names[j].t >= lo) return td->names[j].comm;
    }
    return NULL;
}

static const char *gen_name(const latrec_sched_model *m, const gen *g, uint64_t t)
{
    const tident *td = td_find(m, g->tid);
    uint64_t lo = (g->born || g->gen_no > 0) ? g->first_t : 0;
    uint64_t hi = NO_T;
    if (td && g->gen_no + 1 < td->n_gens) hi = m->g[td->gens[g->gen_no + 1]].first_t;
    return names_at(td, t, lo, hi);
}

typedef struct agg {
    uint32_t tid, cpu;
    int32_t  gen;
    uint64_t ns, t_first;
} agg;

static int agg_better(const agg *a, const agg *b)
{
    if (a->ns != b->ns) return a->ns > b->ns;
    if (a->tid != b->tid) return a->tid < b->tid;
    if (a->gen != b->gen) return a->gen < b->gen;
    return a->cpu < b->cpu;
}

int sched_others_collect(const latrec_sched_model *m, const gen *g, size_t i0, uint64_t a, uint64_t b,
                         latrec_sched_breakdown *out, sched_name_key keys[LATREC_SCHED_TOP])
{
    agg stack[AGG_STACK], *v = stack;
    size_t n = 0, cap = AGG_STACK;
    int rc = 0;
    unsigned last_cpu = LATREC_SCHED_NO_CPU;
    size_t last_j = 0;
    for (size_t i = i0; i < g->n_iv && g->iv[i].start_ns < b; i++) {
        const latrec_sched_interval *iv = &g->iv[i];
        if (iv->state != LATREC_SCHED_RUNNABLE || iv->cpu >= LATREC_SCHED_MAX_CPUS) continue;
        uint64_t s = iv->start_ns > a ? iv->start_ns : a, e = iv->end_ns < b ? iv->end_ns : b;
        if (s >= e) continue;
        const cpustate *cs = &m->cpu[iv->cpu];
        /* first occupancy ending after s; the thread's runnable intervals
         * rise in time, so on the same CPU gallop on from the last one */
        size_t lo = iv->cpu == last_cpu ? end_gallop(cs->ends, last_j, cs->n, s) : end_upper(cs->ends, 0, cs->n, s);
        last_cpu = iv->cpu;
        last_j = lo;
        for (size_t j = lo; j < cs->n && cs->v[j].start < e; j++) {
            const occ *o = &cs->v[j];
            if (o->gen == (int32_t)g->idx) continue;
            uint64_t os = o->start > s ? o->start : s, oe = o->end < e ? o->end : e;
            if (os >= oe) continue;
            uint32_t kcpu = o->tid == 0 ? iv->cpu : 0;
            size_t k;
            for (k = 0; k < n; k++)
                if (v[k].tid == o->tid && v[k].gen == o->gen && (o->tid != 0 || v[k].cpu == kcpu)) break;
            if (k == n) {
                if (n == cap) {
                    agg *nv = malloc(2 * cap * sizeof *nv);
                    if (!nv) {
                        rc = -1;
                        goto done;
                    }
                    memcpy(nv, v, n * sizeof *v);
                    if (v != stack) free(v);
                    v = nv;
                    cap *= 2;
                }
                v[n++] = (agg){ o->tid, iv->cpu, o->gen, 0, os };
            }
            v[k].ns += oe - os;
            out->instead_ns += oe - os;
        }
    }
    out->n_tasks = (uint32_t)n;
    for (int r = 0; r < LATREC_SCHED_TOP && (size_t)r < n; r++) {
        size_t best = (size_t)r;
        for (size_t k = (size_t)r + 1; k < n; k++)
            if (agg_better(&v[k], &v[best])) best = k;
        agg tmp = v[r];
        v[r] = v[best];
        v[best] = tmp;
        latrec_sched_other *o = &out->others[r];
        o->tid = v[r].tid;
        o->cpu = v[r].cpu;
        o->target = v[r].gen >= 0;
        o->ns = v[r].ns;
        o->comm[0] = '\0';
        keys[r] = (sched_name_key){ v[r].gen, v[r].t_first };
        out->n_others = r + 1;
    }
done:
    if (v != stack) free(v);
    if (rc) {
        out->n_others = 0;
        out->n_tasks = 0;
        out->instead_ns = 0;
    }
    return rc;
}

/* The names of who ran instead: the one each had when it first ran there
 * (a target thread's generation-aware), else the idle task's own. */
void sched_name_others(const latrec_sched_model *m, latrec_sched_breakdown *out,
                       const sched_name_key keys[LATREC_SCHED_TOP])
{
    for (int r = 0; r < out->n_others; r++) {
        latrec_sched_other *o = &out->others[r];
        const char *nm = keys[r].gen >= 0 ? gen_name(m, &m->g[keys[r].gen], keys[r].t)
                                          : names_at(td_find(m, o->tid), keys[r].t, 0, NO_T);
        if (nm) snprintf(o->comm, sizeof o->comm, "%s", nm);
        else if (o->tid == 0) snprintf(o->comm, sizeof o->comm, "swapper/%u", o->cpu);
        else o->comm[0] = '\0';
    }
}

/* Who ran on the thread's CPU while it was runnable in [a, b). */
static int others(const latrec_sched_model *m, const gen *g, size_t i0, uint64_t a, uint64_t b,
                  latrec_sched_breakdown *out)
{
    sched_name_key keys[LATREC_SCHED_TOP];
    const int rc = sched_others_collect(m, g, i0, a, b, out, keys);
    sched_name_others(m, out, keys);
    return rc;
}

/* Of [t_a, t_b), the unknown part inside g's timeline, `known` ns of it
 * in states: from its first interval (or the end of the last one
 * latrec_sched_forget let go) to its end (closed or finished; live: its
 * open state's stored end, or the model's time while it is UNKNOWN after a
 * drop) the model leaves a thread no gap but a state dropped for lost
 * events. Before (not born yet, or forgotten) and after its end, unknown
 * is not lost. */
static uint64_t lost_in(const latrec_sched_model *m, const gen *g, uint64_t t_a, uint64_t t_b, uint64_t known)
{
    if (!g->n_iv && !g->forgot_end) return 0;
    const uint64_t ks = g->forgot_end ? g->forgot_end : g->iv[0].start_ns;
    uint64_t ke = g->n_iv ? g->ends[g->n_iv - 1] : ks;
    const uint64_t end = g->end_t != NO_T ? g->end_t : g->state != LATREC_SCHED_UNKNOWN ? g->since : m->cur_t;
    if (end > ke) ke = end;
    const uint64_t s = t_a > ks ? t_a : ks, e = t_b < ke ? t_b : ke;
    return e > s && e - s > known ? e - s - known : 0;
}

/* The figures of a split but who ran instead (sched_model_impl.h). */
void sched_split_gen(const latrec_sched_model *m, const gen *g, latrec_sched_hint *h, uint64_t t_a, uint64_t t_b,
                     latrec_sched_breakdown *out, size_t *iap)
{
    out->on_cpu_ns = out->runnable_ns = out->blocked_ns = out->lost_ns = 0;
    out->preemptions = out->migrations = 0;
    out->n_tasks = 0;
    out->instead_ns = out->unattributed_ns = 0;
    out->n_others = 0;
    out->gen = -1;
    out->unknown_ns = t_b - t_a;
    *iap = 0;
    if (!g) return;
    if (h->gen1 != g->idx + 1) *h = (latrec_sched_hint){ .gen1 = g->idx + 1 };
    out->gen = (int32_t)g->gen_no;
    out->preemptions = u64_count_from(&g->pre, &h->pre, t_a, t_b);
    out->migrations = u64_count_from(&g->mig, &h->mig, t_a, t_b);
    if (t_a == t_b) return;
    if (g->n_iv == 0) {
        out->lost_ns = lost_in(m, g, t_a, t_b, 0);
        return;
    }
    size_t ia = end_seek(g->ends, g->n_iv, h->iv, t_a);
    size_t ib = end_gallop(g->ends, ia, g->n_iv, t_b);
    h->iv = ia;
    tri fa = prefix_at(g, ia, t_a), fb = prefix_at(g, ib, t_b);
    out->on_cpu_ns = fb.on - fa.on;
    out->runnable_ns = fb.runnable - fa.runnable;
    out->blocked_ns = fb.blocked - fa.blocked;
    const uint64_t known = out->on_cpu_ns + out->runnable_ns + out->blocked_ns;
    out->unknown_ns -= known;
    out->lost_ns = lost_in(m, g, t_a, t_b, known);
    out->unattributed_ns = out->runnable_ns;
    *iap = ia;
}

void sched_split_recent(const latrec_sched_model *m, const gen *g, uint64_t t_a, uint64_t t_b,
                        latrec_sched_breakdown *out)
{
    out->preemptions = back_count(&g->pre, t_a, t_b);
    out->migrations = back_count(&g->mig, t_a, t_b);
    out->on_cpu_ns = out->runnable_ns = out->blocked_ns = 0;
    out->unknown_ns = t_b - t_a;
    if (t_a == t_b) {
        out->lost_ns = 0;
        return;
    }
    uint64_t known = 0;
    if (g->n_iv) {
        const size_t ib = back_upper(g->ends, g->n_iv, t_b);
        const size_t ia = back_upper(g->ends, ib, t_a);
        const tri fa = prefix_at(g, ia, t_a), fb = prefix_at(g, ib, t_b);
        out->on_cpu_ns = fb.on - fa.on;
        out->runnable_ns = fb.runnable - fa.runnable;
        out->blocked_ns = fb.blocked - fa.blocked;
        known = out->on_cpu_ns + out->runnable_ns + out->blocked_ns;
        out->unknown_ns -= known;
    }
    out->lost_ns = lost_in(m, g, t_a, t_b, known);
}

/* As sched_split_gen for the generation of tid alive at t_b; *gp: it, when
 * its intervals were laid over the window (NULL: not). */
static int split_sums(const latrec_sched_model *m, latrec_sched_hint *h, uint32_t tid, uint64_t t_a, uint64_t t_b,
                      latrec_sched_breakdown *out, const gen **gp, size_t *iap)
{
    *gp = NULL;
    if (t_b < t_a) {
        sched_split_gen(m, NULL, h, t_a, t_a, out, iap);
        errno = EINVAL;
        return -1;
    }
    const tident *td = td_find(m, tid);
    const gen *g = td ? gen_at(m, td, t_b) : NULL;
    sched_split_gen(m, g, h, t_a, t_b, out, iap);
    if (g && t_a < t_b && g->n_iv) *gp = g;
    return 0;
}

int latrec_sched_split_sums(const latrec_sched_model *m, latrec_sched_hint *h, uint32_t tid, uint64_t t_a, uint64_t t_b,
                            latrec_sched_breakdown *out)
{
    const gen *g;
    size_t ia;
    return split_sums(m, h, tid, t_a, t_b, out, &g, &ia);
}

int latrec_sched_split(const latrec_sched_model *m, uint32_t tid, uint64_t t_a, uint64_t t_b,
                       latrec_sched_breakdown *out)
{
    latrec_sched_hint h = { 0 };
    const gen *g;
    size_t ia;
    if (split_sums(m, &h, tid, t_a, t_b, out, &g, &ia) < 0) return -1;
    if (!g || !out->runnable_ns) return 0;
    int rc = others(m, g, ia, t_a, t_b, out);
    if (rc) errno = ENOMEM;
    out->unattributed_ns = out->runnable_ns - out->instead_ns;
    return rc;
}

int latrec_sched_split_named(const latrec_sched_model *m, const latrec_sched_model *names, uint32_t tid, uint64_t t_a,
                             uint64_t t_b, latrec_sched_breakdown *out)
{
    latrec_sched_hint h = { 0 };
    const gen *g;
    size_t ia;
    if (split_sums(m, &h, tid, t_a, t_b, out, &g, &ia) < 0) return -1;
    if (!g || !out->runnable_ns) return 0;
    sched_name_key keys[LATREC_SCHED_TOP];
    const int rc = sched_others_collect(m, g, ia, t_a, t_b, out, keys);
    sched_name_others(names, out, keys);
    if (rc) errno = ENOMEM;
    out->unattributed_ns = out->runnable_ns - out->instead_ns;
    return rc;
}

int latrec_sched_others_final(const latrec_sched_model *m, uint32_t tid, uint64_t t_a, uint64_t t_b)
{
    const tident *td = td_find(m, tid);
    const gen *g = td ? gen_at(m, td, t_b) : NULL;
    if (!g || t_b <= t_a || !g->n_iv) return 1;
    return occupancy_final(m, g, end_upper(g->ends, 0, g->n_iv, t_a), t_a, t_b);
}

uint64_t latrec_sched_settled_before(const latrec_sched_model *m)
{
    if (m->finished) return UINT64_MAX;
    uint64_t t = m->cur_t;
    for (size_t i = 0; i < m->n_g; i++) {
        const gen *g = &m->g[i];
        if (!g->closed && g->state != LATREC_SCHED_UNKNOWN && g->since < t) t = g->since;
    }
    return t;
}

latrec_sched_state latrec_sched_state_at(const latrec_sched_model *m, uint32_t tid, uint64_t t_ns,
                                         unsigned *cpu)
{
    const tident *td = td_find(m, tid);
    const gen *g = td ? gen_at(m, td, t_ns) : NULL;
    if (cpu) *cpu = LATREC_SCHED_NO_CPU;
    if (!g) return LATREC_SCHED_UNKNOWN;
    size_t i = end_upper(g->ends, 0, g->n_iv, t_ns);
    if (i == g->n_iv || g->iv[i].start_ns > t_ns) return LATREC_SCHED_UNKNOWN;
    if (cpu) *cpu = g->iv[i].cpu;
    return (latrec_sched_state)g->iv[i].state;
}

const char *latrec_sched_comm(const latrec_sched_model *m, uint32_t tid, uint64_t t_ns)
{
    const tident *td = td_find(m, tid);
    if (!td) return NULL;
    const gen *g = gen_at(m, td, t_ns);
    return g ? gen_name(m, g, t_ns) : names_at(td, t_ns, 0, NO_T);
}

const char *latrec_sched_thread_name(const latrec_sched_model *m, uint32_t tid, uint32_t gen_no)
{
    const tident *td = td_find(m, tid);
    if (!td || gen_no >= td->n_gens) return NULL;
    const gen *g = &m->g[td->gens[gen_no]];
    uint64_t t = g->end_t == NO_T ? m->cur_t : g->end_t;
    /* a name from the next generation's first instant is not this one's */
    if (gen_no + 1 < td->n_gens && t >= m->g[td->gens[gen_no + 1]].first_t && m->g[td->gens[gen_no + 1]].first_t)
        t = m->g[td->gens[gen_no + 1]].first_t - 1;
    return gen_name(m, g, t);
}

int64_t latrec_sched_gen_at(const latrec_sched_model *m, uint32_t tid, uint64_t t_ns)
{
    const tident *td = td_find(m, tid);
    const gen *g = td ? gen_at(m, td, t_ns) : NULL;
    return g ? (int64_t)g->gen_no : -1;
}

const latrec_sched_interval *latrec_sched_intervals(const latrec_sched_model *m, uint32_t tid,
                                                    uint64_t t_ns, size_t *n, uint32_t *gen_no)
{
    const tident *td = td_find(m, tid);
    const gen *g = td ? gen_at(m, td, t_ns) : NULL;
    *n = 0;
    if (!g) return NULL;
    if (gen_no) *gen_no = g->gen_no;
    *n = g->n_iv;
    return g->iv;
}

int latrec_sched_foreach_wait(const latrec_sched_model *m, latrec_sched_wait_fn fn, void *ctx)
{
    for (size_t i = 0; i < m->n_w; i++) {
        int rc = fn(ctx, &m->w[i]);
        if (rc) return rc;
    }
    return 0;
}

size_t latrec_sched_n_threads(const latrec_sched_model *m)
{
    return m->n_g;
}

void latrec_sched_thread_info(const latrec_sched_model *m, size_t i, latrec_sched_thread *out)
{
    const gen *g = &m->g[i];
    out->tid = g->tid;
    out->gen = g->gen_no;
    out->tgid = g->tgid;
    out->exited = g->exited;
    out->first_ns = g->first_t;
    out->end_ns = g->end_t == NO_T ? m->cur_t : g->end_t;
    out->on_cpu_ns = g->tot[0];
    out->runnable_ns = g->tot[1];
    out->blocked_ns = g->tot[2];
    out->n_intervals = g->n_iv;
    out->n_stored = g->n_stored;
    out->first_interval_ns = g->first_iv;
}

const latrec_sched_counts *latrec_sched_counters(const latrec_sched_model *m)
{
    return &m->c;
}

const char *latrec_sched_state_name(latrec_sched_state s)
{
    switch (s) {
    case LATREC_SCHED_RUNNING: return "RUNNING";
    case LATREC_SCHED_RUNNABLE: return "RUNNABLE";
    case LATREC_SCHED_BLOCKED: return "BLOCKED";
    default: return "UNKNOWN";
    }
}
