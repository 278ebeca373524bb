/* sched_model on random streams: every split's parts sum to its window
 * and agree with a brute-force reading of the timeline; a model fed in
 * steps and settled (latrec_sched_settle), or also letting go of its past
 * (latrec_sched_forget), answers as the model of the records before each
 * mark, built whole. Streams from sched_random.h. */
#include "sched_random.h"

#include <stdlib.h>

/* the split computed the slow way, over every interval; f[3]: the gaps
 * after the first interval, up to the thread's end (lost) */
static void brute(const latrec_sched_interval *iv, size_t n, uint64_t end, uint64_t a, uint64_t b, uint64_t f[4])
{
    f[0] = f[1] = f[2] = f[3] = 0;
    for (size_t i = 0; i < n; i++) {
        uint64_t s = iv[i].start_ns > a ? iv[i].start_ns : a, e = iv[i].end_ns < b ? iv[i].end_ns : b;
        if (s < e) f[iv[i].state - 1] += e - s;
        const uint64_t next = i + 1 < n ? iv[i + 1].start_ns : end;
        s = iv[i].end_ns > a ? iv[i].end_ns : a, e = next < b ? next : b;
        if (s < e) f[3] += e - s;
    }
}

/* the end of the generation of tid alive at t */
static uint64_t gen_end(const latrec_sched_model *m, uint32_t tid, uint64_t t)
{
    const int64_t gen = latrec_sched_gen_at(m, tid, t);
    for (size_t k = 0; k < latrec_sched_n_threads(m); k++) {
        latrec_sched_thread th;
        latrec_sched_thread_info(m, k, &th);
        if (th.tid == tid && (int64_t)th.gen == gen) return th.end_ns;
    }
    return 0;
}

/* The sums-only split equals the full one whatever its hint: one kept per
 * tid over queries in random order (it must search back as well as on),
 * and one holding out-of-range indices. */
static void sums_match(const latrec_sched_model *m, latrec_sched_hint *h, uint32_t tid, uint64_t a, uint64_t b,
                       const latrec_sched_breakdown *o)
{
    latrec_sched_hint junk = { .gen1 = h->gen1, .iv = (size_t)rng(), .pre = (size_t)rng() % 64, .mig = SIZE_MAX };
    latrec_sched_hint *hs[2] = { h, &junk };
    for (int k = 0; k < 2; k++) {
        latrec_sched_breakdown s;
        assert_int_equal(latrec_sched_split_sums(m, hs[k], tid, a, b, &s), 0);
        assert_int_equal(s.gen, o->gen);
        assert_int_equal(s.on_cpu_ns, o->on_cpu_ns);
        assert_int_equal(s.runnable_ns, o->runnable_ns);
        assert_int_equal(s.blocked_ns, o->blocked_ns);
        assert_int_equal(s.unknown_ns, o->unknown_ns);
        assert_int_equal(s.lost_ns, o->lost_ns);
        assert_int_equal(s.preemptions, o->preemptions);
        assert_int_equal(s.migrations, o->migrations);
        assert_int_equal(s.n_others, 0);
        assert_int_equal(s.unattributed_ns, s.runnable_ns);
    }
}

/* Every thread's intervals ordered, non-empty, their running sums in
 * before_ns, and their totals the thread's. */
static void check_timelines(const latrec_sched_model *m)
{
    for (size_t k = 0; k < latrec_sched_n_threads(m); k++) {
        latrec_sched_thread th;
        latrec_sched_thread_info(m, k, &th);
        size_t n;
        uint32_t gen;
        const latrec_sched_interval *iv = latrec_sched_intervals(m, th.tid, th.first_ns, &n, &gen);
        if (gen != th.gen) continue; /* a later generation began at the same ns */
        uint64_t sum[3] = { 0, 0, 0 };
        for (size_t i = 0; i < n; i++) {
            assert_true(iv[i].start_ns < iv[i].end_ns);
            if (i) assert_true(iv[i - 1].end_ns <= iv[i].start_ns);
            assert_true(iv[i].state >= 1 && iv[i].state <= 3);
            assert_memory_equal(iv[i].before_ns, sum, sizeof sum);
            sum[iv[i].state - 1] += iv[i].end_ns - iv[i].start_ns;
        }
        assert_int_equal(sum[0], th.on_cpu_ns);
        assert_int_equal(sum[1], th.runnable_ns);
        assert_int_equal(sum[2], th.blocked_ns);
    }
}

