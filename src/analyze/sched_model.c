/*
 * analyze/sched_model.c - scheduler timelines of the target's threads and
 * the on-CPU / runqueue / blocked split of a hop: building the timelines.
 * Rules: sched_model.h; the queries are in sched_query.c.
 */
#include "analyze/sched_model.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/sched_catalog.h"

#include "analyze/sched_model_impl.h"
#include "read/ring_window.h"

/* ---- small helpers ---------------------------------------------------- */

__attribute__((noinline)) static int grow_to(void **p, size_t *cap, size_t need, size_t elem)
{
    size_t nc = *cap ? *cap : 8;
    while (nc < need) nc *= 2;
    void *q = realloc(*p, nc * elem);
    if (!q) return -1;
    *p = q;
    *cap = nc;
    return 0;
}

/* Room for need elements in *p: the check inline, the growing not. */
static inline int grow(void **p, size_t *cap, size_t need, size_t elem)
{
    return need <= *cap ? 0 : grow_to(p, cap, need, elem);
}

static inline int u64_push(u64vec *v, uint64_t x)
{
    if (grow((void **)&v->v, &v->cap, v->n + 1, sizeof *v->v)) return -1;
    v->v[v->n++] = x;
    return 0;
}

/* index of a new tident of tid; -1 when out of memory */
__attribute__((noinline)) static int32_t td_add(latrec_sched_model *m, uint32_t tid)
{
    if ((m->n_td + 1) * 2 > m->hash_cap) {
        size_t nc = m->hash_cap ? m->hash_cap * 2 : 1024;
        int32_t *h = malloc(nc * sizeof *h);
        if (!h) return -1;
        for (size_t i = 0; i < nc; i++) h[i] = -1;
        for (size_t i = 0; i < m->n_td; i++) {
            size_t s = hslot(m->td[i].tid, nc);
            while (h[s] >= 0) s = (s + 1) & (nc - 1);
            h[s] = (int32_t)i;
        }
        free(m->hash);
        m->hash = h;
        m->hash_cap = nc;
    }
    if (grow((void **)&m->td, &m->cap_td, m->n_td + 1, sizeof *m->td)) return -1;
    int32_t i = (int32_t)m->n_td++;
    memset(&m->td[i], 0, sizeof m->td[i]);
    m->td[i].tid = tid;
    m->td[i].cur = -1;
    m->td[i].dying = -1;
    size_t s = hslot(tid, m->hash_cap);
    while (m->hash[s] >= 0) s = (s + 1) & (m->hash_cap - 1);
    m->hash[s] = i;
    return i;
}

/* index of the tident of tid, created if needed; -1 when out of memory */
static inline int32_t td_get(latrec_sched_model *m, uint32_t tid)
{
    const tident *t = td_find(m, tid);
    return t ? (int32_t)(t - m->td) : td_add(m, tid);
}

/* the tid's current generation if it is still open, else NULL */
static inline gen *live(latrec_sched_model *m, int32_t tdi)
{
    int32_t c = m->td[tdi].cur;
    if (c < 0 || m->g[c].closed) return NULL;
    return &m->g[c];
}

static inline gen *dying(latrec_sched_model *m, int32_t tdi)
{
    int32_t d = m->td[tdi].dying;
    if (d < 0 || m->g[d].closed) return NULL;
    return &m->g[d];
}

/* ---- state changes ---------------------------------------------------- */

__attribute__((noinline)) static int iv_grow(gen *g)
{
    return grow_to((void **)&g->iv, &g->cap_iv, g->n_iv + 1, sizeof *g->iv) ||
           grow((void **)&g->ends, &g->cap_ends, g->n_iv + 1, sizeof *g->ends);
}

static inline int iv_push(latrec_sched_model *m, gen *g, uint64_t s, uint64_t e)
{
    if (e <= s) return 0;
    const size_t n = g->n_iv;
    if (__builtin_expect(n >= g->cap_iv || n >= g->cap_ends, 0) && iv_grow(g)) return -1;
    g->ends[n] = e;
    g->iv[n] = (latrec_sched_interval){ .start_ns = s,
                                        .end_ns = e,
                                        .before_ns = { g->tot[0], g->tot[1], g->tot[2] },
                                        .cpu = g->cpu,
                                        .state = g->state,
                                        .cause = g->cause };
    g->n_iv = n + 1;
    g->tot[g->state - 1] += e - s;
    if (!g->n_stored++) g->first_iv = s;
    m->c.intervals++;
    return 0;
}

