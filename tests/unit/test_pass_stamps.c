/* The first-stage stamps of a pass by process handed over in time order
 * (engine/pass_stamps.c): logs of random stamps, each in time order, with
 * runs of equal stamps in one log and across logs (the cut falls among
 * them too). On one thread every stamp goes to first_stage in the order of
 * all of them sorted; on two, the stamps before the cut go to first_stage
 * and the rest to a part made with the last stamp before the cut, so that
 * the two parts put end to end are that same order, the first holding
 * 1 + k chunk stamps, k = (n - 1) / chunk / 2 (a whole number of chunks of
 * gaps, about half of them). A log's marks find the stamps at or before a
 * time as reading it from its start does. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "engine/pass_stamps.h"
#include "rng.h"

#define MAX_STAMPS (1u << 18)

struct got {
    uint64_t t[MAX_STAMPS];
    size_t n;
};

static struct got first_got, part_got;
static uint64_t part_prev;
static int parts_made, parts_folded;

static void to_first(void *ctx, latrec_leg_table *t, uint64_t t_ns)
{
    (void)ctx;
    (void)t;
    assert_true(first_got.n < MAX_STAMPS);
    first_got.t[first_got.n++] = t_ns;
}

static void *part_new(void *ctx, const latrec_leg_table *t, uint64_t prev)
{
    (void)ctx;
    (void)t;
    part_prev = prev;
    parts_made++;
    return &part_got;
}

static void to_part(void *part, uint64_t t_ns)
{
    struct got *g = part;
    assert_true(g->n < MAX_STAMPS);
    g->t[g->n++] = t_ns;
}

static int part_fold(void *ctx, latrec_leg_table *t, void *part)
{
    (void)ctx;
    (void)t;
    assert_ptr_equal(part, &part_got);
    parts_folded++;
    return 0;
}

static int cmp_u64(const void *a, const void *b)
{
    const uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* n_logs logs of about per_log stamps each, steps 0..max_step ns (0: an
 * equal stamp), from a start of their own below 1000 ns; all of them
 * sorted in *all. */
static size_t make_logs(struct stamp_log *logs, int n_logs, size_t per_log, uint64_t max_step, uint64_t *all,
                        uint64_t seed)
{
    rng_state = seed;
    size_t n = 0;
    for (int i = 0; i < n_logs; i++) {
        memset(&logs[i], 0, sizeof(logs[i]));
        uint64_t t = rng() % 1000;
        const size_t k = per_log / 2 + rng() % per_log;
        for (size_t j = 0; j < k; j++) {
            t += rng() % (max_step + 1);
            assert_int_equal(latrec_stamp_log_put(&logs[i], t), 0);
            all[n++] = t;
        }
    }
    qsort(all, n, sizeof(*all), cmp_u64);
    return n;
}

static void replay_case(int n_logs, size_t per_log, uint64_t max_step, size_t chunk, int two, uint64_t seed)
{
    static struct stamp_log logs[16];
    static uint64_t all[MAX_STAMPS];
    const size_t n = make_logs(logs, n_logs, per_log, max_step, all, seed);
    assert_true(n <= MAX_STAMPS);
    latrec_pass *p = calloc(1, sizeof(*p));
    assert_non_null(p);
    p->sinks.first_stage = to_first;
    p->sinks.first_stage_chunk = chunk;
    p->sinks.first_stage_part = part_new;
    p->sinks.part_first_stage = to_part;
    p->sinks.first_stage_fold = part_fold;
    const struct stamp_log *lp[16];
    for (int i = 0; i < n_logs; i++) lp[i] = &logs[i];
    first_got.n = part_got.n = 0;
    parts_made = parts_folded = 0;
    assert_int_equal(latrec_stamps_replay(p, NULL, lp, (size_t)n_logs, two), 0);
    assert_int_equal(first_got.n + part_got.n, n);
    assert_int_equal(parts_made, parts_folded);
    if (two) {
        assert_int_equal(parts_made, 1);
        assert_int_equal(first_got.n, 1 + (n - 1) / chunk / 2 * chunk);
        assert_int_equal(part_prev, first_got.t[first_got.n - 1]);
    } else {
        assert_int_equal(parts_made, 0);
    }
    assert_memory_equal(first_got.t, all, first_got.n * sizeof(*all));
    assert_memory_equal(part_got.t, all + first_got.n, part_got.n * sizeof(*all));
    /* the marks: the stamps at or before a time */
    for (int q = 0; q < 50; q++) {
        const uint64_t v = all[(size_t)q * (n - 1) / 49] + (uint64_t)(q % 3) - 1;
        uint64_t want = 0, got = 0;
        for (size_t j = 0; j < n; j++) want += all[j] <= v;
        for (int i = 0; i < n_logs; i++) got += latrec_stamp_log_upto(&logs[i], v);
        assert_int_equal(got, want);
    }
    for (int i = 0; i < n_logs; i++) latrec_stamp_log_free(&logs[i]);
    free(p);
}

/* One thread: every stamp to first_stage, in order. */
static void test_one_thread(void **state)
{
    (void)state;
    replay_case(4, 20000, 3000, 1000, 0, 1);
}

/* Two threads, gaps wide (few equal stamps) and narrow (steps of 0..2 ns:
 * the cut among equal stamps of several logs), 4 and 16 logs. */
static void test_two_threads(void **state)
{
    (void)state;
    replay_case(4, 20000, 3000, 1000, 1, 2);
    replay_case(16, 8000, 40000, 1000, 1, 3);
    for (uint64_t seed = 10; seed < 20; seed++) replay_case(5, 9000, 2, 1000, 1, seed);
    replay_case(3, 10000, 1, 7, 1, 4);
    replay_case(1, 40000, 1, 1000, 1, 5);
}

/* Few stamps: on one thread all the same, the part never made. */
static void test_few(void **state)
{
    (void)state;
    static struct stamp_log logs[2];
    static uint64_t all[MAX_STAMPS];
    const size_t n = make_logs(logs, 2, 1000, 50, all, 6); /* fewer than 4096 */
    latrec_pass *p = calloc(1, sizeof(*p));
    assert_non_null(p);
    p->sinks.first_stage = to_first;
    p->sinks.first_stage_chunk = 1000;
    p->sinks.first_stage_part = part_new;
    p->sinks.part_first_stage = to_part;
    p->sinks.first_stage_fold = part_fold;
    const struct stamp_log *lp[2] = { &logs[0], &logs[1] };
    first_got.n = part_got.n = 0;
    parts_made = parts_folded = 0;
    assert_int_equal(latrec_stamps_replay(p, NULL, lp, 2, 1), 0);
    assert_int_equal(parts_made, 0);
    assert_int_equal(first_got.n, n);
    assert_memory_equal(first_got.t, all, n * sizeof(*all));
    for (int i = 0; i < 2; i++) latrec_stamp_log_free(&logs[i]);
    free(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_one_thread),
        cmocka_unit_test(test_two_threads),
        cmocka_unit_test(test_few),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
