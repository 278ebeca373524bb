/* sched_pass (analyze/sched_pass.h) on random streams: the splits of a
 * time-ordered pass, summed, and the full splits wanted at its end, equal
 * the whole model's exactly (that model is checked against a brute-force
 * reading in test_sched_random), with splits that reach back further than
 * any before (answered by the second model), tids that turn up only later
 * and ones that never do; and the model it keeps stays a window of the
 * stream, not the run, with only wanted splits too; and the runqueue waits
 * streamed in bounded memory (latrec_sched_waits) are the whole model's,
 * as are the intervals of a model fed as they are read.
 * Streams from sched_random.h. */
#include "sched_random.h"

#include <stdlib.h>

#include "analyze/sched_pass.h"

/* ---- an array as the records' source ---------------------------------- */

struct arr_src {
    const latrec_rec *v;
    size_t n, i;
};

static int arr_next(void *ctx, latrec_rec *rec)
{
    struct arr_src *s = ctx;
    if (s->i >= s->n) return 0;
    *rec = s->v[s->i++];
    return 1;
}

static void arr_rewind(void *ctx)
{
    ((struct arr_src *)ctx)->i = 0;
}

/* ---- the whole model's answers, summed as engine/sched_view.c does ----- */

static void full_add(const latrec_sched_model *m, latrec_sched_acc *a, uint32_t tid, uint64_t t_a, uint64_t t_b)
{
    latrec_sched_breakdown b;
    if (t_b < t_a || latrec_sched_split_sums(m, &a->hint, tid, t_a, t_b, &b) < 0 || b.gen < 0) return;
    latrec_sched_acc_add(a, &b);
}

static void same_acc(const latrec_sched_acc *x, const latrec_sched_acc *y)
{
    assert_int_equal(x->n, y->n);
    assert_true(x->on_cpu == y->on_cpu);
    assert_true(x->runnable == y->runnable);
    assert_true(x->blocked == y->blocked);
    assert_true(x->unknown == y->unknown);
    assert_true(x->lost == y->lost);
    assert_int_equal(x->preemptions, y->preemptions);
    assert_int_equal(x->migrations, y->migrations);
}

static void same_breakdown(const latrec_sched_breakdown *x, const latrec_sched_breakdown *y)
{
    assert_int_equal(x->on_cpu_ns, y->on_cpu_ns);
    assert_int_equal(x->runnable_ns, y->runnable_ns);
    assert_int_equal(x->blocked_ns, y->blocked_ns);
    assert_int_equal(x->unknown_ns, y->unknown_ns);
    assert_int_equal(x->lost_ns, y->lost_ns);
    assert_int_equal(x->preemptions, y->preemptions);
    assert_int_equal(x->migrations, y->migrations);
    assert_int_equal(x->gen, y->gen);
    assert_int_equal(x->n_tasks, y->n_tasks);
    assert_int_equal(x->instead_ns, y->instead_ns);
    assert_int_equal(x->unattributed_ns, y->unattributed_ns);
    assert_int_equal(x->n_others, y->n_others);
    for (int i = 0; i < x->n_others; i++) {
        assert_int_equal(x->others[i].tid, y->others[i].tid);
        assert_int_equal(x->others[i].cpu, y->others[i].cpu);
        assert_int_equal(x->others[i].target, y->others[i].target);
        assert_int_equal(x->others[i].ns, y->others[i].ns);
        assert_string_equal(x->others[i].comm, y->others[i].comm);
    }
}

/* ---- a pass over a random stream ---------------------------------------- */

enum { N_ACC = 3, N_WANT = 60, LATE_TID = 100 + RTIDS, NEVER_TID = LATE_TID + 1 };

struct run {
    size_t n_splits;
    latrec_sched_pass_stats st;
    size_t full_retained;
};

/* A split of the pass at stream position i: up to 20 us back from a time
 * near record i, or (far) 10 ms back, more than the 1 ms the pass keeps
 * beyond twice the reach. Tids include one whose first event is the
 * stream's last and one that never has any. */
static void pick(const latrec_rec *v, size_t i, int far, uint32_t *tid, uint64_t *a, uint64_t *b)
{
    *tid = 100 + (uint32_t)(rng() % (RTIDS + 2));
    *b = v[i].t_ns + rng() % 3000;
    *a = *b - rng() % (20000 < *b ? 20000 : *b);
    if (far && *b > 10000000) *a = *b - 10000000;
    else if (rng() % 64 == 0) *a = *b;     /* empty */
    else if (rng() % 64 == 0) *a = *b + 5; /* reversed: counted nowhere */
}

