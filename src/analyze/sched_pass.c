/*
 * analyze/sched_pass.c - the scheduler split of a time-ordered pass in
 * bounded memory (rules: sched_pass.h): feeding the model ahead of the
 * splits, the open states' part settled when they end, forgetting, and
 * the second model for what reached further back.
 */
#include "analyze/sched_pass.h"

#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/sched_model_impl.h"

#define FORGET_EVERY 4096u /* records fed, at least, between two forgets */
#define RECHECK_EVERY 256u /* records fed between two looks at waiting splits */

enum { REQ_WAIT, REQ_WAIT_END, REQ_DONE };

/* A wanted full split. */
typedef struct req {
    uint32_t tid;
    int state, rc;
    int asked; /* every record up to t_b was in when it was tried */
    uint64_t t_a, t_b;
    latrec_sched_breakdown b;
    sched_name_key keys[LATREC_SCHED_TOP];
} req;

/* The part of a split in a state still open: ns moved from unknown into
 * the state when it ends stored, lost ns taken off then. */
typedef struct fix {
    latrec_sched_acc *acc, *also; /* acc NULL: rq[req]'s breakdown */
    uint32_t req;
    int32_t next;
    uint64_t ns, lost;
} fix;

/* Splits of a tid without a generation yet, per (tid, acc). */
typedef struct tally {
    uint32_t tid;
    latrec_sched_acc *acc, *also;
    uint64_t n, ns;
} tally;

/* A split for the second model: into acc, or wanted (acc NULL: rq[req]). */
typedef struct late {
    uint32_t tid, req;
    uint64_t t_a, t_b;
    latrec_sched_acc *acc, *also;
} late;

struct latrec_sched_pass {
    latrec_sched_model *m;
    latrec_sched_source src;
    int fed_all, oom, ended;
    int by_floor;                  /* 1: the caller's floor, not the reach, bounds what is kept */
    int by_wanted;                 /* 1 (at the end): the wanted splits left bound what is kept */
    uint64_t floor;                /* by_floor: no split to come starts before it */
    uint64_t reach, top_b, forgot; /* top_b: the latest t_b asked (by reach) */
    uint64_t fed, fed_at_forget, recheck_at;
    size_t kept_after;
    latrec_sched_pass_stats st;
    int32_t *heads; /* per generation: its first fix, -1 none */
    size_t cap_heads;
    fix *fx;
    size_t n_fx, cap_fx;
    int32_t free_fx;
    tally *tl;
    size_t n_tl, cap_tl;
    late *lt;
    size_t n_lt, cap_lt;
    req *rq;
    size_t n_rq, cap_rq, n_wait;
};

__attribute__((noinline)) static int grow_to(void **v, size_t *cap, size_t need, size_t elem)
{
    size_t nc = *cap ? *cap * 2 : 16;
    while (nc < need) nc *= 2;
    void *q = realloc(*v, nc * elem);
    if (!q) return -1;
    *v = q;
    *cap = nc;
    return 0;
}

/* Room for need elements in *v: the check inline, the growing not. */
static inline int grow(void **v, size_t *cap, size_t need, size_t elem)
{
    return need <= *cap ? 0 : grow_to(v, cap, need, elem);
}

static int fail(latrec_sched_pass *p)
{
    p->oom = 1;
    errno = ENOMEM;
    return -1;
}

/* ---- the open states' parts ------------------------------------------ */

/* Where a state's ns go in an acc (the state stored: never UNKNOWN). */
static size_t state_field(unsigned state)
{
    return state == LATREC_SCHED_RUNNING    ? offsetof(latrec_sched_acc, on_cpu)
           : state == LATREC_SCHED_RUNNABLE ? offsetof(latrec_sched_acc, runnable)
                                            : offsetof(latrec_sched_acc, blocked);
}

/* A state's part that turned out stored: from unknown into it (its field
 * at byte off). */
static inline void acc_move(latrec_sched_acc *a, size_t off, uint64_t ns, uint64_t lost)
{
    *(latrec_sched_ns *)(void *)((char *)a + off) += ns;
    a->unknown -= ns;
    a->lost -= lost;
}

