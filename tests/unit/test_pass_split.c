/* A pass read by process (engine/pass_split.c) gives the figures of the
 * pass in time order: over ringgen runs of 4 processes (an oai and a
 * libe3.outbound thread each, the outbound leg: ENQUEUE on oai, the rest on
 * libe3.outbound; every 17th message without SEND_DONE, cut by the leg
 * horizon or ended at the end), a run with sinks that may restart (on 1
 * and 2 threads) and one without (in time order) must give the same values
 * per (table, hop) as multisets, the same tables, counts and stream counts.
 * The clean run and one with DROPs joining their instances are read by
 * process (values reach the sinks through per-thread parts, and no
 * restart), and so is a run of two legs (two tables, made in another
 * order: compared by name); a DROP of no open instance (an extra of
 * several legs placed by what its role stamped in any process) and a ring
 * out of time order each make the pass read in time order: at
 * once when they come among the first records (the pass looks at those
 * first), else after a run by process that gives up and restarts. The
 * same runs with the rings opened by the guess (engine/input.h): read by
 * process, each ring's guess holds; a slot never published (TORN) makes
 * the guess wrong, and the pass starts over in time order on the rings
 * scanned, with the same figures. The counts are also checked against
 * what the rings hold. */
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

#include "engine/engine.h"
#include "engine/pass.h"
#include "latrec/stages.h"
#include "ringgen.h"

#define T0 2000000000ull
#define PROCS 4
#define MSGS 6000 /* per process, 20 us apart */
#define HORIZON 20000000ull
#include "pass_rings.h" /* after PROCS */
enum { CLEAN = 0, DROPS = 1, TWO_LEGS = 2, DISORDER = 4, LONE_DROPS = 8, LATE = 16, EARLY_END = 32, TORN = 64 };
/* What the run with restart sinks does: read by process, in time order at
 * once (the look at the first records saw why), or by process until it
 * gives up and starts over in time order. */
enum { BY_PROCESS, IN_ORDER, RESTARTED };

/* Where the anomalies below start: early (the pass's look at the first
 * 65536 records sees them) or LATE (after them: 4 processes stamp about 15
 * records per 20 us). */
static uint64_t from(int flags)
{
    return flags & LATE ? MSGS - 200 : MSGS / 10;
}

/* Message i of process p at T0 + i * 20 us + p * 3 us (see above); DROPS:
 * every 13th has a DROP (joining its instance, in grace); LONE_DROPS: one
 * DROP of a seq of its own per process (an instance of the first leg its
 * role stamped); TWO_LEGS: every 5th is also received (RECV,
 * DECODE_E3AP_DONE on oai, seqs of their own); DISORDER: process 2's
 * libe3.outbound ring has one record stamped before the one before it;
 * EARLY_END: every process but the first sends one more message two leg
 * horizons after the rest (the first's last open instances are cut by the
 * horizon in time order); TORN: process 1's SEND_DONE of message 3001
 * was never published (its slot holds the payload, t_ns 0). Every ring
 * says its writer closed it cleanly, so that a pass that opens rings by
 * the guess (engine/input.h) does not scan them at open. */
static void write_rings(int flags)
{
    rings_dir("pass_split");
    for (int p = 0; p < PROCS; p++) {
        ringgen g[2];
        proc_rings_init(g, p, 1u << 15);
        for (uint64_t i = 1; i <= MSGS; i++) {
            const uint64_t t = T0 + i * 20000 + (uint64_t)p * 3000;
            const uint64_t d = t + 2000 + (i * 7919) % 500;
            ringgen_stamp(&g[0], i, 0, LATREC_ENQUEUE, t, 0, 0);
            if ((flags & TWO_LEGS) && i % 5 == 0 && i >= from(flags)) {
                ringgen_stamp(&g[0], 1000000 + i, 0, LATREC_RECV, t + 300, 0, 0);
                ringgen_stamp(&g[0], 1000000 + i, 0, LATREC_DECODE_E3AP_DONE, t + 700 + i % 9, 0, 0);
            }
            ringgen_stamp(&g[1], i, 1, LATREC_DEQUEUE, d, 0, 0);
            const uint64_t enc = (flags & DISORDER) && p == 2 && i == from(flags) ? d - 1 : d + 900 + i % 11;
            ringgen_stamp(&g[1], i, 1, LATREC_ENCODE_E3AP_DONE, enc, 64, 0);
            if (i % 17) ringgen_stamp(&g[1], i, 1, LATREC_SEND_DONE, d + 1500 + i % 7, 0, 0);
            if ((flags & TORN) && p == 1 && i == 3001)
                ringgen_set_rec(&g[1], (g[1].next - 1) & (g[1].entries - 1), i, 1, LATREC_SEND_DONE, 0, 0, 0);
            if ((flags & DROPS) && i % 13 == 0) ringgen_stamp(&g[1], i, 1, LATREC_DROP, d + 1700, 0, 0);
            if ((flags & LONE_DROPS) && i == from(flags))
                ringgen_stamp(&g[1], 2000000 + i, 1, LATREC_DROP, d + 1700, 0, 0);
        }
        if ((flags & EARLY_END) && p > 0) {
            const uint64_t t = T0 + (MSGS + 1) * 20000ull + 2 * HORIZON;
            ringgen_stamp(&g[0], MSGS + 1, 0, LATREC_ENQUEUE, t, 0, 0);
            ringgen_stamp(&g[1], MSGS + 1, 1, LATREC_DEQUEUE, t + 2000, 0, 0);
            ringgen_stamp(&g[1], MSGS + 1, 1, LATREC_ENCODE_E3AP_DONE, t + 2900, 64, 0);
            ringgen_stamp(&g[1], MSGS + 1, 1, LATREC_SEND_DONE, t + 3500, 0, 0);
        }
        proc_rings_write(g, p);
    }
}