static void run_pass(const latrec_rec *v, size_t n, unsigned far, size_t step, struct run *out)
{
    latrec_sched_model *full = build(v, n);
    struct arr_src s = { v, n, 0 };
    const latrec_sched_source src = { arr_next, arr_rewind, &s, 0 };
    latrec_sched_pass *p = latrec_sched_pass_new(&src);
    assert_non_null(p);
    latrec_sched_acc acc_full[N_ACC], acc_pass[N_ACC], acc_also;
    memset(acc_full, 0, sizeof acc_full);
    memset(acc_pass, 0, sizeof acc_pass);
    memset(&acc_also, 0, sizeof acc_also);
    out->n_splits = 0;
    for (size_t i = 0; i < n; i += 1 + (size_t)(rng() % step)) {
        uint32_t tid;
        uint64_t a, b;
        pick(v, i, far && i > n / 2 && rng() % far == 0, &tid, &a, &b);
        const int k = (int)(rng() % N_ACC);
        full_add(full, &acc_full[k], tid, a, b);
        const int rc = latrec_sched_pass_add(p, &acc_pass[k], k == 0 ? &acc_also : NULL, tid, a, b);
        assert_true(rc == 0 || (rc == -1 && (b < a || tid == NEVER_TID)));
        out->n_splits++;
    }
    /* the slowest instances: anywhere in the run, any order */
    uint32_t wt[N_WANT];
    uint64_t wa[N_WANT], wb[N_WANT];
    for (int w = 0; w < N_WANT; w++) {
        pick(v, (size_t)(rng() % n), 0, &wt[w], &wa[w], &wb[w]);
        assert_int_equal(latrec_sched_pass_want(p, wt[w], wa[w], wb[w]), 0);
    }
    assert_int_equal(latrec_sched_pass_end(p), 0);
    for (int k = 0; k < N_ACC; k++) same_acc(&acc_full[k], &acc_pass[k]);
    same_acc(&acc_full[0], &acc_also); /* also: the same splits */
    for (int w = 0; w < N_WANT; w++) {
        latrec_sched_breakdown x, y;
        const int rf = wb[w] < wa[w] ? -1 : latrec_sched_split(full, wt[w], wa[w], wb[w], &x);
        const int rp = latrec_sched_pass_answer(p, wt[w], wa[w], wb[w], &y);
        if (rf < 0 || x.gen < 0) {
            assert_true(rp < 0 || y.gen < 0);
            continue;
        }
        assert_int_equal(rp, 0);
        same_breakdown(&x, &y);
    }
    /* the same records, threads and counters as the whole model */
    assert_memory_equal(latrec_sched_counters(full), latrec_sched_counters(latrec_sched_pass_model(p)),
                        sizeof(latrec_sched_counts));
    assert_int_equal(latrec_sched_n_threads(full), latrec_sched_n_threads(latrec_sched_pass_model(p)));
    latrec_sched_pass_stats_get(p, &out->st);
    out->full_retained = latrec_sched_retained(full);
    latrec_sched_pass_free(p);
    latrec_sched_model_free(full);
}

/* A stream with a tid whose only event is the last one. */
static latrec_rec *stream(size_t n)
{
    latrec_rec *v = malloc(n * sizeof *v);
    assert_non_null(v);
    random_stream(v, n - 1);
    v[n - 1] = R(v[n - 2].t_ns + 10, 0, LATREC_K_SWITCH_IN, LATE_TID, 0, 0);
    return v;
}

static void test_pass_same_figures(void **state)
{
    (void)state;
    enum { N = 30000 };
    for (uint64_t seed = 1; seed <= 6; seed++) {
        rng_state = seed * 0x5151ull;
        latrec_rec *v = stream(N);
        struct run r;
        run_pass(v, N, 0, 4, &r); /* reaches within twice the first ones' */
        assert_true(r.n_splits > N / 4);
        assert_true(r.st.forgets > 3);
        assert_int_equal(r.st.late, 0);
        assert_true(r.st.late_wanted > 0);
        run_pass(v, N, 400, 4, &r); /* and a few that reach far back */
        assert_true(r.st.late > 0);
        free(v);
    }
}

/* What the pass holds follows its reach, not the run: over a stream ten
 * times as long, about the same peak, a small part of the whole model. */
static void test_pass_bounded(void **state)
{
    (void)state;
    struct run small, large;
    rng_state = 77;
    latrec_rec *v = stream(20000);
    run_pass(v, 20000, 0, 8, &small);
    free(v);
    rng_state = 78;
    v = stream(200000);
    run_pass(v, 200000, 0, 8, &large);
    free(v);
    assert_int_equal(large.st.late, 0);
    assert_true(large.full_retained > 9 * small.full_retained);
    assert_true(large.st.peak_retained < 2 * small.st.peak_retained);
    assert_true(large.st.peak_retained * 20 < large.full_retained);
}

