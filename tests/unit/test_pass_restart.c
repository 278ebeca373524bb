/* Passes that cannot be read by process start over when a ring opened by
 * the guess (engine/input.h) was wrong, and give what the scan gives:
 *   - convert's shape: no sinks, taps on every record and every ended
 *     instance, with taps.restart (engine/pass.h), run to its end
 *     (latrec_engine_run) on one thread and on two;
 *   - top's shape: latrec_top_sinks (cli/top_model.c, compiled in) fed by
 *     latrec_engine_step to the end of the stream, then finished.
 * Over rings of two processes (an oai and a libe3.outbound thread each)
 * that say their writer closed them cleanly: every tap call in order, and
 * top's rows, are those of the same rings scanned at open; the pass starts
 * over exactly once when a guess is wrong (a slot never published, one
 * record stamped a second early, two of them: not a single-writer ring)
 * and never when every guess holds; the rings whose guess held are
 * VERIFIED, the wrong one SCANNED. Taps without restart have every ring
 * scanned before the pass reads. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "cli/top_model.h"
#include "engine/engine.h"
#include "engine/pass.h"
#include "latrec/stages.h"
#include "ringgen.h"

#define T0 2000000000ull
#define PROCS 2
#define MSGS 3000 /* per process, 20 us apart */
#include "pass_rings.h" /* after PROCS */
enum { CLEAN = 0, TORN = 1, EARLY = 2, TWO_WRITERS = 4 };

/* Message i of process p at T0 + i * 20 us + p * 3 us: ENQUEUE on oai,
 * DEQUEUE, ENCODE_E3AP_DONE and SEND_DONE on libe3.outbound (every 17th
 * without SEND_DONE). Process 1's libe3.outbound ring: TORN, the
 * SEND_DONE of message 1501 never published (payload, t_ns 0); EARLY, the
 * ENCODE_E3AP_DONE of message 1000 stamped a second early; TWO_WRITERS,
 * those of messages 1000 and 2000 (two descents). */
static void write_rings(int flags)
{
    rings_dir("pass_restart");
    for (int p = 0; p < PROCS; p++) {
        ringgen g[2];
        proc_rings_init(g, p, 1u << 14);
        for (uint64_t i = 1; i <= MSGS; i++) {
            const uint64_t t = T0 + i * 20000 + (uint64_t)p * 3000;
            const uint64_t d = t + 2000 + (i * 7919) % 500;
            ringgen_stamp(&g[0], i, 0, LATREC_ENQUEUE, t, 0, 0);
            ringgen_stamp(&g[1], i, 1, LATREC_DEQUEUE, d, 0, 0);
            const int early =
                p == 1 && (((flags & (EARLY | TWO_WRITERS)) && i == 1000) || ((flags & TWO_WRITERS) && i == 2000));
            ringgen_stamp(&g[1], i, 1, LATREC_ENCODE_E3AP_DONE, early ? d - 1000000000 : d + 900 + i % 11, 64, 0);
            if (i % 17) ringgen_stamp(&g[1], i, 1, LATREC_SEND_DONE, d + 1500 + i % 7, 0, 0);
            if ((flags & TORN) && p == 1 && i == 1501)
                ringgen_set_rec(&g[1], (g[1].next - 1) & (g[1].entries - 1), i, 1, LATREC_SEND_DONE, 0, 0, 0);
        }
        proc_rings_write(g, p);
    }
}

/* ---- convert's shape: the taps ---------------------------------------------- */

/* One tap call: a record or an ended instance. */
struct call {
    uint32_t ring;
    int32_t leg;
    uint64_t t_ns, stamped, pos, sc;
    uint64_t first_t, seq;
    uint32_t n_hits, complete;
};

/* The calls of each tap in order: [0] records, [1] ended instances (on
 * threads the record tap runs on the builder's thread, the ended tap on
 * the calling one: a log each). */
struct taps_log {
    struct call *c[2];
    size_t n[2], cap[2];
    int restarts, fresh_ok;
    latrec_pass *fresh;
};

static void put(struct taps_log *l, int k, const struct call *c)
{
    if (l->n[k] == l->cap[k]) {
        l->cap[k] = l->cap[k] ? l->cap[k] * 2 : 8192;
        assert_non_null(l->c[k] = realloc(l->c[k], l->cap[k] * sizeof(*l->c[k])));
    }
    l->c[k][l->n[k]++] = *c;
}