/* The pieces of the open state a settle stored (latrec_sched_settle), taken
 * back: the state turns out UNKNOWN back to its start. */
static void unsettle(latrec_sched_model *m, gen *g)
{
    while (g->n_iv && g->iv[g->n_iv - 1].start_ns >= g->state_start && g->iv[g->n_iv - 1].state == g->state) {
        const latrec_sched_interval *iv = &g->iv[--g->n_iv];
        g->tot[g->state - 1] -= iv->end_ns - iv->start_ns;
        if (!--g->n_stored) g->first_iv = 0;
        m->c.intervals--;
    }
}

/* End the open state at t: stored when keep, else dropped to UNKNOWN. */
static int g_leave(latrec_sched_model *m, gen *g, uint64_t t, int keep)
{
    int rc = 0;
    const unsigned st = g->state;
    if (st != LATREC_SCHED_UNKNOWN) {
        if (g->watch) m->on_leave(m->leave_ctx, g, keep);
        if (!keep && g->since != g->state_start) unsettle(m, g);
        if (g->cpu < LATREC_SCHED_MAX_CPUS) {
            cpustate *cs = &m->cpu[g->cpu];
            if (st == LATREC_SCHED_RUNNABLE && cs->waiters > 0) cs->waiters--;
            if (st == LATREC_SCHED_RUNNING && cs->running_gen == (int32_t)g->idx) cs->running_gen = -1;
        }
        if (keep) rc = iv_push(m, g, g->since, t);
    }
    g->watch = 0;
    if (!keep) g->cpu = g->task_cpu = LATREC_SCHED_NO_CPU;
    g->state = LATREC_SCHED_UNKNOWN;
    g->cause = LATREC_SCHED_C_NONE;
    g->since = g->state_start = t;
    return rc;
}

static void g_enter(latrec_sched_model *m, gen *g, uint64_t t, unsigned state, unsigned cpu, unsigned cause)
{
    g->state = (uint8_t)state;
    g->cpu = g->task_cpu = (uint16_t)cpu;
    g->cause = (uint8_t)cause;
    g->since = g->state_start = t;
    cpustate *cs = &m->cpu[cpu];
    if (state == LATREC_SCHED_RUNNABLE && cs->waiters++ == 0) cs->wait_edge = t;
    if (state == LATREC_SCHED_RUNNING) cs->running_gen = (int32_t)g->idx;
}

/* Close a generation's timeline at t. */
static int close_gen(latrec_sched_model *m, gen *g, uint64_t t, int keep)
{
    int rc = g_leave(m, g, t, keep);
    g->closed = 1;
    g->end_t = t;
    tident *td = (tident *)td_find(m, g->tid);
    if (td && td->dying == (int32_t)g->idx) td->dying = -1;
    return rc;
}

/* Start a new generation of td[tdi] at t, retiring the current one.
 * Returns its index, -1 when out of memory. */
static int32_t new_gen(latrec_sched_model *m, int32_t tdi, uint64_t t, int born)
{
    tident *td = &m->td[tdi];
    if (td->cur >= 0 && !m->g[td->cur].closed) {
        gen *o = &m->g[td->cur];
        if (o->exited && o->state != LATREC_SCHED_UNKNOWN) {
            gen *d = dying(m, tdi);
            if (d) {
                m->c.inconsistent++;
                close_gen(m, d, t, 0);
            }
            td->dying = td->cur; /* still on its way out */
        } else {
            if (!o->exited) m->c.lost_exits++;
            close_gen(m, o, t, 0);
        }
    }
    if (grow((void **)&m->g, &m->cap_g, m->n_g + 1, sizeof *m->g)) return -1;
    if (grow((void **)&td->gens, &td->cap_gens, td->n_gens + 1, sizeof *td->gens)) return -1;
    int32_t gi = (int32_t)m->n_g++;
    gen *g = &m->g[gi];
    memset(g, 0, sizeof *g);
    g->idx = (uint32_t)gi;
    g->tid = td->tid;
    g->gen_no = (uint32_t)td->n_gens;
    g->cpu = g->task_cpu = LATREC_SCHED_NO_CPU;
    g->born = (uint8_t)born;
    g->since = g->state_start = t;
    g->first_t = t;
    g->end_t = NO_T;
    td->gens[td->n_gens++] = (uint32_t)gi;
    td->cur = gi;
    m->c.threads++;
    if (td->n_gens == 1) m->c.tids++;
    if (td->n_gens == 2) m->c.reused_tids++;
    return gi;
}

