/*
 * The engine (engine/engine.h) following rings the writer library is still
 * stamping (LATREC_ENGINE_LIVE):
 *   - a writer thread stamps outbound instances with known hops and
 *     payloads while the engine steps: no instance carries a value the
 *     writer did not write (no torn record counted), nothing is fed twice;
 *   - a writer that laps the reader on purpose, between two steps, gets
 *     exactly the slots it overwrote before they were read counted lapped,
 *     per ring in the snapshot;
 *   - the watermark: a ring's records are not overtaken by a newer ring's
 *     while both are written; a ring closed by its writer no longer holds
 *     the others; records older than the lag go out at once (late counted);
 *     a ring that runs dry mid-step is not overtaken by what it stamps next;
 *   - a ring created after the open is picked up;
 * and, read once, a second pass through the engine (report's outlier pass).
 */
#include <stdarg.h>
#include <setjmp.h>
#include <stddef.h>
#include <cmocka.h>

#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <latrec/latrec.h>
#include <latrec/stages.h>

#include "engine/engine.h"
#include "engine/live.h"
#include "test_writer_util.h"

/* ---- the engine under test ------------------------------------------------ */

#define MAX_SEQ (1u << 22)

struct seen {
    uint64_t instances, complete, hits, torn, bad_hops, twice;
    uint8_t *done; /* per seq: a complete instance was fed */
};

static const uint8_t chain[4] = { LATREC_ENQUEUE, LATREC_DEQUEUE, LATREC_ENCODE_E3AP_DONE, LATREC_SEND_DONE };

/* What the writer puts in an instance of seq s: stage k at t0 + off(s, k),
 * aux a function of (s, k), aux2 a function of the stamp. */
static uint64_t off(uint64_t s, int k)
{
    const uint64_t d[4] = { 0, 100 + s % 50, 200 + s % 30, 300 + s % 20 };
    uint64_t o = 0;
    for (int i = 1; i <= k; i++) o += d[i];
    return o;
}
static uint64_t aux_of(uint64_t s, int k) { return s * 0x9E3779B97F4A7C15ull + (uint64_t)k; }
static uint64_t aux2_of(uint64_t t) { return ~(t * 0xC2B2AE3D27D4EB4Full); }

static void stamp_instance(latrec_t *w, uint64_t s, uint64_t t0)
{
    for (int k = 0; k < 4; k++) latrec_stamp_at(w, s, chain[k], aux_of(s, k), aux2_of(t0 + off(s, k)), t0 + off(s, k));
}

static int table_new(void *ctx, latrec_leg_table *t)
{
    (void)ctx;
    (void)t;
    return 0;
}

static void value(void *ctx, latrec_leg_table *t, int hop, int64_t ns, const latrec_instance *inst)
{
    (void)ctx, (void)t, (void)hop, (void)ns, (void)inst;
}

static void instance(void *ctx, latrec_leg_table *t, const latrec_instance *inst)
{
    struct seen *s = ctx;
    (void)t;
    s->instances++;
    int present = 0;
    for (int k = 0; k < 4 && k < inst->n_hits; k++) {
        const latrec_hit *h = &inst->hits[k];
        if (!h->t_ns) continue;
        present++;
        s->hits++;
        if (h->aux != aux_of(inst->seq, k) || h->aux2 != aux2_of(h->t_ns)) s->torn++;
    }
    if (present < 4) return;
    s->complete++;
    for (int k = 1; k < 4; k++)
        if (inst->hits[k].t_ns - inst->hits[0].t_ns != off(inst->seq, k)) s->bad_hops++;
    if (s->done && inst->seq < MAX_SEQ) {
        s->twice += s->done[inst->seq];
        s->done[inst->seq] = 1;
    }
}

static latrec_engine *open_engine(const char *dir, struct seen *s, int flags)
{
    latrec_input_opts o;
    memset(&o, 0, sizeof(o));
    latrec_input_add_dir(&o, dir);
    o.quiet = 1;
    latrec_engine *e = latrec_engine_open(&o, "test", flags);
    assert_non_null(e);
    latrec_pass_opts po;
    memset(&po, 0, sizeof(po));
    latrec_pass_sinks sinks = { .ctx = s, .table_new = table_new, .value = value, .instance = instance };
    assert_int_equal(latrec_engine_start(e, &po, &sinks), 0);
    return e;
}