struct value {
    int table, hop;
    int64_t v;
};

struct result {
    struct value *v;
    size_t n, cap;
    int restarts, no_inst, n_tables;
    size_t folded; /* values that came through parts */
    char names[8][2 * LATREC_NAME_MAX + 2];
    uint64_t instances[8], complete[8];
    uint64_t cut_horizon, fed, records, warm_skipped;
    int verified; /* rings whose guess the pass found true (engine/input.h) */
};

static int table_new(void *ctx, latrec_leg_table *t)
{
    struct result *r = ctx;
    assert_true(r->n_tables < 8);
    snprintf(r->names[r->n_tables], sizeof(r->names[0]), "%s/%s", t->component_name, t->legdef.name);
    t->user = (void *)(intptr_t)r->n_tables++;
    return 0;
}

static void on_value(void *ctx, latrec_leg_table *t, int hop, int64_t ns, const latrec_instance *inst)
{
    struct result *r = ctx;
    if (r->n == r->cap) {
        r->cap = r->cap ? r->cap * 2 : 4096;
        assert_non_null(r->v = realloc(r->v, r->cap * sizeof(*r->v)));
    }
    r->v[r->n++] = (struct value){ (int)(intptr_t)t->user, hop, ns };
    r->no_inst += inst == NULL;
}

static void on_restart(void *ctx, latrec_leg_table **tables, int n)
{
    struct result *r = ctx;
    (void)tables;
    assert_int_equal(n, r->n_tables);
    r->restarts++;
    r->n = 0;
    r->no_inst = 0;
    r->folded = 0;
    r->n_tables = 0;
}

/* Read by process: a thread's values of a table, appended to the result
 * when folded in. */
struct part {
    struct result *r;
    int table;
    struct value *v;
    size_t n, cap;
};

static void *part_new(void *ctx, const latrec_leg_table *t)
{
    struct part *pt = calloc(1, sizeof(*pt));
    assert_non_null(pt);
    pt->r = ctx;
    pt->table = (int)(intptr_t)t->user;
    return pt;
}

static void part_value(void *part, int hop, int64_t ns, const latrec_instance *inst)
{
    (void)inst;
    struct part *pt = part;
    if (pt->n == pt->cap) {
        pt->cap = pt->cap ? pt->cap * 2 : 4096;
        assert_non_null(pt->v = realloc(pt->v, pt->cap * sizeof(*pt->v)));
    }
    pt->v[pt->n++] = (struct value){ pt->table, hop, ns };
}

static void part_free(void *part)
{
    struct part *pt = part;
    free(pt->v);
    free(pt);
}

static int part_fold(void *ctx, latrec_leg_table *t, void *part)
{
    struct result *r = ctx;
    struct part *pt = part;
    assert_int_equal(pt->table, (int)(intptr_t)t->user);
    for (size_t i = 0; i < pt->n; i++) {
        if (r->n == r->cap) {
            r->cap = r->cap ? r->cap * 2 : 4096;
            assert_non_null(r->v = realloc(r->v, r->cap * sizeof(*r->v)));
        }
        r->v[r->n++] = pt->v[i];
    }
    r->folded += pt->n;
    part_free(pt);
    return 0;
}

static int by_value(const void *a, const void *b)
{
    const struct value *x = a, *y = b;
    if (x->table != y->table) return x->table - y->table;
    if (x->hop != y->hop) return x->hop - y->hop;
    return (x->v > y->v) - (x->v < y->v);
}