static void on_leave(void *ctx, const gen *g, int keep)
{
    latrec_sched_pass *p = ctx;
    int32_t i = p->heads[g->idx];
    p->heads[g->idx] = -1;
    const size_t off = state_field(g->state);
    while (i >= 0) {
        fix *f = &p->fx[i];
        if (keep && f->acc) {
            acc_move(f->acc, off, f->ns, f->lost);
            if (f->also) acc_move(f->also, off, f->ns, f->lost);
        } else if (keep) { /* a wanted split: never with a RUNNABLE state open */
            latrec_sched_breakdown *b = &p->rq[f->req].b;
            if (g->state == LATREC_SCHED_RUNNING) b->on_cpu_ns += f->ns;
            else b->blocked_ns += f->ns;
            b->unknown_ns -= f->ns;
            b->lost_ns -= f->lost;
        }
        const int32_t next = f->next;
        f->next = p->free_fx;
        p->free_fx = i;
        i = next;
    }
}

static inline int new_fix(latrec_sched_pass *p, const gen *g, latrec_sched_acc *acc, latrec_sched_acc *also,
                          uint32_t rq, uint64_t ns, uint64_t lost)
{
    const size_t cap = p->cap_heads;
    if (cap < p->m->n_g) {
        if (grow_to((void **)&p->heads, &p->cap_heads, p->m->n_g, sizeof *p->heads)) return -1;
        for (size_t k = cap; k < p->cap_heads; k++) p->heads[k] = -1;
    }
    int32_t i = p->free_fx;
    if (i >= 0) {
        p->free_fx = p->fx[i].next;
    } else {
        if (grow((void **)&p->fx, &p->cap_fx, p->n_fx + 1, sizeof *p->fx)) return -1;
        i = (int32_t)p->n_fx++;
    }
    p->fx[i] = (fix){ acc, also, rq, p->heads[g->idx], ns, lost };
    p->heads[g->idx] = i;
    p->m->g[g->idx].watch = 1;
    return 0;
}

/* The part into acc (and also) of g's open state: onto the one it has
 * there already (inline: once per split), else a new one. */
static inline int add_fix(latrec_sched_pass *p, const gen *g, latrec_sched_acc *acc, latrec_sched_acc *also,
                          uint32_t rq, uint64_t ns, uint64_t lost)
{
    if (acc && g->idx < p->cap_heads)
        for (int32_t i = p->heads[g->idx]; i >= 0; i = p->fx[i].next)
            if (p->fx[i].acc == acc && p->fx[i].also == also) {
                p->fx[i].ns += ns;
                p->fx[i].lost += lost;
                return 0;
            }
    return new_fix(p, g, acc, also, rq, ns, lost);
}

/* g's open state began before t_b and may still end either way. */
static int open_before(const latrec_sched_model *m, const gen *g, uint64_t t_b)
{
    return !m->finished && !g->closed && g->state != LATREC_SCHED_UNKNOWN && g->since < t_b;
}

/* The searches from the end: the pass asks about the recent past. */
static latrec_sched_hint hint_at_end(const gen *g)
{
    return (latrec_sched_hint){ .gen1 = g->idx + 1, .iv = g->n_iv, .pre = g->pre.n, .mig = g->mig.n };
}

/* b was split with g's open state unknown: lost as if it stays so, and
 * the part to move (*ns, *lost) if it ends stored. */
static void open_part(const gen *g, uint64_t t_a, uint64_t t_b, latrec_sched_breakdown *b, uint64_t *ns, uint64_t *lost)
{
    const uint64_t from = g->since > t_a ? g->since : t_a;
    const int begun = g->forgot_end || g->n_iv; /* the timeline starts before the state */
    const uint64_t ks = g->forgot_end ? g->forgot_end : g->n_iv ? g->iv[0].start_ns : 0;
    const uint64_t known = b->on_cpu_ns + b->runnable_ns + b->blocked_ns;
    *ns = t_b - from;
    *lost = begun ? *ns : 0;
    b->lost_ns = begun ? t_b - (ks > t_a ? ks : t_a) - known : 0;
}

/* ---- feeding, forgetting ---------------------------------------------- */

static void req_try(latrec_sched_pass *p, size_t i);

static void recheck(latrec_sched_pass *p)
{
    p->recheck_at = p->fed + RECHECK_EVERY;
    for (size_t i = 0; i < p->n_rq; i++)
        if (p->rq[i].state == REQ_WAIT) req_try(p, i);
}

static void forget_now(latrec_sched_pass *p);

