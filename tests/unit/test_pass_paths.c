/* Path instances of a pass read by process (engine/pass_plog.h): the
 * processes' ended leg instances merged in the order a pass in time order
 * ends them, so the path assemblers hand out the same path instances in
 * the same order (paths only, on two threads: one thread is read in time
 * order then). Over ringgen runs of 3 processes (an oai and a
 * libe3.outbound thread each: the e3 catalog's source leg on oai, outbound's
 * EMIT_ENTER and ENQUEUE on oai and the rest on libe3.outbound; the first
 * process's records end 20 ms before the others'), every path instance a
 * pass in time order hands out, in order, equals those of passes read by
 * process on 1 and 2 threads (said by latrec_pass_read_by_process), with
 * the path horizon at its default (the fragments leave at the end) and at
 * 1 ms (they leave by stream time, which the order of every ended instance
 * moves), paths only and with one leg table. Message i of process p at
 * T0 + i * 20 us + p * 3 us + a jitter (every 97th at T0 + i * 20 us in
 * each: three processes' stamps tie), every 3rd with a WAIT_ENTER up to 6.4
 * us after its last chain stage (its source instance ends by its grace, at
 * the first record of any process 10 ms later), every 11th without
 * EMIT_ENTER (outbound cannot join source), every 13th with a DROP, every
 * 17th without SEND_DONE. */
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

#define T0 1000000000ull
#define PROCS 3
#include "pass_rings.h" /* after PROCS */

static uint64_t msgs(int p)
{
    return p == 0 ? 2000 : 3000;
}

static void write_rings(void)
{
    rings_dir("pass_paths");
    for (int p = 0; p < PROCS; p++) {
        ringgen g[2];
        proc_rings_init(g, p, 1u << 15);
        for (uint64_t i = 1; i <= msgs(p); i++) {
            const uint64_t t =
                T0 + i * 20000 + (i % 97 ? (uint64_t)p * 3000 + (i * 7919 + (uint64_t)p * 31) % 4000 : 0);
            const uint64_t s = 100000 * (uint64_t)p + i, m = 500000 + s, d = t + 3000 + (i * 7919) % 500;
            ringgen_stamp(&g[0], s, 0, LATREC_RECORD_BEGIN, t, 0, 0);
            ringgen_stamp(&g[0], s, 0, LATREC_PROCESS_BEGIN, t + 300, 0, 0);
            ringgen_stamp(&g[0], s, 0, LATREC_ENCODE_E3SM_BEGIN, t + 500, 0, 0);
            ringgen_stamp(&g[0], s, 0, LATREC_ENCODE_E3SM_DONE, t + 900, 0, 0);
            if (i % 11) ringgen_stamp(&g[0], m, 0, LATREC_EMIT_ENTER, t + 1100, s, 0);
            ringgen_stamp(&g[0], m, 0, LATREC_ENQUEUE, t + 1200, 0, 0);
            if (i % 3 == 0) ringgen_stamp(&g[0], s, 0, LATREC_WAIT_ENTER, t + 1300 + (i % 7) * 1000, 0, 0);
            ringgen_stamp(&g[1], m, 1, LATREC_DEQUEUE, d, 0, 0);
            ringgen_stamp(&g[1], m, 1, LATREC_ENCODE_E3AP_DONE, d + 900, 64, 0);
            if (i % 17) ringgen_stamp(&g[1], m, 1, LATREC_SEND_DONE, d + 1500, m, 0);
            if (i % 13 == 0) ringgen_stamp(&g[1], m, 1, LATREC_DROP, d + 1700, 0, 0);
        }
        proc_rings_write(g, p);
    }
}

/* A path instance as the sink saw it. */
struct pinst {
    int path, complete, stop_pos, stop_reason;
    uint64_t start, end, delay_end, seq;
};

struct result {
    struct pinst *v;
    size_t n, cap;
    int restarts, by_process;
    uint64_t unanchored[8];
};

static void on_path(void *ctx, const latrec_path_instance *pi)
{
    struct result *r = ctx;
    if (r->n == r->cap) {
        r->cap = r->cap ? 2 * r->cap : 4096;
        assert_non_null(r->v = realloc(r->v, r->cap * sizeof(*r->v)));
    }
    r->v[r->n++] = (struct pinst){ pi->path,     pi->complete, pi->stop_pos,     pi->stop_reason,
                                   pi->start_ns, pi->end_ns,   pi->delay_end_ns, pi->legs[0]->seq };
}

static int table_new(void *ctx, latrec_leg_table *t)
{
    (void)ctx;
    (void)t;
    return 0;
}