/* The tables by name (a pass by process makes them in another order than
 * in time order), the values' table indices with them. */
static void by_name(struct result *r)
{
    int rank[8];
    for (int i = 0; i < r->n_tables; i++) {
        rank[i] = 0;
        for (int j = 0; j < r->n_tables; j++) rank[i] += strcmp(r->names[j], r->names[i]) < 0;
    }
    struct result sorted = *r;
    for (int i = 0; i < r->n_tables; i++) {
        memcpy(sorted.names[rank[i]], r->names[i], sizeof(r->names[0]));
        sorted.instances[rank[i]] = r->instances[i];
        sorted.complete[rank[i]] = r->complete[i];
    }
    for (size_t i = 0; i < r->n; i++) r->v[i].table = rank[r->v[i].table];
    memcpy(r->names, sorted.names, sizeof(r->names));
    memcpy(r->instances, sorted.instances, sizeof(r->instances));
    memcpy(r->complete, sorted.complete, sizeof(r->complete));
}

static void run(struct result *r, int threads, int may_restart, int guess)
{
    latrec_input_opts io;
    memset(&io, 0, sizeof(io));
    io.quiet = 1;
    io.guess = guess;
    io.threads = threads;
    io.leg_horizon_ns = HORIZON;
    latrec_input_add_dir(&io, dir);
    latrec_pass_opts po;
    memset(&po, 0, sizeof(po));
    po.warmup_ns = 1000000;
    memset(r, 0, sizeof(*r));
    latrec_pass_sinks sinks = { .ctx = r, .table_new = table_new, .value = on_value };
    if (may_restart) {
        sinks.restart = on_restart;
        sinks.part_new = part_new;
        sinks.part_value = part_value;
        sinks.part_fold = part_fold;
        sinks.part_free = part_free;
    }
    latrec_engine *e = latrec_engine_open(&io, "test", 0);
    assert_non_null(e);
    assert_int_equal(latrec_engine_start(e, &po, &sinks), 0);
    assert_int_equal(latrec_engine_run(e), 0);
    latrec_pass *p = latrec_engine_pass(e);
    int n;
    latrec_leg_table **t = latrec_pass_tables(p, &n);
    assert_int_equal(n, r->n_tables);
    for (int i = 0; i < n; i++) {
        r->instances[i] = t[i]->instances;
        r->complete[i] = t[i]->complete;
    }
    r->cut_horizon = latrec_legs_cut_horizon(latrec_pass_legs(p));
    r->fed = latrec_pass_fed(p);
    r->warm_skipped = latrec_pass_warmup_skipped(p);
    const latrec_input *in = latrec_engine_input(e);
    r->records = in->records;
    assert_int_equal(in->guessed, 0); /* none left unchecked by the pass */
    for (size_t i = 0; i < in->set.n; i++) {
        r->verified += in->set.rings[i].derived == LATREC_RING_VERIFIED;
        assert_true(guess || in->set.rings[i].derived == LATREC_RING_SCANNED);
    }
    latrec_engine_close(e);
    by_name(r);
    qsort(r->v, r->n, sizeof(*r->v), by_value);
}

static void same(const struct result *a, const struct result *b)
{
    assert_int_equal(a->n_tables, b->n_tables);
    for (int i = 0; i < a->n_tables; i++) {
        assert_string_equal(a->names[i], b->names[i]);
        assert_int_equal(a->instances[i], b->instances[i]);
        assert_int_equal(a->complete[i], b->complete[i]);
    }
    assert_int_equal(a->n, b->n);
    assert_memory_equal(a->v, b->v, a->n * sizeof(*a->v));
    assert_int_equal(a->cut_horizon, b->cut_horizon);
    assert_int_equal(a->fed, b->fed);
    assert_int_equal(a->records, b->records);
    assert_int_equal(a->warm_skipped, b->warm_skipped);
}

/* The run with `flags` five ways; what the restart sinks' runs do with the
 * rings scanned at open (how) and opened by the guess (how_guessed: a
 * guess the pass finds wrong makes it start over, in time order), and how
 * many rings' guesses the pass found true (verified; the others scanned
 * before the pass in time order). */