/* The open generation of tid, created (not born) if there is none. */
static gen *cur_or_new(latrec_sched_model *m, int32_t tdi, uint64_t t)
{
    gen *g = live(m, tdi);
    if (g) return g;
    int32_t gi = new_gen(m, tdi, t, 0);
    return gi < 0 ? NULL : &m->g[gi];
}

static inline int32_t live_gen_of(latrec_sched_model *m, uint32_t tid)
{
    const tident *td = td_find(m, tid);
    if (!td || td->cur < 0 || m->g[td->cur].closed) return -1;
    return td->cur;
}

/* A target generation still RUNNING on cpu c that the record shows is not
 * there (its switch-out was lost): drop its state to UNKNOWN. */
__attribute__((noinline)) static void drop_runner(latrec_sched_model *m, int32_t gi, uint64_t t)
{
    gen *g = &m->g[gi];
    m->c.inconsistent++;
    if (g->exited) close_gen(m, g, t, 0);
    else g_leave(m, g, t, 0);
}

static inline void drop_stale_runner(latrec_sched_model *m, unsigned c, uint64_t t, int32_t keep_gi)
{
    const int32_t gi = m->cpu[c].running_gen;
    if (gi >= 0 && gi != keep_gi) drop_runner(m, gi, t);
}

/* ---- per-CPU occupancy ------------------------------------------------ */

static inline int occ_push(latrec_sched_model *m, cpustate *cs, uint64_t s, uint64_t e, uint32_t tid, int32_t gi)
{
    if (grow((void **)&cs->v, &cs->cap, cs->n + 1, sizeof *cs->v) ||
        grow((void **)&cs->ends, &cs->cap_ends, cs->n + 1, sizeof *cs->ends))
        return -1;
    cs->ends[cs->n] = e;
    cs->v[cs->n++] = (occ){ s, e, tid, gi };
    m->c.occupancy++;
    return 0;
}

static inline void occ_pop_empty(latrec_sched_model *m, cpustate *cs)
{
    if (cs->n && cs->v[cs->n - 1].end == cs->v[cs->n - 1].start) {
        cs->n--;
        m->c.occupancy--;
    }
}

/* End the open occupancy at t (and drop it if that leaves it empty). */
static inline void occ_end(latrec_sched_model *m, cpustate *cs, uint64_t t)
{
    cs->v[cs->n - 1].end = t;
    cs->ends[cs->n - 1] = t;
    occ_pop_empty(m, cs);
}

/* A switch on cpu c at t: prev left, next entered. */
static int occ_switch(latrec_sched_model *m, unsigned c, uint64_t t, uint32_t prev, uint32_t next, int32_t next_gen)
{
    cpustate *cs = &m->cpu[c];
    if (cs->open) {
        occ *o = &cs->v[cs->n - 1];
        if (o->tid == next && o->start == t && cs->open_prev == prev) {
            if (next_gen >= 0) o->gen = next_gen; /* the same switch, seen twice */
            return 0;
        }
        if (o->tid == prev) {
            occ_end(m, cs, t);
        } else {
            /* switches nobody recorded: prev ran since a target began
             * waiting here (or since the last record) */
            uint64_t u = t;
            if (cs->waiters > 0) u = cs->wait_edge > o->start ? cs->wait_edge : o->start;
            occ_end(m, cs, u);
            if (u < t && occ_push(m, cs, u, t, prev, live_gen_of(m, prev))) return -1;
        }
    } else if (cs->waiters > 0 && cs->wait_edge < t) {
        if (occ_push(m, cs, cs->wait_edge, t, prev, live_gen_of(m, prev))) return -1;
    }
    if (occ_push(m, cs, t, NO_T, next, next_gen)) return -1;
    cs->open = 1;
    cs->open_prev = prev;
    return 0;
}

/* ---- one record ------------------------------------------------------- */

static unsigned cpu_arg(latrec_sched_model *m, uint64_t v, unsigned fallback)
{
    if (v < LATREC_SCHED_MAX_CPUS) return (unsigned)v;
    m->c.bad_cpu++;
    return fallback;
}

