/* The limit grammar of --fail-over and --stop-above (analyze/gate.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "analyze/gate.h"

static latrec_gate ok(const char *spec, int form)
{
    latrec_gate g;
    char err[200] = "";
    if (latrec_gate_parse(&g, spec, form, err, sizeof(err)) != 0) fail_msg("'%s' refused: '%s'", spec, err);
    return g;
}

/* Refused; why "" for a malformed spec, else a part of the reason. */
static void refused(const char *spec, int form, const char *why)
{
    latrec_gate g;
    char err[200] = "x";
    if (latrec_gate_parse(&g, spec, form, err, sizeof(err)) == 0) fail_msg("'%s' taken", spec);
    if (why[0] ? !strstr(err, why) : err[0] != '\0') fail_msg("'%s': '%s', not '%s'", spec, err, why);
}

static void test_figure_form(void **state)
{
    (void)state;
    latrec_gate g = ok("libe3/outbound:total:p99>200us", LATREC_GATE_FIGURE);
    assert_string_equal(g.component, "libe3");
    assert_string_equal(g.leg, "outbound");
    assert_string_equal(g.hop, "total");
    assert_string_equal(g.figure, "p99");
    assert_int_equal(g.over, 1);
    assert_true(g.limit == 200000.0);
    g = ok("e3/loop:SEND_DONE->RECV:p99.9<1.5ms", LATREC_GATE_FIGURE);
    assert_string_equal(g.hop, "SEND_DONE->RECV");
    assert_string_equal(g.row, "SEND_DONE->RECV");
    assert_int_equal(g.over, 0);
    assert_true(g.limit == 1500000.0);
    g = ok("libe3/inbound:RECV__DECODE_E3AP_DONE:regressions>1000000", LATREC_GATE_FIGURE);
    assert_string_equal(g.hop, "RECV__DECODE_E3AP_DONE");
    assert_string_equal(g.row, "RECV->DECODE_E3AP_DONE");
    assert_true(g.limit == 1e6);
    refused("libe3/outbound:total:p99.90>1ms", LATREC_GATE_FIGURE, "");
    /* every digit of a percentile names it, as its column does */
    g = ok("libe3/outbound:total:p99.9999999>1ms", LATREC_GATE_FIGURE);
    assert_string_equal(g.figure, "p99.9999999");
    refused("libe3/outbound:total:p1e-05>1ms", LATREC_GATE_FIGURE, "");
    refused("libe3/outbound:total:median>1ms", LATREC_GATE_FIGURE, "");
    refused("libe3/outbound:total>1ms", LATREC_GATE_FIGURE, "");
    refused("libe3/outbound:total:count>many", LATREC_GATE_FIGURE, "a plain number");
    refused("libe3/outbound:total:p99>200", LATREC_GATE_FIGURE, "needs a unit");
}

static void test_instance_form(void **state)
{
    (void)state;
    latrec_gate g = ok("libe3/outbound:total>500us", LATREC_GATE_INSTANCE);
    assert_string_equal(g.row, "total");
    assert_string_equal(g.figure, "");
    assert_true(g.limit == 500000.0);
    /* the arrow's '>' is the hop's, the last one the comparison */
    g = ok("libe3/outbound:DEQUEUE->ENCODE_E3AP_DONE>100us", LATREC_GATE_INSTANCE);
    assert_string_equal(g.row, "DEQUEUE->ENCODE_E3AP_DONE");
    assert_true(g.limit == 100000.0);
    g = ok("path/e3/loop:total>2ms", LATREC_GATE_INSTANCE);
    assert_string_equal(g.component, "path");
    assert_string_equal(g.leg, "e3/loop");
    refused("libe3/outbound:total:max>1ms", LATREC_GATE_INSTANCE, "no figure");
    refused("libe3/outbound:total<1ms", LATREC_GATE_INSTANCE, "'>' only");
    refused("libe3/outbound:DEQUEUE->SEND_DONE", LATREC_GATE_INSTANCE, "");
    refused("outbound:total>1ms", LATREC_GATE_INSTANCE, "");
    refused("libe3/outbound:>1ms", LATREC_GATE_INSTANCE, "");
    refused("libe3/outbound:total>1", LATREC_GATE_INSTANCE, "needs a unit");
}

static void test_names(void **state)
{
    (void)state;
    latrec_gate g = ok("e3/loop:total>2ms", LATREC_GATE_INSTANCE);
    assert_true(latrec_gate_names_path(&g, "e3/loop"));
    assert_false(latrec_gate_names_path(&g, "e3/loopback"));
    assert_true(latrec_gate_names_leg(&g, "e3", "loop"));
    g = ok("path/e3/loop:total>2ms", LATREC_GATE_INSTANCE);
    assert_true(latrec_gate_names_path(&g, "e3/loop"));
    g = ok("path/ind:total>2ms", LATREC_GATE_INSTANCE);
    assert_true(latrec_gate_names_path(&g, "ind"));
    assert_false(latrec_gate_names_path(&g, "e3/ind"));
}

/* A path qualified by its catalog (analyze/path_index.h): CATALOG:NAME as
 * it is, or as path/CATALOG:NAME, in both forms; ROW and FIGURE are still
 * the last two fields. */
static void test_qualified(void **state)
{
    (void)state;
    latrec_gate g = ok("pipe:request:total:p99>2ms", LATREC_GATE_FIGURE);
    assert_string_equal(g.component, "path");
    assert_string_equal(g.leg, "pipe:request");
    assert_string_equal(g.row, "total");
    assert_string_equal(g.figure, "p99");
    assert_true(g.limit == 2e6);
    assert_true(latrec_gate_names_path(&g, "pipe:request"));
    assert_false(latrec_gate_names_path(&g, "request"));
    assert_false(latrec_gate_names_path(&g, "alt:request"));
    g = ok("path/pipe:request:PARSED__DECIDE:min<1us", LATREC_GATE_FIGURE);
    assert_string_equal(g.leg, "pipe:request");
    assert_string_equal(g.row, "PARSED->DECIDE");
    assert_int_equal(g.over, 0);
    g = ok("e3:e3/loop:SEND_DONE->RECV:max>1ms", LATREC_GATE_FIGURE);
    assert_true(latrec_gate_names_path(&g, "e3:e3/loop"));
    assert_false(latrec_gate_names_path(&g, "e3/loop"));
    g = ok("pipe:request:total>500us", LATREC_GATE_INSTANCE);
    assert_string_equal(g.leg, "pipe:request");
    assert_string_equal(g.row, "total");
    g = ok("pipe:request:RX->PARSED>1ms", LATREC_GATE_INSTANCE);
    assert_string_equal(g.row, "RX->PARSED");
    assert_true(g.limit == 1e6);
    refused("pipe:request:total:max>1ms", LATREC_GATE_INSTANCE, "no figure");
    refused("request:total:p99>2ms", LATREC_GATE_FIGURE, ""); /* a bare name needs path/ */
    refused("pipe:request:total>2ms", LATREC_GATE_FIGURE, "");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_figure_form),
        cmocka_unit_test(test_instance_form),
        cmocka_unit_test(test_names),
        cmocka_unit_test(test_qualified),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