/* Let go of what no split to come reaches, once enough was fed since the
 * last time (the arrays kept are moved down: a cost per record kept).
 * Only feeding moves the count, so advance_slow is the one place to ask. */
static inline void maybe_forget(latrec_sched_pass *p)
{
    if (p->fed - p->fed_at_forget >= FORGET_EVERY + p->kept_after / 2) forget_now(p);
}

static void forget_now(latrec_sched_pass *p)
{
    latrec_sched_model *m = p->m;
    uint64_t fl;
    if (p->by_floor) {
        fl = p->floor;
    } else if (p->by_wanted) {
        fl = NO_T - 1; /* no split to come: what ended is done with (open states stay) */
        for (size_t i = 0; i < p->n_rq; i++)
            if (p->rq[i].state != REQ_DONE && !(p->rq[i].state == REQ_WAIT_END && p->rq[i].asked) &&
                p->rq[i].t_a >= p->forgot && p->rq[i].t_a < fl)
                fl = p->rq[i].t_a; /* asked, waiting for the end: a tid that began after t_b, reads nothing kept */
    } else {
        const uint64_t keep = 2 * p->reach + LATREC_SCHED_PASS_MARGIN_NS;
        fl = p->top_b > keep ? p->top_b - keep : 0;
    }
    if (fl > m->cur_t) fl = m->cur_t; /* by floor: up to where it is, again as it goes on */
    p->fed_at_forget = p->fed;
    if (fl <= p->forgot) return;
    for (size_t i = 0; i < p->n_rq; i++)
        if (p->rq[i].state == REQ_WAIT && p->rq[i].t_a < fl) fl = p->rq[i].t_a;
    if (fl <= p->forgot) return;
    const size_t held = latrec_sched_retained(m);
    if (held > p->st.peak_retained) p->st.peak_retained = held;
    latrec_sched_forget(m, fl);
    p->forgot = fl;
    p->kept_after = latrec_sched_retained(m);
    p->st.forgets++;
}

/* Every record stamped at or before t in (or all of them). */
static int advance_slow(latrec_sched_pass *p, uint64_t t)
{
    latrec_sched_model *m = p->m;
    latrec_rec rec;
    while (!p->fed_all && !(m->c.records && m->cur_t > t)) {
        if (!p->src.next(p->src.ctx, &rec)) {
            p->fed_all = 1;
            if (latrec_sched_finish(m)) return fail(p);
            break;
        }
        if (latrec_sched_feed(m, &rec)) return fail(p);
        p->fed++;
        maybe_forget(p);
    }
    if (p->n_wait && (p->fed >= p->recheck_at || p->fed_all)) recheck(p);
    return 0;
}

static inline int advance(latrec_sched_pass *p, uint64_t t)
{
    if (p->m->cur_t > t && !p->n_wait) return 0; /* in already */
    return advance_slow(p, t);
}

/* ---- public ----------------------------------------------------------- */

latrec_sched_pass *latrec_sched_pass_new(const latrec_sched_source *src)
{
    latrec_sched_pass *p = calloc(1, sizeof *p);
    if (!p || !(p->m = latrec_sched_model_new())) {
        free(p);
        return NULL;
    }
    p->src = *src;
    p->free_fx = -1;
    p->m->c.ring_lost = src->ring_lost;
    p->m->no_waits = 1; /* the splits read no waits */
    p->m->on_leave = on_leave;
    p->m->leave_ctx = p;
    return p;
}

void latrec_sched_pass_free(latrec_sched_pass *p)
{
    if (!p) return;
    latrec_sched_model_free(p->m);
    free(p->heads);
    free(p->fx);
    free(p->tl);
    free(p->lt);
    free(p->rq);
    free(p);
}

const latrec_sched_model *latrec_sched_pass_model(const latrec_sched_pass *p)
{
    return p->m;
}

static int push_late(latrec_sched_pass *p, latrec_sched_acc *acc, latrec_sched_acc *also, uint32_t req_i, uint32_t tid,
                     uint64_t t_a, uint64_t t_b)
{
    if (grow((void **)&p->lt, &p->cap_lt, p->n_lt + 1, sizeof *p->lt)) return fail(p);
    p->lt[p->n_lt++] = (late){ tid, req_i, t_a, t_b, acc, also };
    if (acc) p->st.late++;
    else p->st.late_wanted++;
    return 0;
}