/* Only wanted splits (record --stop-above's explanation): the same
 * answers as the whole model, and what the pass keeps at its end is the
 * little their windows need, not the stream read to get there. */
static void test_wanted_only_bounded(void **state)
{
    (void)state;
    enum { N = 200000, W = 4 };
    rng_state = 79;
    latrec_rec *v = stream(N);
    latrec_sched_model *full = build(v, N);
    struct arr_src s = { v, N, 0 };
    const latrec_sched_source src = { arr_next, arr_rewind, &s, 0 };
    latrec_sched_pass *p = latrec_sched_pass_new(&src);
    assert_non_null(p);
    uint32_t wt[W];
    uint64_t wa[W], wb[W];
    for (int w = 0; w < W; w++) { /* in the first tenth of the stream */
        do pick(v, (size_t)(rng() % (N / 10)), 0, &wt[w], &wa[w], &wb[w]);
        while (wb[w] <= wa[w] || wt[w] >= LATE_TID);
        assert_int_equal(latrec_sched_pass_want(p, wt[w], wa[w], wb[w]), 0);
    }
    assert_int_equal(latrec_sched_pass_end(p), 0);
    for (int w = 0; w < W; w++) {
        latrec_sched_breakdown x, y;
        assert_int_equal(latrec_sched_split(full, wt[w], wa[w], wb[w], &x), 0);
        assert_int_equal(latrec_sched_pass_answer(p, wt[w], wa[w], wb[w], &y), 0);
        same_breakdown(&x, &y);
    }
    const latrec_sched_model *m = latrec_sched_pass_model(p);
    assert_memory_equal(latrec_sched_counters(full), latrec_sched_counters(m), sizeof(latrec_sched_counts));
    latrec_sched_pass_stats st;
    latrec_sched_pass_stats_get(p, &st);
    assert_int_equal(st.late_wanted, 0);
    assert_true(latrec_sched_retained(m) * 20 < latrec_sched_retained(full));
    assert_true(st.peak_retained * 20 < latrec_sched_retained(full));
    latrec_sched_pass_free(p);
    latrec_sched_model_free(full);
    free(v);
}

/* ---- the runqueue waits, streamed ---------------------------------------- */

struct wait_walk {
    const latrec_sched_wait *want; /* the whole model's, in order */
    size_t n_want, n;
    latrec_sched_model **m; /* the streaming model, while it is fed */
    size_t peak;            /* the most entries it held at a wait */
};

static int copy_wait(void *ctx, const latrec_sched_wait *w)
{
    latrec_sched_wait **v = ctx;
    **v = *w;
    (*v)++;
    return 0;
}

static int check_wait(void *ctx, const latrec_sched_wait *w)
{
    struct wait_walk *k = ctx;
    assert_true(k->n < k->n_want);
    assert_memory_equal(&k->want[k->n], w, sizeof *w);
    k->n++;
    const size_t held = latrec_sched_retained(*k->m);
    if (held > k->peak) k->peak = held;
    return 0;
}

/* latrec_sched_waits gives the whole model's waits, in its order, with the
 * same counters and threads; what it holds stays about the same over a
 * stream ten times as long, a small part of the whole model. */
static size_t waits_along(const latrec_rec *v, size_t n, const latrec_sched_model *full)
{
    const size_t n_w = latrec_sched_counters(full)->waits;
    latrec_sched_wait *want = malloc((n_w + 1) * sizeof *want), *end = want;
    assert_non_null(want);
    assert_int_equal(latrec_sched_foreach_wait(full, copy_wait, &end), 0);
    assert_int_equal((size_t)(end - want), n_w);
    struct arr_src s = { v, n, 0 };
    const latrec_sched_source src = { arr_next, arr_rewind, &s, 7 };
    latrec_sched_model *m = NULL;
    struct wait_walk k = { want, n_w, 0, &m, 0 };
    assert_int_equal(latrec_sched_waits(&src, &m, check_wait, &k), 0);
    assert_int_equal(k.n, n_w);
    latrec_sched_counts c = *latrec_sched_counters(full);
    c.ring_lost = 7;
    assert_memory_equal(&c, latrec_sched_counters(m), sizeof c);
    assert_int_equal(latrec_sched_n_threads(full), latrec_sched_n_threads(m));
    for (size_t i = 0; i < latrec_sched_n_threads(full); i++) {
        latrec_sched_thread a, b;
        latrec_sched_thread_info(full, i, &a);
        latrec_sched_thread_info(m, i, &b);
        assert_int_equal(a.tid, b.tid);
        assert_int_equal(a.gen, b.gen);
        assert_int_equal(a.end_ns, b.end_ns);
        const char *na = latrec_sched_thread_name(full, a.tid, a.gen), *nb = latrec_sched_thread_name(m, b.tid, b.gen);
        assert_true((!na && !nb) || (na && nb && strcmp(na, nb) == 0));
    }
    latrec_sched_model_free(m);
    free(want);
    return k.peak;
}