static int running_on(const gen *g, unsigned c)
{
    return g && g->state == LATREC_SCHED_RUNNING && g->cpu == c;
}

static int wait_push(latrec_sched_model *m, const gen *g, uint64_t t, unsigned c)
{
    m->c.waits++;
    if (m->no_waits) return 0;
    if (grow((void **)&m->w, &m->cap_w, m->n_w + 1, sizeof *m->w)) return -1;
    m->w[m->n_w++] = (latrec_sched_wait){
        .t_ns = g->wait_start, .wait_ns = t - g->wait_start, .tid = g->tid, .gen = g->gen_no,
        .cpu = c, .cause = g->wait_cause, .migrated = g->wait_mig,
    };
    return 0;
}

static int do_switch_out(latrec_sched_model *m, const latrec_rec *r, uint64_t t, unsigned kind)
{
    unsigned c = latrec_rec_cpu(r->sc);
    uint32_t tid = (uint32_t)latrec_rec_seq(r->sc);
    int32_t tdi = td_get(m, tid);
    if (tdi < 0) return -1;
    gen *g = live(m, tdi), *d = dying(m, tdi);
    if (!running_on(g, c) && running_on(d, c)) g = d;
    if (!g && !(g = cur_or_new(m, tdi, t))) return -1;
    int32_t gi = (int32_t)g->idx;
    if (occ_switch(m, c, t, tid, (uint32_t)r->aux, live_gen_of(m, (uint32_t)r->aux))) return -1;
    drop_stale_runner(m, c, t, gi);
    g = &m->g[gi];
    if (kind == LATREC_K_SWITCH_OUT_PREEMPTED && u64_push(&g->pre, t)) return -1;
    if (running_on(g, c)) {
        if (g_leave(m, g, t, 1)) return -1;
    } else if (g->state != LATREC_SCHED_UNKNOWN) {
        m->c.inconsistent++;
        g_leave(m, g, t, 0);
    }
    if (kind == LATREC_K_SWITCH_OUT_PREEMPTED) {
        g_enter(m, g, t, LATREC_SCHED_RUNNABLE, c, LATREC_SCHED_C_PREEMPT);
        g->wait_start = t;
        g->wait_cause = LATREC_SCHED_C_PREEMPT;
        g->wait_mig = 0;
    } else if (g->exited) {
        return close_gen(m, g, t, 1); /* the final switch-out */
    } else {
        g_enter(m, g, t, LATREC_SCHED_BLOCKED, c, LATREC_SCHED_C_BLOCK);
    }
    return 0;
}

static int do_switch_in(latrec_sched_model *m, const latrec_rec *r, uint64_t t)
{
    unsigned c = latrec_rec_cpu(r->sc);
    uint32_t tid = (uint32_t)latrec_rec_seq(r->sc);
    int32_t tdi = td_get(m, tid);
    if (tdi < 0) return -1;
    gen *g = live(m, tdi), *d = dying(m, tdi);
    if (d && d->state == LATREC_SCHED_RUNNABLE && (!g || g->state != LATREC_SCHED_RUNNABLE)) g = d;
    if (!g && !(g = cur_or_new(m, tdi, t))) return -1;
    int32_t gi = (int32_t)g->idx;
    if (occ_switch(m, c, t, (uint32_t)r->aux, tid, gi)) return -1;
    drop_stale_runner(m, c, t, gi);
    g = &m->g[gi];
    switch (g->state) {
    case LATREC_SCHED_RUNNABLE:
        if (g->cpu != c) {
            if (u64_push(&g->mig, t)) return -1;
            m->c.implicit_migrations++;
            g->wait_mig = 1;
        }
        if (wait_push(m, g, t, c) || g_leave(m, g, t, 1)) return -1;
        break;
    case LATREC_SCHED_UNKNOWN:
        break;
    default: /* BLOCKED (wakeup lost) or RUNNING (switch-out lost) */
        m->c.inconsistent++;
        g_leave(m, g, t, 0);
        break;
    }
    g_enter(m, g, t, LATREC_SCHED_RUNNING, c, LATREC_SCHED_C_SWITCH_IN);
    return 0;
}