static int tally_add(latrec_sched_pass *p, latrec_sched_acc *acc, latrec_sched_acc *also, uint32_t tid, uint64_t ns)
{
    /* the last few first: splits of one tid come in runs */
    for (size_t k = p->n_tl; k-- > 0;)
        if (p->tl[k].tid == tid && p->tl[k].acc == acc && p->tl[k].also == also) {
            p->tl[k].n++;
            p->tl[k].ns += ns;
            return 0;
        }
    if (grow((void **)&p->tl, &p->cap_tl, p->n_tl + 1, sizeof *p->tl)) return fail(p);
    p->tl[p->n_tl++] = (tally){ tid, acc, also, 1, ns };
    return 0;
}

static inline void acc_put(latrec_sched_acc *a, uint64_t on, uint64_t runnable, uint64_t blocked, uint64_t unknown,
                           uint64_t lost, uint32_t pre, uint32_t mig)
{
    a->n++;
    a->on_cpu += on;
    a->runnable += runnable;
    a->blocked += blocked;
    a->unknown += unknown;
    a->lost += lost;
    a->preemptions += pre;
    a->migrations += mig;
}

/* A split whose window ends in g's open state (the usual one: the thread
 * stamped t_b), as sched_split_recent and open_part give it, in one go:
 * every stored interval ends at or before the state's start, so before
 * t_b, and only t_a is searched for. */
static int add_open(latrec_sched_pass *p, latrec_sched_acc *acc, latrec_sched_acc *also, const gen *g, uint64_t t_a,
                    uint64_t t_b)
{
    uint64_t on = 0, runnable = 0, blocked = 0;
    const size_t n = g->n_iv;
    if (n && g->ends[n - 1] > t_a) {
        const tri fa = prefix_at(g, back_upper(g->ends, n, t_a), t_a);
        on = g->tot[0] - fa.on;
        runnable = g->tot[1] - fa.runnable;
        blocked = g->tot[2] - fa.blocked;
    }
    const uint64_t known = on + runnable + blocked;
    const int begun = g->forgot_end || n; /* the timeline starts before the state */
    const uint64_t ks = g->forgot_end ? g->forgot_end : n ? g->iv[0].start_ns : 0;
    const uint64_t ns = t_b - (g->since > t_a ? g->since : t_a);
    const uint64_t lost = begun ? t_b - (ks > t_a ? ks : t_a) - known : 0;
    const uint32_t pre = back_count(&g->pre, t_a, t_b), mig = back_count(&g->mig, t_a, t_b);
    if (add_fix(p, g, acc, also, 0, ns, begun ? ns : 0)) return fail(p);
    acc_put(acc, on, runnable, blocked, t_b - t_a - known, lost, pre, mig);
    if (also) acc_put(also, on, runnable, blocked, t_b - t_a - known, lost, pre, mig);
    return 0;
}

void latrec_sched_acc_add(latrec_sched_acc *a, const latrec_sched_breakdown *b)
{
    a->n++;
    a->on_cpu += b->on_cpu_ns;
    a->runnable += b->runnable_ns;
    a->blocked += b->blocked_ns;
    a->unknown += b->unknown_ns;
    a->lost += b->lost_ns;
    a->preemptions += b->preemptions;
    a->migrations += b->migrations;
}

int latrec_sched_pass_add(latrec_sched_pass *p, latrec_sched_acc *acc, latrec_sched_acc *also, uint32_t tid,
                          uint64_t t_a, uint64_t t_b)
{
    if (p->oom) return fail(p);
    if (t_b < t_a) return -1;
    if (advance(p, t_b)) return -1;
    const latrec_sched_model *m = p->m;
    if (t_a < p->forgot) return push_late(p, acc, also, 0, tid, t_a, t_b);
    if (!p->by_floor) {
        if (t_b > p->top_b) p->top_b = t_b;
        if (p->top_b - t_a > p->reach) p->reach = p->top_b - t_a;
    }
    const tident *td = td_find(m, tid);
    if (!td || !td->n_gens) return m->finished ? -1 : tally_add(p, acc, also, tid, t_b - t_a);
    const gen *g = gen_at(m, td, t_b);
    if (t_a < t_b && open_before(m, g, t_b)) return add_open(p, acc, also, g, t_a, t_b);
    latrec_sched_breakdown b;
    sched_split_recent(m, g, t_a, t_b, &b);
    latrec_sched_acc_add(acc, &b);
    if (also) latrec_sched_acc_add(also, &b);
    return 0;
}

