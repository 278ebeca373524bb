/* One limit on single instances (src/engine/judge.c) over a synthetic
 * ring of libE3's outbound leg (ringgen.h): every hop typed in, one
 * instance slow by a known amount. */
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

#include "engine/judge.h"
#include "latrec/stages.h"
#include "ringgen.h"

#define MS 1000000ull
#define T0 (2000 * MS)
#define SLOW 40

static char dir[512];

/* 100 instances 1 ms apart: ENQUEUE, DEQUEUE +100 ns, ENCODE_E3AP_DONE
 * +200, SEND_DONE +300; seq SLOW's ENCODE_E3AP_DONE comes 5000 ns after
 * its DEQUEUE (total 5200 ns). */
static int setup(void **state)
{
    (void)state;
    snprintf(dir, sizeof(dir), "%s/judge.%d", LATREC_TEST_TMP, (int)getpid());
    mkdir(LATREC_TEST_TMP, 0755);
    if (mkdir(dir, 0755) != 0) return -1;
    ringgen g;
    if (ringgen_init(&g, 3, 1024, "libe3.outbound.1001") != 0) return -1;
    for (uint64_t s = 1; s <= 100; s++) {
        uint64_t t = T0 + s * MS, slow = s == SLOW ? 4900 : 0;
        ringgen_stamp(&g, s, 0, LATREC_ENQUEUE, t, 0, 0);
        ringgen_stamp(&g, s, 0, LATREC_DEQUEUE, t + 100, 0, 0);
        ringgen_stamp(&g, s, 0, LATREC_ENCODE_E3AP_DONE, t + 200 + slow, 100, 0);
        ringgen_stamp(&g, s, 0, LATREC_SEND_DONE, t + 300 + slow, s, 0);
    }
    ringgen_set_u64(&g, RINGGEN_OFF_REC_COUNT, 400);
    char path[700];
    snprintf(path, sizeof(path), "%s/libe3.outbound.1001.latrec", dir);
    int rc = ringgen_write(&g, path);
    ringgen_free(&g);
    return rc;
}

static int teardown(void **state)
{
    (void)state;
    char cmd[700];
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
    return system(cmd) == 0 ? 0 : -1;
}

static int table_new(void *ctx, latrec_leg_table *t)
{
    latrec_judge_table(ctx, t);
    return 0;
}
static void value(void *ctx, latrec_leg_table *t, int hop, int64_t ns, const latrec_instance *inst)
{
    latrec_judge_value(ctx, t, hop, ns, inst);
}
static void path_instance(void *ctx, const latrec_path_instance *pi)
{
    latrec_judge_path(ctx, pi);
}

/* Judge spec over the ring: 1 with *hit when crossed. */
static int judge(const char *spec, uint64_t since_ns, latrec_judge_hit *hit, int *named)
{
    latrec_gate g;
    char err[200];
    assert_int_equal(latrec_gate_parse(&g, spec, LATREC_GATE_INSTANCE, err, sizeof(err)), 0);
    latrec_judge *j = latrec_judge_new(&g, since_ns);
    assert_non_null(j);
    latrec_input_opts io;
    memset(&io, 0, sizeof(io));
    latrec_input_add_dir(&io, dir);
    io.quiet = 1;
    latrec_engine *e = latrec_engine_open(&io, "test", 0);
    assert_non_null(e);
    latrec_pass_opts po;
    memset(&po, 0, sizeof(po));
    latrec_judge_attach(j, e, &po);
    latrec_pass_sinks sinks = { .ctx = j, .table_new = table_new, .value = value, .path_instance = path_instance };
    assert_int_equal(latrec_engine_start(e, &po, &sinks), 0);
    assert_int_equal(latrec_engine_run(e), 0);
    int crossed = latrec_judge_crossed(j, hit);
    *named = latrec_judge_named(j);
    latrec_engine_close(e);
    latrec_judge_free(j);
    return crossed;
}

static void test_total(void **state)
{
    (void)state;
    latrec_judge_hit h;
    int named;
    assert_int_equal(judge("libe3/outbound:total>1us", 0, &h, &named), 1);
    assert_true(named);
    assert_int_equal(h.path, 0);
    assert_string_equal(h.component, "libe3");
    assert_string_equal(h.name, "outbound");
    assert_int_equal(h.seq, SLOW);
    assert_string_equal(h.row.name, "total");
    assert_int_equal(h.row.ns, 5200);
    assert_int_equal(h.row.t_a, T0 + SLOW * MS);
    assert_int_equal(h.row.t_b, T0 + SLOW * MS + 5200);
    assert_string_equal(h.ring, "libe3.outbound.1001");
    assert_int_equal(h.row.tid_b, 1001);
    assert_int_equal(h.pid, 1000);
    assert_int_equal(h.start_ns, T0 + SLOW * MS);
    /* the hop that took the most: the slept one */
    assert_string_equal(h.worst.name, "DEQUEUE->ENCODE_E3AP_DONE");
    assert_int_equal(h.worst.ns, 5000);
    assert_int_equal(h.worst.t_a, T0 + SLOW * MS + 100);
    assert_true(h.has_total);
    assert_int_equal(h.total_ns, 5200);
}

static void test_limits(void **state)
{
    (void)state;
    latrec_judge_hit h;
    int named;
    /* the limit is exclusive: 5200 ns is not over 5200ns */
    assert_int_equal(judge("libe3/outbound:total>5200ns", 0, &h, &named), 0);
    assert_true(named);
    assert_int_equal(judge("libe3/outbound:total>5199ns", 0, &h, &named), 1);
    assert_int_equal(h.seq, SLOW);
    /* the first instance over it, not the largest: every ENQUEUE->DEQUEUE is 100 ns */
    assert_int_equal(judge("libe3/outbound:ENQUEUE->DEQUEUE>99ns", 0, &h, &named), 1);
    assert_int_equal(h.seq, 1);
    assert_int_equal(h.row.ns, 100);
    /* instances that began before since_ns are not judged */
    assert_int_equal(judge("libe3/outbound:total>1us", T0 + SLOW * MS + 1, &h, &named), 0);
    assert_int_equal(judge("libe3/outbound:total>1us", T0 + SLOW * MS, &h, &named), 1);
}

static void test_names_nothing(void **state)
{
    (void)state;
    latrec_judge_hit h;
    int named;
    assert_int_equal(judge("libe3/outbound:ENQUEUE->SEND_DONE>1ns", 0, &h, &named), 0);
    assert_false(named);
    assert_int_equal(judge("libe3/inbound:total>1ns", 0, &h, &named), 0);
    assert_false(named);
    assert_int_equal(judge("e3/loop:total>1ns", 0, &h, &named), 0);
    assert_false(named); /* a path of the catalog, no instance of it here */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_total),
        cmocka_unit_test(test_limits),
        cmocka_unit_test(test_names_nothing),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