static latrec_engine *open_live(const char *dir, struct seen *s) { return open_engine(dir, s, LATREC_ENGINE_LIVE); }

/* Step until a step feeds nothing more (a few steps: one feeds what the
 * last poll found, the next polls). */
static void settle(latrec_engine *e)
{
    latrec_engine_snap sn;
    uint64_t before = UINT64_MAX;
    for (int quiet = 0; quiet < 2;) {
        int r;
        while ((r = latrec_engine_step(e, UINT64_MAX)) == LATREC_ENGINE_MORE)
            ;
        assert_int_equal(r, LATREC_ENGINE_IDLE);
        latrec_engine_snapshot(e, &sn);
        quiet = sn.records == before ? quiet + 1 : 0;
        before = sn.records;
    }
}

static latrec_engine_snap snap(latrec_engine *e)
{
    latrec_engine_snap sn;
    latrec_engine_snapshot(e, &sn);
    return sn;
}

/* A stamp time far enough ahead that the watermark's lag never releases
 * anything during the test: only the rings' own stamps move it. */
static uint64_t ahead(void) { return latrec_tnow() + 60000000000ull; }

/* ---- a writer thread stamping while the engine steps ---------------------- */

struct shared {
    latrec_t ring;
    int stop, started;
    uint64_t stamps;
};

static void *writer_main(void *p)
{
    struct shared *w = p;
    uint64_t s = 1, last = 0;
    __atomic_store_n(&w->started, 1, __ATOMIC_RELEASE);
    while (!__atomic_load_n(&w->stop, __ATOMIC_ACQUIRE) && s < MAX_SEQ) {
        for (int k = 0; k < 64; k++, s++) {
            uint64_t t0 = latrec_tnow();
            if (t0 <= last) t0 = last + 1; /* the ring's stamps rise */
            stamp_instance(&w->ring, s, t0);
            last = t0 + off(s, 3);
        }
    }
    w->stamps = 4 * (s - 1);
    return NULL;
}

static void test_writer_stamps_while_engine_steps(void **state)
{
    (void)state;
    char dir[512];
    tw_tmpdir(dir, sizeof(dir), "engine_live");
    static struct shared w;
    memset(&w, 0, sizeof(w));
    assert_int_equal(latrec_open_in(&w.ring, dir, "libe3.outbound.1", 12), 1);
    stamp_instance(&w.ring, 0, latrec_tnow()); /* a ring to open */
    struct seen s = { .done = calloc(MAX_SEQ, 1) };
    assert_non_null(s.done);
    latrec_engine *e = open_live(dir, &s);

    pthread_t th;
    assert_int_equal(pthread_create(&th, NULL, writer_main, &w), 0);
    while (!__atomic_load_n(&w.started, __ATOMIC_ACQUIRE)) sched_yield();
    uint64_t steps = 0, idle = 0;
    const uint64_t end = tw_mono_ns() + 400000000ull; /* about 0.4 s of stamping */
    while (tw_mono_ns() < end) {
        int r = latrec_engine_step(e, 4096);
        assert_int_not_equal(r, LATREC_ENGINE_ERROR);
        steps++;
        if (r == LATREC_ENGINE_IDLE) idle++, sched_yield();
    }
    __atomic_store_n(&w.stop, 1, __ATOMIC_RELEASE);
    pthread_join(th, NULL);
    latrec_close(&w.ring); /* quiet from here: the last poll is exact */
    assert_int_equal(latrec_engine_finish(e), 0);
    latrec_engine_snap sn = snap(e);
    const uint64_t stamps = w.stamps + 4;
    print_message("%llu stamps while %llu steps (%llu idle): %llu records read, %llu lapped, %llu lost at open; "
                  "%llu instances (%llu complete), %llu torn, %llu fed twice, %llu late\n",
                  (unsigned long long)stamps, (unsigned long long)steps, (unsigned long long)idle,
                  (unsigned long long)sn.records, (unsigned long long)sn.totals.lapped,
                  (unsigned long long)sn.totals.lost, (unsigned long long)s.instances,
                  (unsigned long long)s.complete, (unsigned long long)s.torn, (unsigned long long)s.twice,
                  (unsigned long long)sn.late);
    assert_true(sn.records > 0);
    assert_int_equal(s.torn, 0);
    assert_int_equal(s.bad_hops, 0);
    assert_int_equal(s.twice, 0);
    assert_int_equal(sn.late, 0); /* one ring: its own write order */
    assert_int_equal(sn.n_rings, 1);
    assert_int_equal(sn.rings[0].written, stamps);
    assert_true(sn.records + sn.totals.lapped <= stamps);
    latrec_engine_close(e);
    free(s.done);
    tw_rm_rf(dir);
}