static void req_try(latrec_sched_pass *p, size_t i)
{
    const latrec_sched_model *m = p->m;
    req *r = &p->rq[i];
    const int was_waiting = r->state == REQ_WAIT;
    const tident *td = td_find(m, r->tid);
    if (!td || !td->n_gens) {
        r->state = m->finished ? REQ_DONE : REQ_WAIT_END;
        r->rc = -1;
        goto out;
    }
    const gen *g = gen_at(m, td, r->t_b);
    const int open = r->t_a < r->t_b && open_before(m, g, r->t_b);
    r->state = REQ_WAIT;
    r->rc = 0;
    if (open && g->state == LATREC_SCHED_RUNNABLE) goto out; /* who ran instead then: when it ends */
    latrec_sched_hint h = hint_at_end(g);
    size_t ia;
    memset(&r->b, 0, sizeof r->b);
    sched_split_gen(m, g, &h, r->t_a, r->t_b, &r->b, &ia);
    if (r->b.runnable_ns) {
        if (!m->finished && !occupancy_final(m, g, ia, r->t_a, r->t_b)) goto out;
        r->rc = sched_others_collect(m, g, ia, r->t_a, r->t_b, &r->b, r->keys);
    }
    r->b.unattributed_ns = r->b.runnable_ns - r->b.instead_ns;
    if (open) {
        uint64_t ns, lost;
        open_part(g, r->t_a, r->t_b, &r->b, &ns, &lost);
        if (add_fix(p, g, NULL, NULL, (uint32_t)i, ns, lost)) fail(p);
    }
    r->state = REQ_DONE;
out:
    p->n_wait += (size_t)(r->state == REQ_WAIT) - (size_t)was_waiting;
}

/* A wanted split, asked once every record up to t_b is in. */
static int ask(latrec_sched_pass *p, size_t i)
{
    if (advance(p, p->rq[i].t_b)) return -1;
    req_try(p, i);
    p->rq[i].asked = 1;
    return 0;
}

int latrec_sched_pass_want(latrec_sched_pass *p, uint32_t tid, uint64_t t_a, uint64_t t_b)
{
    if (t_b < t_a) return 0; /* answered: none */
    for (size_t i = 0; i < p->n_rq; i++)
        if (p->rq[i].tid == tid && p->rq[i].t_a == t_a && p->rq[i].t_b == t_b) return 0;
    if (grow((void **)&p->rq, &p->cap_rq, p->n_rq + 1, sizeof *p->rq)) return fail(p);
    req *r = &p->rq[p->n_rq++];
    memset(r, 0, sizeof *r);
    r->tid = tid;
    r->t_a = t_a;
    r->t_b = t_b;
    r->state = REQ_WAIT_END; /* asked at the end */
    return 0;
}

static int by_t_b(const void *x, const void *y)
{
    const late *a = x, *b = y;
    if (a->t_b != b->t_b) return a->t_b < b->t_b ? -1 : 1;
    return a->t_a < b->t_a ? -1 : a->t_a > b->t_a;
}

static int finish_all(latrec_sched_pass *p);

/* The splits kept aside, by a model fed again from the start that keeps
 * what the ones still to come reach (their t_a, least first). */
static int replay(latrec_sched_pass *p)
{
    qsort(p->lt, p->n_lt, sizeof *p->lt, by_t_b);
    uint64_t *from = malloc(p->n_lt * sizeof *from);
    p->src.rewind(p->src.ctx);
    latrec_sched_pass *q = from ? latrec_sched_pass_new(&p->src) : NULL;
    int rc = q ? 0 : -1;
    for (size_t k = p->n_lt; !rc && k-- > 0;)
        from[k] = k + 1 < p->n_lt && from[k + 1] < p->lt[k].t_a ? from[k + 1] : p->lt[k].t_a;
    if (q) q->by_floor = 1;
    for (size_t k = 0; !rc && k < p->n_lt; k++) {
        const late *l = &p->lt[k];
        q->floor = from[k];
        if (l->acc) {
            rc = latrec_sched_pass_add(q, l->acc, l->also, l->tid, l->t_a, l->t_b) < 0 && q->oom ? -1 : 0;
            continue;
        }
        if (latrec_sched_pass_want(q, l->tid, l->t_a, l->t_b)) rc = -1;
        else rc = ask(q, q->n_rq - 1);
        p->rq[l->req].rc = (int)(q->n_rq - 1); /* where its answer will be */
    }
    if (!rc) {
        q->floor = NO_T - 1; /* no split to come: what ended is done with (open states stay) */
        rc = finish_all(q);
    }
    for (size_t k = 0; !rc && k < p->n_lt; k++) {
        const late *l = &p->lt[k];
        if (l->acc) continue;
        req *r = &p->rq[l->req];
        const req *a = &q->rq[r->rc];
        r->b = a->b;
        r->rc = a->rc;
        r->state = REQ_DONE;
    }
    free(from);
    latrec_sched_pass_free(q);
    return rc ? fail(p) : 0;
}