static int do_wakeup(latrec_sched_model *m, const latrec_rec *r, uint64_t t, unsigned kind)
{
    unsigned c = latrec_rec_cpu(r->sc);
    uint32_t tid = (uint32_t)latrec_rec_seq(r->sc);
    unsigned tc = cpu_arg(m, r->aux2, c);
    int32_t tdi = td_get(m, tid);
    if (tdi < 0) return -1;
    gen *g = live(m, tdi);
    if (kind == LATREC_K_WAKEUP_NEW) {
        if (!g || g->woken_new || g->exited || g->state != LATREC_SCHED_UNKNOWN || had_state(g)) {
            int32_t gi = new_gen(m, tdi, t, 1);
            if (gi < 0) return -1;
            g = &m->g[gi];
        }
        g->born = 1;
        g->woken_new = 1;
    } else if (!g && !(g = cur_or_new(m, tdi, t))) {
        return -1;
    }
    switch (g->state) {
    case LATREC_SCHED_RUNNING:
    case LATREC_SCHED_RUNNABLE:
        m->c.spurious_wakeups++;
        return 0;
    case LATREC_SCHED_BLOCKED:
        if (g->task_cpu != tc) {
            if (u64_push(&g->mig, t)) return -1;
            m->c.implicit_migrations++;
        }
        if (g_leave(m, g, t, 1)) return -1;
        break;
    default:
        break;
    }
    unsigned cause = kind == LATREC_K_WAKEUP_NEW ? LATREC_SCHED_C_WAKEUP_NEW : LATREC_SCHED_C_WAKEUP;
    g_enter(m, g, t, LATREC_SCHED_RUNNABLE, tc, cause);
    g->wait_start = t;
    g->wait_cause = (uint8_t)cause;
    g->wait_mig = 0;
    return 0;
}

static int do_migrate(latrec_sched_model *m, const latrec_rec *r, uint64_t t)
{
    uint32_t tid = (uint32_t)latrec_rec_seq(r->sc);
    if (r->aux == r->aux2) return 0; /* not a move */
    int32_t tdi = td_get(m, tid);
    if (tdi < 0) return -1;
    gen *g = cur_or_new(m, tdi, t);
    if (!g) return -1;
    if (u64_push(&g->mig, t)) return -1;
    if (r->aux2 >= LATREC_SCHED_MAX_CPUS) {
        m->c.bad_cpu++;
        return 0;
    }
    unsigned dest = (unsigned)r->aux2;
    if (g->state == LATREC_SCHED_RUNNABLE) {
        m->c.runnable_migrations++;
        if (dest != g->cpu) {
            if (g_leave(m, g, t, 1)) return -1;
            g_enter(m, g, t, LATREC_SCHED_RUNNABLE, dest, LATREC_SCHED_C_MIGRATE);
            g->wait_mig = 1;
        }
    } else {
        g->task_cpu = (uint16_t)dest;
    }
    return 0;
}

static int do_fork(latrec_sched_model *m, const latrec_rec *r, uint64_t t)
{
    uint32_t tid = (uint32_t)latrec_rec_seq(r->sc);
    int32_t tdi = td_get(m, tid);
    if (tdi < 0) return -1;
    gen *g = live(m, tdi);
    if (!(g && g->born && g->first_t == t && g->state == LATREC_SCHED_UNKNOWN && !had_state(g))) {
        int32_t gi = new_gen(m, tdi, t, 1);
        if (gi < 0) return -1;
        g = &m->g[gi];
    }
    g->tgid = (uint32_t)r->aux2;
    return 0;
}