/* ---- lapping on purpose ----------------------------------------------------- */

/* A 16-slot ring holding 16 records when the engine opens it. The engine
 * takes `k` of them (k < 15: the merge has read two more, its head and
 * the record after it, read/merge.c), the writer then stamps `m` more, the
 * engine reads on. */
static void lap(int k, uint64_t m, uint64_t want_read, uint64_t want_lapped)
{
    char dir[512];
    tw_tmpdir(dir, sizeof(dir), "engine_lap");
    latrec_t w;
    assert_int_equal(latrec_open_in(&w, dir, "libe3.outbound.1", 4), 1);
    const uint64_t base = ahead();
    for (uint64_t i = 0; i < 16; i++) latrec_stamp_at(&w, i + 1, LATREC_ENQUEUE, i, 0, base + 1000 * i);
    struct seen s = { 0 };
    latrec_engine *e = open_live(dir, &s);
    if (k < 16) assert_int_equal(latrec_engine_step(e, (uint64_t)k), LATREC_ENGINE_MORE);
    else settle(e);
    assert_int_equal(snap(e).records, (uint64_t)k);
    for (uint64_t i = 16; i < 16 + m; i++) latrec_stamp_at(&w, i + 1, LATREC_ENQUEUE, i, 0, base + 1000 * i);
    settle(e);
    latrec_engine_snap sn = snap(e);
    print_message("read %d, wrote %llu: %llu read in all, %llu lapped\n", k, (unsigned long long)m,
                  (unsigned long long)sn.records, (unsigned long long)sn.rings[0].lapped);
    assert_int_equal(sn.records, want_read);
    assert_int_equal(sn.rings[0].lapped, want_lapped);
    assert_int_equal(sn.totals.lapped, want_lapped);
    assert_int_equal(sn.rings[0].written, 16 + m);
    assert_int_equal(sn.records + want_lapped, 16 + m);
    assert_int_equal(sn.last_t_ns, base + 1000 * (16 + m - 1));
    latrec_engine_close(e);
    latrec_close(&w);
    tw_rm_rf(dir);
}

static void test_lap_after_a_whole_read(void **state)
{
    (void)state;
    lap(16, 9, 25, 0);  /* within a ring of the reader: nothing lost */
    lap(16, 16, 32, 0); /* exactly one ring */
    lap(16, 20, 32, 4); /* records 16..19 overwritten by 32..35 before read */
    lap(16, 40, 32, 24);
}

static void test_lap_in_the_middle_of_a_read(void **state)
{
    (void)state;
    /* 7 positions read (5 fed, the merge's head and the record after it),
     * the writer rewrites slots 0..8: positions 7..8 were still unread */
    lap(5, 9, 23, 2);
    /* slots 7..15 rewritten (9), then the writer is a ring and a half
     * ahead: records 16..39 never reachable (24) */
    lap(5, 40, 23, 33);
}

/* ---- the watermark ---------------------------------------------------------- */

/* Rings a (t + 10 us, t + 20 us) and b (t + 5 us), both still open, and a
 * live engine over them. */
static latrec_engine *two_rings(char *dir, size_t len, const char *tag, latrec_t *a, latrec_t *b, uint64_t t,
                                struct seen *s)
{
    tw_tmpdir(dir, len, tag);
    assert_int_equal(latrec_open_in(a, dir, "libe3.outbound.1", 6), 1);
    assert_int_equal(latrec_open_in(b, dir, "libe3.outbound.2", 6), 1);
    latrec_stamp_at(a, 1, LATREC_ENQUEUE, 0, 0, t + 10000);
    latrec_stamp_at(a, 2, LATREC_ENQUEUE, 0, 0, t + 20000);
    latrec_stamp_at(b, 3, LATREC_ENQUEUE, 0, 0, t + 5000);
    return open_live(dir, s);
}