/* One split o of tid over [a, b) against the brute-force sums over the
 * intervals iv[0..n) and the rules its figures keep. */
static void check_split(const latrec_sched_model *m, uint32_t tid, uint64_t a, uint64_t b,
                        const latrec_sched_breakdown *o, const latrec_sched_interval *iv, size_t n)
{
    uint64_t f[4];
    brute(iv, n, gen_end(m, tid, b), a, b, f);
    assert_int_equal(o->on_cpu_ns, f[0]);
    assert_int_equal(o->runnable_ns, f[1]);
    assert_int_equal(o->blocked_ns, f[2]);
    assert_int_equal(o->lost_ns, f[3]);
    assert_true(o->lost_ns <= o->unknown_ns);
    assert_true(o->instead_ns <= o->runnable_ns);
    assert_int_equal(o->instead_ns + o->unattributed_ns, o->runnable_ns);
    assert_true(o->n_others >= 0 && o->n_others <= LATREC_SCHED_TOP);
    assert_true((uint32_t)o->n_others <= o->n_tasks);
    uint64_t top = 0;
    for (int i = 0; i < o->n_others; i++) {
        assert_true(o->others[i].ns > 0);
        if (i) assert_true(o->others[i - 1].ns >= o->others[i].ns);
        top += o->others[i].ns;
    }
    assert_true(top <= o->instead_ns);
    if (o->n_tasks <= LATREC_SCHED_TOP) assert_int_equal(top, o->instead_ns);
}

/* Additive: the window cut at every interval edge inside it sums to the
 * same figures (each piece holds at most one interval). */
static void check_additive(const latrec_sched_model *m, latrec_sched_hint *hint, uint32_t tid, uint64_t a,
                           uint64_t b, const latrec_sched_breakdown *o, const latrec_sched_interval *iv, size_t n)
{
    uint64_t cut[64];
    size_t nc = 0;
    cut[nc++] = a;
    for (size_t i = 0; i < n && nc < 60; i++) {
        if (iv[i].start_ns > a && iv[i].start_ns < b && iv[i].start_ns != cut[nc - 1]) cut[nc++] = iv[i].start_ns;
        if (iv[i].end_ns > a && iv[i].end_ns < b) cut[nc++] = iv[i].end_ns;
    }
    if (nc >= 60) return;
    cut[nc++] = b;
    latrec_sched_breakdown sum;
    memset(&sum, 0, sizeof sum);
    for (size_t k = 0; k + 1 < nc; k++) {
        latrec_sched_breakdown p;
        split_ok(m, tid, cut[k], cut[k + 1], &p);
        sums_match(m, hint, tid, cut[k], cut[k + 1], &p); /* in time order */
        assert_int_equal(p.gen, o->gen);
        sum.on_cpu_ns += p.on_cpu_ns;
        sum.runnable_ns += p.runnable_ns;
        sum.blocked_ns += p.blocked_ns;
        sum.unknown_ns += p.unknown_ns;
        sum.lost_ns += p.lost_ns;
        sum.preemptions += p.preemptions;
        sum.migrations += p.migrations;
        sum.instead_ns += p.instead_ns;
    }
    assert_int_equal(sum.on_cpu_ns, o->on_cpu_ns);
    assert_int_equal(sum.runnable_ns, o->runnable_ns);
    assert_int_equal(sum.blocked_ns, o->blocked_ns);
    assert_int_equal(sum.unknown_ns, o->unknown_ns);
    assert_int_equal(sum.lost_ns, o->lost_ns);
    assert_int_equal(sum.preemptions, o->preemptions);
    assert_int_equal(sum.migrations, o->migrations);
    assert_int_equal(sum.instead_ns, o->instead_ns);
}