static void on_record(void *ctx, const latrec_merged *ev, int leg)
{
    const struct call c = {
        .ring = ev->ring, .leg = leg, .t_ns = ev->t_ns, .stamped = ev->rec.t_ns, .pos = ev->pos, .sc = ev->rec.sc
    };
    put(ctx, 0, &c);
}

static void on_ended(void *ctx, const latrec_instance *inst)
{
    const struct call c = { .leg = inst->leg,
                            .first_t = inst->first_t,
                            .seq = inst->seq,
                            .n_hits = (uint32_t)inst->n_hits,
                            .complete = (uint32_t)inst->complete };
    put(ctx, 1, &c);
}

static int on_taps_restart(void *ctx, latrec_pass *fresh)
{
    struct taps_log *l = ctx;
    l->restarts++;
    l->n[0] = l->n[1] = 0;
    l->fresh = fresh;
    l->fresh_ok = fresh != NULL && latrec_pass_fed(fresh) == 0 && latrec_pass_legs(fresh) != NULL;
    return 0;
}

struct outcome {
    int derived[2 * PROCS]; /* per ring: enum latrec_ring_derived after the pass */
    uint64_t records;
};

static latrec_engine *open_engine(int guess, int threads)
{
    latrec_input_opts io;
    memset(&io, 0, sizeof(io));
    io.quiet = 1;
    io.guess = guess;
    io.threads = threads;
    latrec_input_add_dir(&io, dir);
    latrec_engine *e = latrec_engine_open(&io, "test", 0);
    assert_non_null(e);
    return e;
}

static void outcome_get(latrec_engine *e, struct outcome *o)
{
    const latrec_input *in = latrec_engine_input(e);
    assert_int_equal(in->set.n, 2 * PROCS);
    assert_int_equal(in->guessed, 0); /* none left unchecked */
    for (size_t i = 0; i < in->set.n; i++) o->derived[i] = in->set.rings[i].derived;
    o->records = in->records;
}

/* The taps over the whole stream; with_restart: taps.restart set. */
static void run_taps(struct taps_log *l, struct outcome *o, int guess, int threads, int with_restart)
{
    memset(l, 0, sizeof(*l));
    latrec_engine *e = open_engine(guess, threads);
    const latrec_pass_opts po = { .no_legs = 1, .no_warnings = 1 };
    const latrec_pass_sinks sinks = { .ctx = l };
    assert_int_equal(latrec_engine_start(e, &po, &sinks), 0);
    const latrec_pass_taps taps = {
        .ctx = l, .ended = on_ended, .record = on_record, .restart = with_restart ? on_taps_restart : NULL
    };
    latrec_pass_tap(latrec_engine_pass(e), &taps);
    assert_int_equal(latrec_engine_run(e), 0);
    if (l->restarts) assert_ptr_equal(latrec_engine_pass(e), l->fresh); /* the pass is the new one */
    outcome_get(e, o);
    latrec_engine_close(e);
}

/* ---- top's shape: latrec_top_sinks, stepped ------------------------------------ */

struct top_figs {
    int n_rows, restarts;
    char name[8][sizeof(((latrec_top_row *)0)->name) + sizeof(((latrec_top_row *)0)->hop) + 1];
    latrec_top_fig all[8];
    uint64_t regressions;
};

/* top's restart, counted. */
static latrec_pass_sinks top_sinks;
static int top_restarts;

static void counted_restart(void *ctx, latrec_leg_table **tables, int n)
{
    top_restarts++;
    top_sinks.restart(ctx, tables, n);
}

static void run_top(struct top_figs *f, struct outcome *o, int guess)
{
    memset(f, 0, sizeof(*f));
    latrec_engine *e = open_engine(guess, 1);
    latrec_pass_opts po;
    memset(&po, 0, sizeof(po));
    po.paths = 1;
    latrec_top t;
    latrec_top_init(&t, latrec_engine_input(e), &po);
    top_sinks = latrec_top_sinks(&t);
    assert_non_null(top_sinks.restart);
    latrec_pass_sinks sinks = top_sinks;
    sinks.restart = counted_restart;
    top_restarts = 0;
    assert_int_equal(latrec_engine_start(e, &po, &sinks), 0);
    int st;
    while ((st = latrec_engine_step(e, 1000)) == LATREC_ENGINE_MORE)
        ;
    assert_int_equal(st, LATREC_ENGINE_END);
    f->restarts = top_restarts;
    assert_int_equal(latrec_engine_finish(e), 0);
    assert_false(t.oom);
    assert_true(t.n_rows <= 8);
    f->n_rows = t.n_rows;
    for (int r = 0; r < t.n_rows; r++) {
        snprintf(f->name[r], sizeof(f->name[r]), "%s %s", t.rows[r].name, t.rows[r].hop);
        latrec_top_fig_get(&t, r, LATREC_TOP_ALL, &f->all[r]);
    }
    f->regressions = t.regressions;
    outcome_get(e, o);
    latrec_top_release_tables(latrec_engine_pass(e));
    latrec_top_free(&t);
    latrec_engine_close(e);
}