static void test_watermark_holds_newer_records(void **state)
{
    (void)state;
    char dir[512];
    latrec_t a, b;
    const uint64_t t = ahead();
    struct seen s = { 0 };
    latrec_engine *e = two_rings(dir, sizeof(dir), "engine_mark", &a, &b, t, &s);
    settle(e);
    latrec_engine_snap sn = snap(e);
    /* b is still written and its newest is t + 5 us: a's are held */
    assert_int_equal(sn.records, 1);
    assert_int_equal(sn.last_t_ns, t + 5000);
    assert_int_equal(sn.watermark, t + 5000);
    latrec_stamp_at(&b, 4, LATREC_ENQUEUE, 0, 0, t + 15000);
    settle(e);
    sn = snap(e);
    assert_int_equal(sn.records, 3); /* a's t + 10 us, then b's t + 15 us */
    assert_int_equal(sn.last_t_ns, t + 15000);
    latrec_close(&b); /* b says it is done: a's newest goes out */
    settle(e);
    sn = snap(e);
    assert_int_equal(sn.records, 4);
    assert_int_equal(sn.last_t_ns, t + 20000);
    assert_int_equal(sn.late, 0);
    assert_true(sn.rings[1].closed);
    assert_false(sn.rings[0].closed);
    latrec_engine_close(e);
    latrec_close(&a);
    tw_rm_rf(dir);
}

static void test_records_older_than_the_lag_go_out(void **state)
{
    (void)state;
    char dir[512];
    latrec_t a, b;
    const uint64_t t = latrec_tnow() - 2 * LATREC_LIVE_LAG_NS;
    struct seen s = { 0 };
    latrec_engine *e = two_rings(dir, sizeof(dir), "engine_lag", &a, &b, t, &s);
    settle(e);
    assert_int_equal(snap(e).records, 3); /* older than the lag: not held by b */
    latrec_stamp_at(&b, 4, LATREC_ENQUEUE, 0, 0, t + 15000);
    settle(e);
    latrec_engine_snap sn = snap(e);
    assert_int_equal(sn.records, 4);
    assert_int_equal(sn.late, 1); /* b's t + 15 us came after a's t + 20 us */
    latrec_engine_close(e);
    latrec_close(&a);
    latrec_close(&b);
    tw_rm_rf(dir);
}

/* Old stamps (the lag would release them all): ring a runs dry in the
 * middle of a step while its writer goes on; what it stamps next must not
 * be overtaken by ring b's newer records still in the merge. */
static void test_ring_dry_mid_step_is_not_overtaken(void **state)
{
    (void)state;
    char dir[512];
    tw_tmpdir(dir, sizeof(dir), "engine_dry");
    latrec_t a, b;
    assert_int_equal(latrec_open_in(&a, dir, "libe3.outbound.1", 6), 1);
    assert_int_equal(latrec_open_in(&b, dir, "libe3.outbound.2", 6), 1);
    const uint64_t t = latrec_tnow() - 10 * LATREC_LIVE_LAG_NS;
    latrec_stamp_at(&a, 1, LATREC_ENQUEUE, 0, 0, t + 1000);
    latrec_stamp_at(&a, 2, LATREC_ENQUEUE, 0, 0, t + 2000);
    for (uint64_t i = 3; i <= 10; i++) latrec_stamp_at(&b, i, LATREC_ENQUEUE, 0, 0, t + 1000 * i);
    struct seen s = { 0 };
    latrec_engine *e = open_live(dir, &s);
    /* a's t + 1 us fed, a not dry; then its writer goes on */
    assert_int_equal(latrec_engine_step(e, 1), LATREC_ENGINE_MORE);
    latrec_stamp_at(&a, 11, LATREC_ENQUEUE, 0, 0, t + 5500);
    settle(e);
    latrec_engine_snap sn = snap(e);
    assert_int_equal(sn.records, 11);
    assert_int_equal(sn.late, 0); /* t + 5.5 us came before b's t + 6 us */
    assert_int_equal(sn.last_t_ns, t + 10000);
    latrec_engine_close(e);
    latrec_close(&a);
    latrec_close(&b);
    tw_rm_rf(dir);
}

/* ---- a ring that appears -------------------------------------------------- */