static int do_exec(latrec_sched_model *m, const latrec_rec *r, uint64_t t)
{
    uint32_t tid = (uint32_t)latrec_rec_seq(r->sc);
    int32_t tdi = td_get(m, tid);
    if (tdi < 0) return -1;
    if (r->aux == tid || r->aux > UINT32_MAX) {
        gen *g = cur_or_new(m, tdi, t);
        if (!g) return -1;
        if (r->aux2) g->tgid = (uint32_t)r->aux2;
        return 0;
    }
    /* a non-leader thread exec'd: it goes on as tid */
    int32_t ogi = live_gen_of(m, (uint32_t)r->aux);
    int32_t ngi = new_gen(m, tdi, t, 1);
    if (ngi < 0) return -1;
    gen *ng = &m->g[ngi];
    ng->tgid = (uint32_t)r->aux2;
    if (ogi < 0) return 0;
    gen *og = &m->g[ogi];
    unsigned st = og->state, cpu = og->cpu;
    ng->wait_start = og->wait_start;
    ng->wait_cause = og->wait_cause;
    ng->wait_mig = og->wait_mig;
    if (close_gen(m, og, t, 1)) return -1;
    if (st != LATREC_SCHED_UNKNOWN) {
        g_enter(m, ng, t, st, cpu, LATREC_SCHED_C_EXEC);
        cpustate *cs = &m->cpu[cpu];
        if (st == LATREC_SCHED_RUNNING && cs->open && cs->v[cs->n - 1].gen == ogi) {
            occ_end(m, cs, t);
            if (occ_push(m, cs, t, NO_T, tid, ngi)) return -1;
            cs->open_prev = (uint32_t)r->aux;
        }
    }
    return 0;
}

static int do_exit(latrec_sched_model *m, const latrec_rec *r, uint64_t t)
{
    unsigned c = latrec_rec_cpu(r->sc);
    uint32_t tid = (uint32_t)latrec_rec_seq(r->sc);
    int32_t tdi = td_get(m, tid);
    if (tdi < 0) return -1;
    gen *g = cur_or_new(m, tdi, t);
    if (!g) return -1;
    g->exited = 1;
    if (r->aux) g->tgid = (uint32_t)r->aux;
    if (running_on(g, c) || (g->state == LATREC_SCHED_RUNNABLE && g->state_start == t))
        return 0; /* on its way out: the final switch-out closes it */
    if (g->state == LATREC_SCHED_BLOCKED && g->state_start == t)
        return close_gen(m, g, t, 1); /* switched out for good at this ns */
    /* The exiting task runs on c: whatever the model had was lost. */
    if (g->state != LATREC_SCHED_UNKNOWN) {
        m->c.inconsistent++;
        g_leave(m, g, t, 0);
    }
    drop_stale_runner(m, c, t, (int32_t)g->idx);
    g_enter(m, g, t, LATREC_SCHED_RUNNING, c, LATREC_SCHED_C_NONE);
    return 0;
}

static int do_comm(latrec_sched_model *m, const latrec_rec *r, uint64_t t)
{
    uint32_t tid = (uint32_t)latrec_rec_seq(r->sc);
    int32_t tdi = td_get(m, tid);
    if (tdi < 0) return -1;
    tident *td = &m->td[tdi];
    name_ent e;
    e.t = t;
    for (int i = 0; i < 8; i++) {
        e.comm[i] = (char)(r->aux >> (8 * i));
        e.comm[8 + i] = (char)(r->aux2 >> (8 * i));
    }
    e.comm[LATREC_SCHED_COMM_LEN - 1] = '\0';
    if (td->n_names && strcmp(td->names[td->n_names - 1].comm, e.comm) == 0) return 0;
    if (grow((void **)&td->names, &td->cap_names, td->n_names + 1, sizeof *td->names)) return -1;
    td->names[td->n_names++] = e;
    return 0;
}

static int do_other_run(latrec_sched_model *m, const latrec_rec *r, uint64_t t)
{
    unsigned c = latrec_rec_cpu(r->sc);
    if (occ_switch(m, c, t, (uint32_t)r->aux, (uint32_t)latrec_rec_seq(r->sc), -1)) return -1;
    drop_stale_runner(m, c, t, -1);
    return 0;
}

static int process(latrec_sched_model *m, const latrec_rec *r, uint64_t t)
{
    unsigned kind = latrec_rec_stage(r->sc);
    switch (kind) {
    case LATREC_K_SWITCH_OUT_PREEMPTED:
    case LATREC_K_SWITCH_OUT_BLOCKED: return do_switch_out(m, r, t, kind);
    case LATREC_K_SWITCH_IN: return do_switch_in(m, r, t);
    case LATREC_K_WAKEUP:
    case LATREC_K_WAKEUP_NEW: return do_wakeup(m, r, t, kind);
    case LATREC_K_MIGRATE: return do_migrate(m, r, t);
    case LATREC_K_FORK: return do_fork(m, r, t);
    case LATREC_K_EXEC: return do_exec(m, r, t);
    case LATREC_K_EXIT: return do_exit(m, r, t);
    case LATREC_K_COMM: return do_comm(m, r, t);
    case LATREC_K_OTHER_RUN: return do_other_run(m, r, t);
    default: return 0;
    }
}