/* Every record in, the open parts and tallies settled, every wanted split
 * answered and named. */
static int finish_all(latrec_sched_pass *p)
{
    if (advance(p, UINT64_MAX)) return -1;
    for (size_t k = 0; k < p->n_tl; k++) {
        const tident *td = td_find(p->m, p->tl[k].tid);
        if (!td || !td->n_gens) continue;
        p->tl[k].acc->n += p->tl[k].n;
        p->tl[k].acc->unknown += p->tl[k].ns;
        if (p->tl[k].also) {
            p->tl[k].also->n += p->tl[k].n;
            p->tl[k].also->unknown += p->tl[k].ns;
        }
    }
    p->n_tl = 0;
    for (size_t i = 0; i < p->n_rq; i++) {
        req *r = &p->rq[i];
        if (r->state != REQ_DONE && r->t_a < p->forgot && !p->by_floor) {
            if (push_late(p, NULL, NULL, (uint32_t)i, r->tid, r->t_a, r->t_b)) return -1;
            continue;
        }
        if (r->state != REQ_DONE) req_try(p, i);
        if (r->state == REQ_DONE && !r->rc) sched_name_others(p->m, &r->b, r->keys);
    }
    if (p->oom) return -1;
    return p->n_lt && !p->by_floor ? replay(p) : 0;
}

static int by_req_t_b(const void *x, const void *y, void *ctx)
{
    const req *rq = ctx, *a = &rq[*(const size_t *)x], *b = &rq[*(const size_t *)y];
    if (a->t_b != b->t_b) return a->t_b < b->t_b ? -1 : 1;
    return a->t_a < b->t_a ? -1 : a->t_a > b->t_a;
}

/* After the last split only the wanted ones reach back: each is asked once
 * the records up to its t_b are in (least t_b first), and what none still
 * waiting reaches is let go as the rest is fed. Those reaching before what
 * the pass let go already are left to the second model (finish_all). */
static int ask_wanted(latrec_sched_pass *p)
{
    p->by_wanted = 1;
    size_t *ord = malloc((p->n_rq ? p->n_rq : 1) * sizeof *ord), n = 0;
    if (!ord) return fail(p);
    for (size_t i = 0; i < p->n_rq; i++)
        if (p->rq[i].state == REQ_WAIT_END && p->rq[i].t_a >= p->forgot) ord[n++] = i;
    qsort_r(ord, n, sizeof *ord, by_req_t_b, p->rq);
    int rc = 0;
    for (size_t k = 0; !rc && k < n; k++) rc = ask(p, ord[k]);
    free(ord);
    return rc;
}

int latrec_sched_pass_end(latrec_sched_pass *p)
{
    if (p->ended) return p->oom ? -1 : 0;
    p->ended = 1;
    if (p->oom) return -1;
    const size_t held = latrec_sched_retained(p->m);
    if (held > p->st.peak_retained) p->st.peak_retained = held;
    if (!p->by_floor && ask_wanted(p)) return -1;
    return finish_all(p);
}

int latrec_sched_pass_answer(const latrec_sched_pass *p, uint32_t tid, uint64_t t_a, uint64_t t_b,
                             latrec_sched_breakdown *out)
{
    for (size_t i = 0; i < p->n_rq; i++) {
        const req *r = &p->rq[i];
        if (r->tid != tid || r->t_a != t_a || r->t_b != t_b || r->state != REQ_DONE) continue;
        *out = r->b;
        return r->rc ? -1 : 0;
    }
    return -1;
}

void latrec_sched_pass_stats_get(const latrec_sched_pass *p, latrec_sched_pass_stats *out)
{
    *out = p->st;
}