static void test_new_ring_is_picked_up(void **state)
{
    (void)state;
    char dir[512];
    tw_tmpdir(dir, sizeof(dir), "engine_new");
    latrec_t a, b;
    assert_int_equal(latrec_open_in(&a, dir, "libe3.outbound.1", 6), 1);
    const uint64_t t = ahead();
    for (int i = 1; i <= 3; i++) latrec_stamp_at(&a, (uint64_t)i, LATREC_ENQUEUE, 0, 0, t + 1000 * (uint64_t)i);
    struct seen s = { 0 };
    latrec_engine *e = open_live(dir, &s);
    settle(e);
    assert_int_equal(snap(e).records, 3);
    assert_int_equal(latrec_open_in(&b, dir, "libe3.outbound.2", 6), 1);
    latrec_stamp_at(&b, 10, LATREC_ENQUEUE, 0, 0, t + 5000);
    latrec_stamp_at(&b, 11, LATREC_ENQUEUE, 0, 0, t + 6000);
    /* the directory is looked at again within LATREC_LIVE_RESCAN_NS */
    latrec_engine_snap sn = snap(e);
    for (int i = 0; i < 1000 && sn.n_rings < 2; i++) {
        struct timespec ts = { 0, 10000000 };
        nanosleep(&ts, NULL);
        assert_int_equal(latrec_engine_step(e, UINT64_MAX), LATREC_ENGINE_IDLE);
        sn = snap(e);
    }
    assert_int_equal(sn.n_rings, 2);
    assert_true(sn.rings[1].ok);
    assert_string_equal(sn.rings[1].name, "libe3.outbound.2");
    /* a is idle at t + 3 us and still written: b's records wait for it */
    assert_int_equal(sn.records, 3);
    latrec_stamp_at(&a, 4, LATREC_ENQUEUE, 0, 0, t + 7000);
    settle(e);
    sn = snap(e);
    assert_int_equal(sn.rings[1].records, 2);
    assert_int_equal(sn.records, 5); /* a's t + 7 us held: b's newest is t + 6 us */
    assert_int_equal(sn.late, 0);
    assert_int_equal(latrec_engine_finish(e), 0); /* the rest, without watermark */
    sn = snap(e);
    assert_int_equal(sn.records, 6);
    assert_int_equal(sn.rings[0].records, 4);
    latrec_engine_close(e);
    latrec_close(&a);
    latrec_close(&b);
    tw_rm_rf(dir);
}

/* A second pass (latrec_engine_run_again, report's outlier pass) over a
 * run read once feeds every instance again, to its own sinks, and leaves
 * the first pass the engine's; a LIVE engine refuses it. */
static void test_second_pass_through_the_engine(void **state)
{
    (void)state;
    char dir[512];
    tw_tmpdir(dir, sizeof(dir), "engine_again");
    latrec_t w;
    assert_int_equal(latrec_open_in(&w, dir, "libe3.outbound.1", 10), 1);
    const uint64_t t0 = ahead();
    for (uint64_t q = 1; q <= 200; q++) stamp_instance(&w, q, t0 + q * 10000);
    latrec_close(&w);
    struct seen first = { 0 }, second = { 0 };
    latrec_engine *e = open_engine(dir, &first, 0);
    latrec_pass_opts po;
    memset(&po, 0, sizeof(po));
    latrec_pass_sinks s2 = { .ctx = &second, .table_new = table_new, .value = value, .instance = instance };
    assert_int_equal(latrec_engine_run_again(e, &po, &s2), -1); /* the first has not ended */
    assert_int_equal(latrec_engine_run(e), 0);
    latrec_pass *p = latrec_engine_pass(e);
    assert_int_equal(latrec_engine_run_again(e, &po, &s2), 0);
    assert_ptr_equal(latrec_engine_pass(e), p);
    assert_int_equal(first.complete, 200);
    assert_int_equal(second.complete, 200);
    assert_int_equal(second.bad_hops + second.torn, 0);
    latrec_engine_close(e);
    struct seen l = { 0 };
    e = open_live(dir, &l);
    assert_int_equal(latrec_engine_finish(e), 0);
    assert_int_equal(latrec_engine_run_again(e, &po, &s2), -1);
    assert_int_equal(second.complete, 200);
    latrec_engine_close(e);
    tw_rm_rf(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_writer_stamps_while_engine_steps),
        cmocka_unit_test(test_lap_after_a_whole_read),
        cmocka_unit_test(test_lap_in_the_middle_of_a_read),
        cmocka_unit_test(test_watermark_holds_newer_records),
        cmocka_unit_test(test_records_older_than_the_lag_go_out),
        cmocka_unit_test(test_ring_dry_mid_step_is_not_overtaken),
        cmocka_unit_test(test_new_ring_is_picked_up),
        cmocka_unit_test(test_second_pass_through_the_engine),
    };
    return cmocka_run_group_tests_name("engine_live", tests, NULL, NULL);
}
