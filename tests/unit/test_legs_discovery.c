/*
 * test_legs_discovery.c - the leg builder's discovery of uncatalogued
 * chains: a chain of stages no leg names becomes a leg of its own, a
 * catalog of stage names only (--stages HEADER) discovers every chain, and
 * a long chain's name is cut to fit. Rings and runs as in test_legs.c
 * (legs_run.h); every expected value is typed in from the records written.
 */
#define LEGS_TEST_ROOT LATREC_TEST_TMP "/legs_discovery"
#include "legs_run.h"


/* ---- (d) discovery of an uncatalogued chain --------------------------------------- */

static void test_discovery(void **state)
{
    (void)state;
    const char *dir = test_dir("discovery");
    static struct r v[303];
    size_t n = 0;
    for (uint64_t s = 1; s <= 100; s++) {
        uint64_t t = BASE + s * 10000;
        v[n++] = (struct r){ s, 0xA0, t, s, 0 };
        v[n++] = (struct r){ s, 0xA1, t + 100 + s, 0, 0 };
        v[n++] = (struct r){ s, 0xA2, t + 100 + s + 1000 + 2 * s, 0, s * 3 };
    }
    /* seq 101: a different chain (A0, A2) makes a second discovered leg */
    v[n++] = (struct r){ 101, 0xA0, BASE + 2 * MS, 0, 0 };
    v[n++] = (struct r){ 101, 0xA2, BASE + 2 * MS + 55, 0, 0 };
    make_ring(dir, "myapp.1001", 3, 1000, 1001, v, n);
    const char *dirs[] = { dir };
    struct run r;
    run_open(&r, dirs, 1, 0, 0);
    run_feed(&r, 0);
    /* every record went to discovery; nothing ends before the groups do */
    assert_int_equal(r.n_placed, 302);
    for (size_t i = 0; i < r.n_placed; i++) assert_int_equal(r.placed[i], -1);
    assert_int_equal(r.n_inst, 0);
    assert_int_equal(latrec_legs_n_legs(r.legs), r.cat.n_legs);
    latrec_legs_finish(r.legs);

    assert_int_equal(latrec_legs_n_legs(r.legs), r.cat.n_legs + 2);
    const int l3 = r.cat.n_legs;
    const latrec_leg *leg = latrec_legs_leg(r.legs, l3);
    assert_true(leg->discovered);
    assert_string_equal(leg->name, "0xA0>0xA1>0xA2");
    assert_int_equal(leg->n_chain, 3);
    assert_int_equal(leg->chain[0], 0xA0);
    assert_int_equal(leg->chain[1], 0xA1);
    assert_int_equal(leg->chain[2], 0xA2);
    assert_int_equal(leg->n_extras, 0);
    const latrec_leg *l2 = latrec_legs_leg(r.legs, l3 + 1);
    assert_string_equal(l2->name, "0xA0>0xA2");
    assert_int_equal(l2->n_chain, 2);

    assert_int_equal(count_leg(&r, l3), 100);
    assert_int_equal(count_leg(&r, l3 + 1), 1);
    const uint32_t proc = latrec_legs_ring_process(r.legs, 0);
    for (uint64_t s = 1; s <= 100; s++) {
        const latrec_instance *in = find_inst(&r, l3, proc, s, 0);
        const uint64_t t = BASE + s * 10000;
        assert_int_equal(in->complete, 1);
        assert_int_equal(in->n_hits, 3);
        assert_int_equal(in->hits[0].t_ns, t);
        assert_int_equal(in->hits[0].aux, s);
        assert_int_equal(in->hits[1].t_ns - in->hits[0].t_ns, 100 + s);
        assert_int_equal(in->hits[2].t_ns - in->hits[1].t_ns, 1000 + 2 * s);
        assert_int_equal(in->hits[2].aux2, s * 3);
        assert_string_equal(latrec_legs_component_name(r.legs, in->component), "myapp");
        int present;
        assert_int_equal(latrec_instance_field(r.legs, in, 0xA2, LATREC_FIELD_AUX2, &present), s * 3);
        assert_int_equal(present, 1);
    }
    const latrec_instance *odd = find_inst(&r, l3 + 1, proc, 101, 0);
    assert_int_equal(odd->hits[1].t_ns - odd->hits[0].t_ns, 55);
    /* ended at finish in order of first stamp */
    for (size_t i = 1; i < r.n_inst; i++) assert_true(r.inst[i - 1]->first_t <= r.inst[i]->first_t);
    /* discovery groups end at the horizon by design: not evictions */
    assert_int_equal(latrec_legs_evicted(r.legs), 0);
    run_close(&r);
}