/* fn reads a stream of n and of 10 n records (seed): it holds about the
 * same at most over both, a small part of the whole model of the longer. */
typedef size_t (*held_fn)(const latrec_rec *v, size_t n, const latrec_sched_model *full);

static void bounded_over(held_fn fn, size_t n, uint64_t seed)
{
    size_t peak[2], whole[2];
    for (int r = 0; r < 2; r++) {
        const size_t len = r ? 10 * n : n;
        rng_state = seed + (uint64_t)r;
        latrec_rec *v = stream(len);
        latrec_sched_model *full = build(v, len);
        peak[r] = fn(v, len, full);
        whole[r] = latrec_sched_retained(full);
        latrec_sched_model_free(full);
        free(v);
    }
    assert_true(whole[1] > 9 * whole[0]);
    assert_true(peak[1] < 2 * peak[0]);
    assert_true(peak[1] * 20 < whole[1]);
}

static void test_waits_streamed(void **state)
{
    (void)state;
    bounded_over(waits_along, 20000, 80);
}

/* ---- a model fed as it is read (convert's timeline) ----------------------- */

/* Fed on only until every interval starting before a time is settled
 * (latrec_sched_settled_before), each generation's intervals that start
 * before it are the whole model's; letting go of what ended before it,
 * the model holds about the same over a stream ten times as long. */
static size_t read_along(const latrec_rec *v, size_t n, const latrec_sched_model *full)
{
    latrec_sched_model *m = latrec_sched_model_new();
    assert_non_null(m);
    const size_t n_g = latrec_sched_n_threads(full);
    size_t *done = calloc(n_g + 1, sizeof *done), fed = 0, peak = 0;
    assert_non_null(done);
    const uint64_t last = v[n - 1].t_ns;
    for (uint64_t upto = v[0].t_ns; upto != UINT64_MAX;
         upto = upto > last ? UINT64_MAX : upto + 20000 + rng() % 20000) { /* the last: the rest */
        while (latrec_sched_settled_before(m) < upto) {                    /* fed on in steps, as the timeline does */
            if (fed == n) assert_int_equal(latrec_sched_finish(m), 0);
            for (size_t k = 0; k < 64 && fed < n; k++) assert_int_equal(latrec_sched_feed(m, &v[fed++]), 0);
        }
        for (size_t i = 0; i < n_g; i++) {
            latrec_sched_thread info;
            latrec_sched_thread_info(full, i, &info);
            size_t nf, nm;
            uint32_t gf, gm;
            const latrec_sched_interval *f = latrec_sched_intervals(full, info.tid, info.first_ns, &nf, &gf);
            const latrec_sched_interval *iv = latrec_sched_intervals(m, info.tid, info.first_ns, &nm, &gm);
            if (!f || gf != info.gen || !iv || gm != gf) continue;
            /* the ones not let go of yet are the whole model's, from done[i] on */
            size_t j = 0;
            while (j < nm && done[i] && iv[j].end_ns <= f[done[i] - 1].end_ns) j++;
            for (; j < nm && iv[j].start_ns < upto; j++, done[i]++) {
                assert_true(done[i] < nf);
                assert_memory_equal(&iv[j], &f[done[i]], sizeof *iv);
            }
        }
        const size_t held = latrec_sched_retained(m);
        if (held > peak) peak = held;
        latrec_sched_forget(m, upto < latrec_sched_counters(m)->last_ns ? upto : latrec_sched_counters(m)->last_ns);
    }
    for (size_t i = 0; i < n_g; i++) { /* every stored interval seen once */
        latrec_sched_thread info;
        latrec_sched_thread_info(full, i, &info);
        size_t nf;
        uint32_t gf;
        if (latrec_sched_intervals(full, info.tid, info.first_ns, &nf, &gf) && gf == info.gen)
            assert_int_equal(done[i], nf);
    }
    free(done);
    latrec_sched_model_free(m);
    return peak;
}

static void test_read_along(void **state)
{
    (void)state;
    bounded_over(read_along, 10000, 90);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pass_same_figures),   cmocka_unit_test(test_pass_bounded),
        cmocka_unit_test(test_wanted_only_bounded), cmocka_unit_test(test_waits_streamed),
        cmocka_unit_test(test_read_along),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