static void check_guessed(int flags, int how, int how_guessed, int restarts, int verified)
{
    write_rings(flags);
    struct result ordered, one, two, g[2];
    run(&ordered, 1, 0, 0);
    run(&one, 1, 1, 0);
    run(&two, 2, 1, 0);
    for (int k = 0; k < 2; k++) run(&g[k], k + 1, 1, 1);
    remove_rings();
    for (int k = 0; k < 2; k++) {
        same(&ordered, &g[k]);
        assert_int_equal(g[k].restarts, restarts);
        assert_int_equal(g[k].folded, how_guessed == BY_PROCESS ? g[k].n : 0);
        assert_int_equal(g[k].no_inst, 0);
        assert_int_equal(g[k].verified, verified);
        assert_int_equal(ordered.verified + one.verified + two.verified, 0);
        free(g[k].v);
    }
    uint64_t recs = PROCS * (MSGS * 3ull + (MSGS - MSGS / 17)) - (flags & TORN ? 1 : 0);
    if (flags & DROPS) recs += PROCS * (MSGS / 13);
    if (flags & LONE_DROPS) recs += PROCS;
    const uint64_t more = flags & EARLY_END ? PROCS - 1 : 0; /* messages */
    recs += more * 4;
    if (flags & TWO_LEGS) recs += PROCS * (MSGS / 5 - (from(flags) - 1) / 5) * 2;
    assert_int_equal(ordered.records, recs);
    assert_int_equal(ordered.fed, recs);
    assert_int_equal(ordered.restarts, 0);
    /* warm-up 1 ms: the first 50 messages of each process */
    int out = -1;
    for (int i = 0; i < ordered.n_tables; i++)
        if (strcmp(ordered.names[i], "libe3/outbound") == 0) out = i;
    assert_true(out >= 0);
    assert_int_equal(ordered.n_tables, flags & TWO_LEGS ? 2 : 1);
    /* a lone DROP is an instance of outbound (the role stamped it) */
    assert_int_equal(ordered.instances[out], PROCS * (MSGS - 50ull + (flags & LONE_DROPS ? 1 : 0)) + more);
    assert_int_equal(ordered.complete[out],
                     PROCS * (MSGS - 50ull - (MSGS / 17 - 50 / 17)) + more - (flags & TORN ? 1 : 0));
    /* every 17th message is cut by the horizon: the stream goes on two
     * horizons past every process's last one */
    if (flags & EARLY_END) assert_int_equal(ordered.cut_horizon, PROCS * (MSGS / 17));
    same(&ordered, &one);
    same(&ordered, &two);
    assert_int_equal(one.restarts, how == RESTARTED);
    assert_int_equal(two.restarts, how == RESTARTED);
    /* read by process: every value comes through the parts */
    assert_int_equal(two.folded, how == BY_PROCESS ? two.n : 0);
    assert_int_equal(one.folded, how == BY_PROCESS ? one.n : 0);
    assert_int_equal(two.no_inst, 0);
    assert_int_equal(one.no_inst, 0);
    free(ordered.v);
    free(one.v);
    free(two.v);
}

static void check(int flags, int how)
{
    /* every ring's guess held, read by process or in time order */
    check_guessed(flags, how, how, how == RESTARTED, 2 * PROCS);
}

static void test_clean(void **state)
{
    (void)state;
    check(CLEAN, BY_PROCESS);
}

static void test_drops(void **state)
{
    (void)state;
    check(DROPS, BY_PROCESS); /* each DROP joins its open instance: no other process matters */
}

static void test_lone_drops(void **state)
{
    (void)state;
    check(LONE_DROPS, IN_ORDER);
    check(LONE_DROPS | LATE, RESTARTED);
}

static void test_two_legs(void **state)
{
    (void)state;
    check(TWO_LEGS, BY_PROCESS); /* tables made in another order, shown in their own */
    check(TWO_LEGS | LATE, BY_PROCESS);
}

/* A slot never published: skipped either way, but the guess said the ring
 * held one record more; known once the ring is read to its end. */
static void test_torn(void **state)
{
    (void)state;
    check_guessed(TORN, BY_PROCESS, RESTARTED, 1, 2 * PROCS - 1);
    check_guessed(TORN | TWO_LEGS, BY_PROCESS, RESTARTED, 1, 2 * PROCS - 1);
}

static void test_early_end(void **state)
{
    (void)state;
    check(EARLY_END, RESTARTED); /* known only when every process is read */
}

static void test_disorder(void **state)
{
    (void)state;
    /* the ring out of order was guessed: in time order, its stamps going
     * down make the pass start over once that ring is scanned; read by
     * process, it is scanned before the pass reads in time order */
    check_guessed(DISORDER, IN_ORDER, IN_ORDER, 1, 2 * PROCS - 1);
    check_guessed(DISORDER | LATE, RESTARTED, RESTARTED, 1, 2 * PROCS - 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_clean),    cmocka_unit_test(test_drops),    cmocka_unit_test(test_lone_drops),
        cmocka_unit_test(test_two_legs), cmocka_unit_test(test_disorder),   cmocka_unit_test(test_early_end),
        cmocka_unit_test(test_torn),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