static void on_value(void *ctx, latrec_leg_table *t, int hop, int64_t ns, const latrec_instance *inst)
{
    (void)ctx, (void)t, (void)hop, (void)ns, (void)inst;
}

static void on_restart(void *ctx, latrec_leg_table **tables, int n)
{
    struct result *r = ctx;
    (void)tables, (void)n;
    r->restarts++;
    r->n = 0;
}

static void *part_new(void *ctx, const latrec_leg_table *t)
{
    (void)t;
    return ctx;
}

static void part_value(void *part, int hop, int64_t ns, const latrec_instance *inst)
{
    (void)part, (void)hop, (void)ns, (void)inst;
}

static int part_fold(void *ctx, latrec_leg_table *t, void *part)
{
    (void)ctx, (void)t, (void)part;
    return 0;
}

static void part_free(void *part)
{
    (void)part;
}

/* One pass: may_restart gives the sinks that let it read by process. */
static void run(struct result *r, int threads, int may_restart, uint64_t path_horizon, int with_table)
{
    latrec_input_opts io;
    memset(&io, 0, sizeof(io));
    io.quiet = 1;
    io.threads = threads;
    io.path_horizon_ns = path_horizon;
    latrec_input_add_dir(&io, dir);
    latrec_pass_opts po;
    memset(&po, 0, sizeof(po));
    po.paths = 1;
    po.no_legs = !with_table;
    po.leg = with_table ? "outbound" : NULL;
    memset(r, 0, sizeof(*r));
    latrec_pass_sinks sinks = { .ctx = r, .table_new = table_new, .value = on_value, .path_instance = on_path };
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
    r->by_process = latrec_pass_read_by_process(p);
    const latrec_path_index *ix = latrec_pass_paths(p);
    for (int k = 0; k < latrec_path_index_n(ix) && k < 8; k++)
        r->unanchored[k] = latrec_path_index_counts(ix, k)->unanchored;
    latrec_engine_close(e);
}

static void check(uint64_t path_horizon, int with_table)
{
    struct result ordered, one, two;
    run(&ordered, 1, 0, path_horizon, with_table);
    run(&one, 1, 1, path_horizon, with_table);
    run(&two, 2, 1, path_horizon, with_table);
    assert_int_equal(ordered.by_process, 0);
    assert_int_equal(one.by_process, with_table); /* paths only: in time order on one thread */
    assert_int_equal(two.by_process, 1);
    assert_int_equal(one.restarts + two.restarts, 0);
    /* every source instance anchors a path instance of each path (e3/loop,
     * e3/indication): none reaches inbound, so none completes */
    const uint64_t n = msgs(0) + (PROCS - 1) * msgs(1);
    assert_int_equal(ordered.n, 2 * n);
    for (size_t i = 0; i < ordered.n; i++) assert_int_equal(ordered.v[i].complete, 0);
    const struct result *by[2] = { &one, &two };
    for (int k = 0; k < 2; k++) {
        assert_int_equal(by[k]->n, ordered.n);
        for (size_t i = 0; i < ordered.n; i++) {
            const struct pinst *a = &ordered.v[i], *b = &by[k]->v[i];
            if (memcmp(a, b, sizeof(*a)) != 0)
                fail_msg("path instance %zu: path %d seq %llu start %llu, read by process path %d seq %llu start %llu",
                         i, a->path, (unsigned long long)a->seq, (unsigned long long)a->start, b->path,
                         (unsigned long long)b->seq, (unsigned long long)b->start);
        }
        assert_memory_equal(by[k]->unanchored, ordered.unanchored, sizeof(ordered.unanchored));
    }
    /* the outbound instances without EMIT_ENTER: unanchored (with the
     * horizon at 1 ms more are: the outbound instances whose source left
     * before them) */
    uint64_t lone = 0;
    for (int p = 0; p < PROCS; p++) lone += msgs(p) / 11;
    if (!path_horizon) assert_int_equal(ordered.unanchored[0], lone);
    else assert_true(ordered.unanchored[0] > lone);
    free(ordered.v);
    free(one.v);
    free(two.v);
}

static void test_paths_at_the_end(void **state)
{
    (void)state;
    check(0, 0);
    check(0, 1);
}

static void test_paths_by_stream_time(void **state)
{
    (void)state;
    check(1000000, 0);
    check(1000000, 1);
}

static int setup(void **state)
{
    (void)state;
    write_rings();
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    remove_rings();
    return 0;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_paths_at_the_end),
        cmocka_unit_test(test_paths_by_stream_time),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