/* A catalog of stage names only (--stages HEADER): no legs at all, every
 * chain discovered and named after the catalog's stage names. */
static void test_discovery_names_only(void **state)
{
    (void)state;
    const char *dir = test_dir("names_only");
    struct r v[] = {
        { 1, 0x80, BASE, 0, 0 },        { 1, 0x81, BASE + 100, 0, 0 }, { 1, 0x90, BASE + 350, 0, 0 },
        { 2, 0x80, BASE + 1000, 0, 0 }, { 2, 0x81, BASE + 1090, 0, 0 }, { 2, 0x90, BASE + 1200, 0, 0 },
        { 3, 0x80, BASE + 2000, 0, 0 },
    };
    make_ring(dir, "app.9", 3, 1000, 9, v, sizeof v / sizeof v[0]);
    latrec_catalog cat;
    latrec_catalog_init(&cat, "app");
    cat.stage_names[0x80] = strdup("RX");
    cat.stage_names[0x81] = strdup("PARSE");
    cat.stage_names[0x90] = strdup("TX");
    const char *dirs[] = { dir };
    struct run r;
    run_open_with(&r, &cat, dirs, 1, 0, 0);
    assert_int_equal(latrec_legs_n_legs(r.legs), 0);
    run_feed(&r, 1);
    for (size_t i = 0; i < r.n_placed; i++) assert_int_equal(r.placed[i], -1);
    assert_int_equal(latrec_legs_n_legs(r.legs), 2);
    assert_string_equal(latrec_legs_leg(r.legs, 0)->name, "RX>PARSE>TX");
    assert_string_equal(latrec_legs_leg(r.legs, 1)->name, "RX");
    assert_int_equal(r.n_inst, 3);
    assert_int_equal(r.inst[0]->hits[2].t_ns - r.inst[0]->hits[0].t_ns, 350);
    assert_int_equal(r.inst[1]->hits[1].t_ns - r.inst[1]->hits[0].t_ns, 90);
    assert_int_equal(r.inst[2]->leg, 1);
    run_close(&r);
}

/* A discovered chain of 16 stages with long names: the leg name is cut to
 * "FIRST>..>LAST" within a leg name's bytes (no overflow on the way). */
static void test_discovery_long_names(void **state)
{
    (void)state;
    const char *dir = test_dir("long_names");
    struct r v[16];
    for (int i = 0; i < 16; i++) v[i] = (struct r){ 1, 0xC0 + (unsigned)i, BASE + 10 * (uint64_t)i, 0, 0 };
    make_ring(dir, "app.9", 3, 1000, 9, v, 16);
    latrec_catalog cat;
    latrec_catalog_init(&cat, "long");
    for (int i = 0; i < 16; i++) {
        char nm[LATREC_NAME_MAX];
        snprintf(nm, sizeof nm, "S%02d_A_STAGE_NAME_OF_FORTY_SEVEN_BYTES_XXXXXXXXX", i);
        assert_int_equal(strlen(nm), LATREC_NAME_MAX - 1);
        cat.stage_names[0xC0 + i] = strdup(nm);
    }
    const char *dirs[] = { dir };
    struct run r;
    run_open_with(&r, &cat, dirs, 1, 0, 0);
    run_feed(&r, 1);
    assert_int_equal(r.n_inst, 1);
    const latrec_leg *leg = latrec_legs_leg(r.legs, 0);
    assert_int_equal(leg->n_chain, 16);
    assert_true(strlen(leg->name) < LATREC_NAME_MAX);
    assert_int_equal(strncmp(leg->name, "S00_A_STAGE_NAME_OF_FORTY_SEVEN_BYTES_X", 39), 0);
    assert_int_equal(r.inst[0]->hits[15].t_ns - r.inst[0]->hits[0].t_ns, 150);
    run_close(&r);
}


int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_discovery),
        cmocka_unit_test(test_discovery_names_only),
        cmocka_unit_test(test_discovery_long_names),
    };
    return cmocka_run_group_tests(tests, legs_setup, NULL);
}