static void check_model(const latrec_sched_model *m, uint64_t t_end)
{
    latrec_sched_hint hint[RTIDS + 1];
    memset(hint, 0, sizeof hint);
    check_timelines(m);
    for (int q = 0; q < 3000; q++) {
        uint32_t tid = 100 + (uint32_t)(rng() % (RTIDS + 1));
        uint64_t a = rng() % (t_end + 2000), b = a + (rng() % 4 ? rng() % 5000 : rng() % (t_end + 1));
        latrec_sched_breakdown o;
        split_ok(m, tid, a, b, &o);
        sums_match(m, &hint[tid - 100], tid, a, b, &o);
        size_t n;
        const latrec_sched_interval *iv = latrec_sched_intervals(m, tid, b, &n, NULL);
        check_split(m, tid, a, b, &o, iv, n);
        check_additive(m, &hint[tid - 100], tid, a, b, &o, iv, n);
    }
}

/* The same threads and generations in both models (x finished, y live). */
static void same_threads(const latrec_sched_model *x, const latrec_sched_model *y)
{
    assert_int_equal(latrec_sched_n_threads(x), latrec_sched_n_threads(y));
    for (size_t k = 0; k < latrec_sched_n_threads(x); k++) {
        latrec_sched_thread a, b;
        latrec_sched_thread_info(x, k, &a);
        latrec_sched_thread_info(y, k, &b);
        assert_int_equal(a.tid, b.tid);
        assert_int_equal(a.gen, b.gen);
        assert_int_equal(a.first_ns, b.first_ns);
        assert_int_equal(a.exited, b.exited);
        assert_int_equal(a.tgid, b.tgid);
    }
}

/* n random splits, the same in both models: windows up to 20 us ending
 * in (b_max - b_span, b_max] (no earlier than 0). */
static void same_splits(const latrec_sched_model *x, const latrec_sched_model *y, int n, uint64_t b_max,
                        uint64_t b_span)
{
    for (int q = 0; q < n; q++) {
        uint32_t tid = 100 + (uint32_t)(rng() % RTIDS);
        uint64_t b = b_max - rng() % (b_span < b_max ? b_span : b_max);
        uint64_t a = b - rng() % (b < 20000 ? b + 1 : 20000);
        latrec_sched_breakdown o1, o2;
        memset(&o1, 0, sizeof o1);
        memset(&o2, 0, sizeof o2);
        split_ok(x, tid, a, b, &o1);
        split_ok(y, tid, a, b, &o2);
        assert_memory_equal(&o1, &o2, sizeof o1);
    }
}

static void test_random_sum_invariant(void **state)
{
    (void)state;
    enum { N = 20000 };
    latrec_rec *v = malloc(N * sizeof *v), *w = malloc(N * sizeof *w);
    assert_non_null(v);
    assert_non_null(w);
    for (uint64_t seed = 1; seed <= 8; seed++) {
        rng_state = seed * 0x1234567ull;
        random_stream(v, N);
        latrec_sched_model *m = build(v, N);
        check_model(m, v[N - 1].t_ns);

        /* equal-time groups shuffled: the same timelines and counters */
        memcpy(w, v, N * sizeof *v);
        for (size_t i = 0; i < N;) {
            size_t j = i;
            while (j < N && w[j].t_ns == w[i].t_ns) j++;
            for (size_t k = j - 1; k > i; k--) {
                size_t r = i + rng() % (k - i + 1);
                latrec_rec tmp = w[k];
                w[k] = w[r];
                w[r] = tmp;
            }
            i = j;
        }
        latrec_sched_model *m2 = build(w, N);
        assert_memory_equal(latrec_sched_counters(m), latrec_sched_counters(m2), sizeof(latrec_sched_counts));
        assert_int_equal(latrec_sched_n_threads(m), latrec_sched_n_threads(m2));
        for (size_t k = 0; k < latrec_sched_n_threads(m); k++) {
            latrec_sched_thread t1, t2;
            latrec_sched_thread_info(m, k, &t1);
            latrec_sched_thread_info(m2, k, &t2);
            assert_memory_equal(&t1, &t2, sizeof t1);
        }
        same_splits(m, m2, 500, v[N - 1].t_ns, v[N - 1].t_ns);
        const latrec_sched_counts *c = latrec_sched_counters(m);
        assert_true(c->intervals > 1000);
        assert_true(c->waits > 100);
        latrec_sched_model_free(m);
        latrec_sched_model_free(m2);
    }
    free(v);
    free(w);
}