/* ---- equal-time groups ------------------------------------------------ */

static unsigned phase_of(unsigned kind)
{
    switch (kind) {
    case LATREC_K_SWITCH_OUT_PREEMPTED:
    case LATREC_K_SWITCH_OUT_BLOCKED: return 1;
    case LATREC_K_EXIT: return 2;
    case LATREC_K_FORK:
    case LATREC_K_EXEC: return 3;
    case LATREC_K_COMM: return 4;
    case LATREC_K_MIGRATE: return 5;
    case LATREC_K_WAKEUP_NEW:
    case LATREC_K_WAKEUP: return 6;
    default: return 7; /* SWITCH_IN, OTHER_RUN */
    }
}

#define CMP3(a, b) (((a) > (b)) - ((a) < (b)))

static int rec_cmp(const void *pa, const void *pb)
{
    const latrec_rec *a = pa, *b = pb;
    unsigned ka = latrec_rec_stage(a->sc), kb = latrec_rec_stage(b->sc);
    int d;
    if ((d = CMP3(phase_of(ka), phase_of(kb)))) return d;
    if ((d = CMP3(latrec_rec_cpu(a->sc), latrec_rec_cpu(b->sc)))) return d;
    if ((d = CMP3(ka, kb))) return d;
    if ((d = CMP3(latrec_rec_seq(a->sc), latrec_rec_seq(b->sc)))) return d;
    if ((d = CMP3(a->aux, b->aux))) return d;
    return CMP3(a->aux2, b->aux2);
}

/* A switch-out of a thread not running on that CPU that the same group
 * switches in there: a 0 ns run, replayed after the switch-in. */
static int defer_out(latrec_sched_model *m, const latrec_rec *r)
{
    unsigned c = latrec_rec_cpu(r->sc);
    uint64_t tid = latrec_rec_seq(r->sc);
    const tident *td = td_find(m, (uint32_t)tid);
    if (td) {
        int32_t tdi = (int32_t)(td - m->td);
        if (running_on(live(m, tdi), c) || running_on(dying(m, tdi), c)) return 0;
    }
    for (size_t i = 0; i < m->n_grp; i++) {
        const latrec_rec *o = &m->grp[i];
        if (latrec_rec_stage(o->sc) == LATREC_K_SWITCH_IN && latrec_rec_seq(o->sc) == tid &&
            latrec_rec_cpu(o->sc) == c)
            return 1;
    }
    return 0;
}

static int flush(latrec_sched_model *m)
{
    size_t n = m->n_grp;
    if (n == 0) return 0;
    if (n == 1) { /* the usual group: nothing to order or defer */
        m->n_grp = 0;
        return process(m, &m->grp[0], m->cur_t);
    }
    qsort(m->grp, n, sizeof *m->grp, rec_cmp);
    int any = 0;
    for (size_t i = 0; i < n; i++) {
        const latrec_rec *r = &m->grp[i];
        unsigned k = latrec_rec_stage(r->sc);
        m->defer[i] = 0;
        if ((k == LATREC_K_SWITCH_OUT_PREEMPTED || k == LATREC_K_SWITCH_OUT_BLOCKED) && defer_out(m, r)) {
            m->defer[i] = 1;
            any = 1;
            continue;
        }
        if (process(m, r, m->cur_t)) return -1;
    }
    for (size_t i = 0; any && i < n; i++)
        if (m->defer[i] && process(m, &m->grp[i], m->cur_t)) return -1;
    m->n_grp = 0;
    return 0;
}

/* ---- public: building ------------------------------------------------- */

latrec_sched_model *latrec_sched_model_new(void)
{
    latrec_sched_model *m = calloc(1, sizeof *m);
    if (!m) return NULL;
    for (int i = 0; i < LATREC_SCHED_MAX_CPUS; i++) m->cpu[i].running_gen = -1;
    return m;
}

void latrec_sched_model_free(latrec_sched_model *m)
{
    if (!m) return;
    for (size_t i = 0; i < m->n_g; i++) {
        free(m->g[i].iv);
        free(m->g[i].ends);
        free(m->g[i].pre.v);
        free(m->g[i].mig.v);
    }
    for (size_t i = 0; i < m->n_td; i++) {
        free(m->td[i].gens);
        free(m->td[i].names);
    }
    for (int i = 0; i < LATREC_SCHED_MAX_CPUS; i++) {
        free(m->cpu[i].v);
        free(m->cpu[i].ends);
    }
    free(m->g);
    free(m->td);
    free(m->hash);
    free(m->w);
    free(m->grp);
    free(m->defer);
    free(m);
}

