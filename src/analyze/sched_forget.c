/*
 * analyze/sched_forget.c - a live model letting go of its past
 * (latrec_sched_forget, sched_model.h): what ended before a time is
 * dropped from the arrays the queries search, so that following a long
 * run takes memory for the span still asked about, not for the run.
 */
#include <string.h>

#include "analyze/sched_model_impl.h"

/* first i in [0, n) with ends[i] > t, or n */
static size_t ended_by(const uint64_t *ends, size_t n, uint64_t t)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (ends[mid] <= t) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

static void drop_times(u64vec *v, uint64_t t)
{
    const size_t k = u64_lower(v, t);
    if (!k) return;
    memmove(v->v, v->v + k, (v->n - k) * sizeof *v->v);
    v->n -= k;
}

void latrec_sched_forget(latrec_sched_model *m, uint64_t t_ns)
{
    for (size_t i = 0; i < m->n_g; i++) {
        gen *g = &m->g[i];
        /* the prefix sums in each interval are the generation's own since
         * its start: the ones kept stay right */
        size_t k = ended_by(g->ends, g->n_iv, t_ns);
        /* the pieces of the open state a settle stored stay: a later event
         * may still take them back (UNKNOWN back to its start) */
        if (!g->closed && g->state != LATREC_SCHED_UNKNOWN) {
            size_t j = g->n_iv;
            while (j > 0 && g->iv[j - 1].start_ns >= g->state_start && g->iv[j - 1].state == g->state) j--;
            if (k > j) k = j;
        }
        if (k) {
            g->forgot_end = g->ends[k - 1];
            memmove(g->iv, g->iv + k, (g->n_iv - k) * sizeof *g->iv);
            memmove(g->ends, g->ends + k, (g->n_iv - k) * sizeof *g->ends);
            g->n_iv -= k;
        }
        drop_times(&g->pre, t_ns);
        drop_times(&g->mig, t_ns);
    }
    for (int c = 0; c < LATREC_SCHED_MAX_CPUS; c++) {
        cpustate *cs = &m->cpu[c];
        const size_t k = ended_by(cs->ends, cs->n, t_ns); /* the open one ends at NO_T: kept */
        if (!k) continue;
        memmove(cs->v, cs->v + k, (cs->n - k) * sizeof *cs->v);
        memmove(cs->ends, cs->ends + k, (cs->n - k) * sizeof *cs->ends);
        cs->n -= k;
    }
    size_t k = 0; /* runqueue waits, in switch-in order */
    while (k < m->n_w && m->w[k].t_ns + m->w[k].wait_ns <= t_ns) k++;
    if (k) {
        memmove(m->w, m->w + k, (m->n_w - k) * sizeof *m->w);
        m->n_w -= k;
    }
}

size_t latrec_sched_retained(const latrec_sched_model *m)
{
    size_t n = m->n_w;
    for (size_t i = 0; i < m->n_g; i++) n += m->g[i].n_iv + m->g[i].pre.n + m->g[i].mig.n;
    for (int c = 0; c < LATREC_SCHED_MAX_CPUS; c++) n += m->cpu[c].n;
    return n;
}