/* Live (latrec_sched_settle, latrec_sched_forget): a model fed in steps and settled at times
 * the records before which are all in answers every query up to the last
 * record fed as the model of those records, finished, does, while it goes
 * on being fed (a later event may still show a state lost: the full model
 * then has it unknown back to its start); after its own finish it is the
 * model of the whole stream, those states taken back too. The marks fall
 * on records' own times half of the time (a state cut there is not one
 * begun there). One that lets go of what ended 60 us before each mark has
 * the same threads, answers the windows after that the same, and holds a
 * fraction of the intervals. */
static void test_settle_live(void **state)
{
    (void)state;
    enum { N = 20000 };
    latrec_rec *v = malloc(N * sizeof *v);
    assert_non_null(v);
    for (uint64_t seed = 1; seed <= 4; seed++) {
        rng_state = seed * 0x7654321ull;
        random_stream(v, N);
        latrec_sched_model *full = build(v, N);
        latrec_sched_model *live = latrec_sched_model_new(), *lean = latrec_sched_model_new();
        assert_non_null(live);
        assert_non_null(lean);
        size_t fed = 0;
        while (fed < N) {
            size_t next = fed + 1 + (size_t)(rng() % 700);
            if (next > N) next = N;
            for (; fed < next; fed++) {
                assert_int_equal(latrec_sched_feed(live, &v[fed]), 0);
                assert_int_equal(latrec_sched_feed(lean, &v[fed]), 0);
            }
            /* a mark no record before which is missing: the next record's
             * time, or the last fed one's (its ns may still get more) */
            uint64_t mark = fed < N && rng() % 2 ? v[fed].t_ns : v[fed - 1].t_ns;
            /* what the live model knows: the records before the mark (those
             * of the mark's own ns wait: more of them may come) */
            size_t known = fed;
            while (known > 0 && v[known - 1].t_ns >= mark) known--;
            if (known == 0) continue;
            const uint64_t upto = v[known - 1].t_ns;
            assert_int_equal(latrec_sched_settle(live, mark), 0);
            assert_int_equal(latrec_sched_settle(lean, mark), 0);
            latrec_sched_model *so_far = build(v, known);
            same_threads(so_far, live);
            same_splits(so_far, live, 40, upto, 30000);
            /* lean lets go of what ended 60 us before: the windows after are the same */
            if (upto > 60000) latrec_sched_forget(lean, upto - 60000);
            same_threads(so_far, lean);
            same_splits(so_far, lean, 40, upto, 30000);
            latrec_sched_model_free(so_far);
        }
        /* lean holds the last stretch only */
        size_t n_live = 0, n_lean = 0;
        for (size_t k = 0; k < latrec_sched_n_threads(live); k++) {
            latrec_sched_thread a, b;
            latrec_sched_thread_info(live, k, &a);
            latrec_sched_thread_info(lean, k, &b);
            n_live += a.n_intervals;
            n_lean += b.n_intervals;
        }
        assert_true(n_lean * 20 < n_live);
        latrec_sched_model_free(lean);
        assert_int_equal(latrec_sched_finish(live), 0);
        assert_int_equal(latrec_sched_settle(live, v[N - 1].t_ns + 1), -1); /* finished */
        same_splits(full, live, 200, v[N - 1].t_ns, v[N - 1].t_ns);
        latrec_sched_model_free(full);
        latrec_sched_model_free(live);
    }
    free(v);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_random_sum_invariant),
        cmocka_unit_test(test_settle_live),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