static int fail(latrec_sched_model *m)
{
    m->oom = 1;
    errno = ENOMEM;
    return -1;
}

int latrec_sched_feed(latrec_sched_model *m, const latrec_rec *rec)
{
    if (m->finished) {
        errno = EINVAL;
        return -1;
    }
    if (m->oom) return fail(m);
    m->c.records++;
    unsigned kind = latrec_rec_stage(rec->sc);
    if (kind < N_KINDS) m->c.by_kind[kind]++;
    if (rec->t_ns == 0 || kind < LATREC_K_SWITCH_OUT_PREEMPTED || kind > LATREC_K_OTHER_RUN) {
        m->c.ignored++;
        return 0;
    }
    uint64_t t = rec->t_ns;
    if (t < m->cur_t) {
        m->c.out_of_order++;
        t = m->cur_t;
    }
    if (m->n_grp && t > m->cur_t && flush(m)) return fail(m);
    if (m->c.first_ns == 0) m->c.first_ns = t;
    m->c.last_ns = t;
    m->cur_t = t;
    size_t cap = m->cap_grp;
    if (grow((void **)&m->grp, &m->cap_grp, m->n_grp + 1, sizeof *m->grp)) return fail(m);
    if (m->cap_grp != cap) {
        uint8_t *d = realloc(m->defer, m->cap_grp);
        if (!d) return fail(m);
        m->defer = d;
    }
    m->grp[m->n_grp++] = *rec;
    return 0;
}

int latrec_sched_finish(latrec_sched_model *m)
{
    if (m->finished) return 0;
    if (m->oom || flush(m)) return fail(m);
    uint64_t t = m->cur_t;
    for (size_t i = 0; i < m->n_g; i++) {
        gen *g = &m->g[i];
        if (g->closed) continue;
        if (g_leave(m, g, t, 1)) return fail(m);
        g->end_t = t;
    }
    for (int c = 0; c < LATREC_SCHED_MAX_CPUS; c++) {
        cpustate *cs = &m->cpu[c];
        if (!cs->open) continue;
        occ_end(m, cs, t);
        cs->open = 0;
    }
    m->finished = 1;
    return 0;
}

int latrec_sched_settle(latrec_sched_model *m, uint64_t t_ns)
{
    if (m->finished) {
        errno = EINVAL;
        return -1;
    }
    if (m->oom) return fail(m);
    const uint64_t cut = t_ns;
    if (t_ns > m->cur_t) {
        /* every record before t_ns is fed: those of cur_t too */
        if (flush(m)) return fail(m);
        m->cur_t = t_ns;
    } /* else those of cur_t wait: every state goes on to cur_t at least */
    for (size_t i = 0; i < m->n_g; i++) {
        gen *g = &m->g[i];
        if (g->closed || g->state == LATREC_SCHED_UNKNOWN || g->since >= cut) continue;
        if (iv_push(m, g, g->since, cut)) return fail(m);
        g->since = cut; /* the same state goes on */
    }
    return 0;
}

int latrec_sched_load(latrec_sched_model *m, const latrec_ring *ring)
{
    if (!ring || ring->status != LATREC_RING_OK || m->finished ||
        (ring->catalog[0] && strcmp(ring->catalog, LATREC_SCHED_CATALOG) != 0)) {
        errno = EINVAL;
        return -1;
    }
    m->c.ring_lost += ring->lost;
    latrec_cursor cur;
    latrec_rec rec;
    latrec_ring_window win; /* the ring's pages mapped near the cursor only */
    latrec_ring_cursor_init(&cur);
    latrec_ring_window_start(ring, &win);
    int rc = 0;
    while (!rc && latrec_ring_next(ring, &cur, &rec)) {
        latrec_ring_window_at(ring, &win, cur.pos - 1);
        rc = latrec_sched_feed(m, &rec) ? -1 : 0;
    }
    latrec_ring_window_end(ring, &win);
    return rc ? -1 : latrec_sched_finish(m);
}