/* ---- the cases ------------------------------------------------------------------ */

static void same_taps(const struct taps_log *a, const struct taps_log *b)
{
    for (int k = 0; k < 2; k++) {
        assert_int_equal(a->n[k], b->n[k]);
        for (size_t i = 0; i < a->n[k]; i++) assert_memory_equal(&a->c[k][i], &b->c[k][i], sizeof(a->c[k][i]));
    }
}

/* wrong: the ring whose guess is wrong (-1: none); records: what the rings
 * hold. */
static void check(int flags, int wrong, uint64_t records)
{
    write_rings(flags);
    struct taps_log scan, g1, g2, plain;
    struct outcome os, o1, o2, op;
    run_taps(&scan, &os, 0, 1, 1);
    run_taps(&g1, &o1, 1, 1, 1);
    run_taps(&g2, &o2, 1, 2, 1);
    run_taps(&plain, &op, 1, 1, 0);
    struct top_figs ts, tg;
    struct outcome ots, otg;
    run_top(&ts, &ots, 0);
    run_top(&tg, &otg, 1);
    remove_rings();

    assert_int_equal(os.records, records);
    assert_int_equal(scan.n[0], records);
    assert_int_equal(scan.n[1], PROCS * MSGS);
    same_taps(&scan, &g1);
    same_taps(&scan, &g2);
    same_taps(&scan, &plain);
    assert_int_equal(scan.restarts, 0);
    assert_int_equal(plain.restarts, 0);
    assert_int_equal(g1.restarts, wrong >= 0);
    assert_int_equal(g2.restarts, wrong >= 0);
    if (wrong >= 0) assert_true(g1.fresh_ok && g2.fresh_ok);
    for (int i = 0; i < 2 * PROCS; i++) {
        assert_int_equal(os.derived[i], LATREC_RING_SCANNED);
        assert_int_equal(op.derived[i], LATREC_RING_SCANNED); /* cannot start over: scanned first */
        const int want = i == wrong ? LATREC_RING_SCANNED : LATREC_RING_VERIFIED;
        assert_int_equal(o1.derived[i], want);
        assert_int_equal(o2.derived[i], want);
        assert_int_equal(otg.derived[i], want);
    }
    assert_int_equal(o1.records, records);
    assert_int_equal(o2.records, records);

    assert_int_equal(ts.restarts, 0);
    assert_int_equal(tg.restarts, wrong >= 0);
    assert_int_equal(ts.n_rows, tg.n_rows);
    assert_true(ts.n_rows >= 1);
    assert_int_equal(ts.regressions, tg.regressions);
    for (int r = 0; r < ts.n_rows; r++) {
        assert_string_equal(ts.name[r], tg.name[r]);
        assert_memory_equal(&ts.all[r], &tg.all[r], sizeof(ts.all[r]));
    }
    assert_int_equal(ots.records, records);
    assert_int_equal(otg.records, records);
    for (int k = 0; k < 2; k++) {
        free(scan.c[k]);
        free(g1.c[k]);
        free(g2.c[k]);
        free(plain.c[k]);
    }
}

/* records per process: MSGS ENQUEUE, DEQUEUE, ENCODE_E3AP_DONE, and the
 * SEND_DONEs */
#define RECORDS (PROCS * (3ull * MSGS + MSGS - MSGS / 17))

static void test_clean(void **state)
{
    (void)state;
    check(CLEAN, -1, RECORDS);
}

/* Rings in set order: libe3.outbound.101, libe3.outbound.111, oai.100,
 * oai.110; process 1's libe3.outbound ring is index 1. */
static void test_torn(void **state)
{
    (void)state;
    check(TORN, 1, RECORDS - 1); /* known at the end of the stream: one record fewer */
}

static void test_early(void **state)
{
    (void)state;
    check(EARLY, 1, RECORDS); /* known when its stamps go down */
}

static void test_two_writers(void **state)
{
    (void)state;
    check(TWO_WRITERS, 1, RECORDS);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_clean),
        cmocka_unit_test(test_torn),
        cmocka_unit_test(test_early),
        cmocka_unit_test(test_two_writers),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
