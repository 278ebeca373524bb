/*
 * test_path_index.c - the paths of a whole run (analyze/path_index.h):
 * numbered run-wide over the catalogs, named (qualified only when two
 * catalogs define one name), looked up in both forms, and assembled with
 * one assembler per catalog from one builder's instances.
 *
 * Catalogs: the built-in e3; "pipe" with path request (ingest -> answer,
 * joined by aux); "alt" with path request too (in -> out, joined by aux2)
 * and only_alt. The rings of pipe and alt stamp the same raw stage ids
 * (1..4), so an assembler that took the other catalog's legs would join
 * wrong instances: every instance is checked against its catalog and
 * its known total.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "analyze/catalog.h"
#include "analyze/legs.h"
#include "analyze/path_index.h"
#include "read/merge.h"
#include "read/ringset.h"
#include "ringgen.h"

#define TMPDIR LATREC_TEST_TMP "/path_index"
#define BASE 2000000000ull
#define MS 1000000ull

static const char pipe_catalog[] = "catalog pipe\n"
                                   "stage 1 RX\nstage 2 PARSED\nstage 3 DECIDE\nstage 4 TX\n"
                                   "leg ingest RX PARSED\nleg answer DECIDE TX\n"
                                   "key ingest request PARSED.aux\nkey answer request DECIDE.aux\n"
                                   "join ingest.request answer.request\n"
                                   "path request ingest answer\n";
static const char alt_catalog[] = "catalog alt\n"
                                  "stage 1 IN_A\nstage 2 IN_B\nstage 3 OUT_A\nstage 4 OUT_B\n"
                                  "leg in IN_A IN_B\nleg out OUT_A OUT_B\n"
                                  "key in id IN_B.aux2\nkey out id OUT_A.aux2\n"
                                  "join in.id out.id\n"
                                  "path request in out\n"
                                  "path only_alt in out\n";

static latrec_catalog e3cat, pipecat, altcat;

static void load(latrec_catalog *cat, const char *name, const char *text)
{
    char path[512], err[256];
    snprintf(path, sizeof path, TMPDIR "/%s.catalog", name);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
    assert_int_equal(latrec_catalog_load(cat, path, err, sizeof err), 0);
}

static int setup(void **state)
{
    (void)state;
    mkdir(LATREC_TEST_TMP, 0755);
    assert_int_equal(system("rm -rf '" TMPDIR "' && mkdir -p '" TMPDIR "/run'"), 0);
    assert_int_equal(latrec_catalog_e3(&e3cat), 0);
    load(&pipecat, "pipe", pipe_catalog);
    load(&altcat, "alt", alt_catalog);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    latrec_catalog_free(&e3cat);
    latrec_catalog_free(&pipecat);
    latrec_catalog_free(&altcat);
    return 0;
}

/* Numbering base[c] + k, names shown and qualified, lookups. */
static void test_names(void **state)
{
    (void)state;
    const latrec_catalog *cats[] = { &e3cat, &pipecat, &altcat };
    latrec_path_index *ix = latrec_path_index_new(cats, 3);
    assert_non_null(ix);
    const int ne3 = e3cat.n_paths;
    assert_true(ne3 >= 2);
    assert_int_equal(latrec_path_index_n(ix), ne3 + 1 + 2);
    assert_int_equal(latrec_path_index_of(ix, 0, 0), 0);
    assert_int_equal(latrec_path_index_of(ix, 1, 0), ne3);
    assert_int_equal(latrec_path_index_of(ix, 2, 1), ne3 + 2);
    assert_int_equal(latrec_path_index_of(ix, 1, 1), -1); /* pipe has one path */
    assert_int_equal(latrec_path_index_of(ix, 3, 0), -1);
    /* e3's names are unique: shown bare; request is in two catalogs */
    const int loop = latrec_catalog_path(&e3cat, "e3/loop");
    assert_string_equal(latrec_path_index_name(ix, loop), "e3/loop");
    assert_string_equal(latrec_path_index_qualified(ix, loop), "e3:e3/loop");
    assert_string_equal(latrec_path_index_name(ix, ne3), "pipe:request");
    assert_string_equal(latrec_path_index_name(ix, ne3 + 1), "alt:request");
    assert_string_equal(latrec_path_index_name(ix, ne3 + 2), "only_alt");
    assert_ptr_equal(latrec_path_index_catalog(ix, ne3 + 1), &altcat);
    assert_int_equal(latrec_path_index_catalog_index(ix, ne3 + 1), 2);
    assert_ptr_equal(latrec_path_index_path(ix, ne3 + 2), &altcat.paths[1]);
    assert_string_equal(latrec_path_index_leg_name(ix, ne3, 1), "answer");
    assert_string_equal(latrec_path_index_leg_name(ix, ne3 + 1, 0), "in");
    /* lookups: shown, qualified, ambiguous, unknown */
    assert_int_equal(latrec_path_index_find(ix, "e3/loop"), loop);
    assert_int_equal(latrec_path_index_find(ix, "e3:e3/loop"), loop);
    assert_int_equal(latrec_path_index_find(ix, "pipe:request"), ne3);
    assert_int_equal(latrec_path_index_find(ix, "alt:request"), ne3 + 1);
    assert_int_equal(latrec_path_index_find(ix, "only_alt"), ne3 + 2);
    assert_int_equal(latrec_path_index_find(ix, "alt:only_alt"), ne3 + 2);
    assert_int_equal(latrec_path_index_find(ix, "request"), LATREC_PATH_AMBIGUOUS);
    assert_int_equal(latrec_path_index_find(ix, "pipe:only_alt"), LATREC_PATH_NONE);
    assert_int_equal(latrec_path_index_find(ix, "nope"), LATREC_PATH_NONE);
    char buf[256];
    latrec_path_index_candidates(ix, "request", buf, sizeof buf);
    assert_string_equal(buf, "pipe:request, alt:request");
    latrec_path_index_list(ix, buf, sizeof buf);
    assert_non_null(strstr(buf, "e3/loop, "));
    assert_non_null(strstr(buf, ", pipe:request, alt:request, only_alt"));
    latrec_path_index_list(ix, buf, 12); /* cut to fit */
    assert_int_equal(strlen(buf), 11);
    assert_string_equal(buf + 8, "...");
    /* segments: the catalog's own */
    latrec_segment a[LATREC_MAX_SEGS], b[LATREC_MAX_SEGS];
    const int n = latrec_path_index_segments(ix, ne3 + 1, a);
    assert_int_equal(n, latrec_path_segments(&altcat, &altcat.paths[0], b));
    assert_int_equal(n, 4); /* IN_A->IN_B, hand-off, OUT_A->OUT_B, total */
    assert_string_equal(a[0].name, "IN_A->IN_B");
    assert_string_equal(a[1].name, "IN_B->OUT_A");
    assert_string_equal(a[1].leg, "in->out");
    /* not assembling: no counts */
    assert_null(latrec_path_index_counts(ix, 0));
    latrec_path_index_free(ix);

    /* one catalog per name: request is shown bare, and found both ways */
    const latrec_catalog *two[] = { &e3cat, &pipecat };
    ix = latrec_path_index_new(two, 2);
    assert_non_null(ix);
    assert_string_equal(latrec_path_index_name(ix, ne3), "request");
    assert_int_equal(latrec_path_index_find(ix, "request"), ne3);
    assert_int_equal(latrec_path_index_find(ix, "pipe:request"), ne3);
    latrec_path_index_free(ix);
    /* no catalog with paths */
    const latrec_catalog *none[] = { NULL };
    ix = latrec_path_index_new(none, 1);
    assert_int_equal(latrec_path_index_n(ix), 0);
    latrec_path_index_list(ix, buf, sizeof buf);
    assert_string_equal(buf, "none");
    latrec_path_index_free(ix);
}

/* ---- assembling ------------------------------------------------------------ */

static void write_ring(const char *name, const char *catalog, uint32_t pid, const uint64_t (*recs)[5], size_t n)
{
    uint64_t entries = 16;
    while (entries < n) entries *= 2;
    ringgen rg;
    assert_int_equal(ringgen_init(&rg, 3, entries, name), 0);
    ringgen_set_u32(&rg, RINGGEN_OFF_PID, pid);
    ringgen_set_u32(&rg, RINGGEN_OFF_TID, pid + 1);
    ringgen_set_bytes(&rg, RINGGEN_OFF_CATALOG, catalog, strlen(catalog) + 1);
    for (size_t i = 0; i < n; i++)
        ringgen_stamp(&rg, recs[i][0], 1, (unsigned)recs[i][1], recs[i][2], recs[i][3], recs[i][4]);
    ringgen_set_u64(&rg, RINGGEN_OFF_REC_COUNT, n);
    char path[512];
    snprintf(path, sizeof path, TMPDIR "/run/%s.latrec", name);
    assert_int_equal(ringgen_write(&rg, path), 0);
    ringgen_free(&rg);
}

/* Message m's total, ns: pipe's request m (1..5), alt's request m (1..3). */
static uint64_t pipe_total(uint64_t m)
{
    return 100 * m + 7000 + 30;
}
static uint64_t alt_total(uint64_t m)
{
    return 200 * m + 9000 + 50;
}

struct seen {
    const latrec_path_index *ix;
    int ne3;
    uint64_t pipe_done, alt_done, only_alt_done, wrong;
};

static void on_path(void *ctx, const latrec_path_instance *pi)
{
    struct seen *s = ctx;
    if (!pi->complete) return;
    latrec_segment segs[LATREC_MAX_SEGS];
    const int n = latrec_path_index_segments(s->ix, pi->path, segs);
    int64_t total = 0;
    const latrec_hit *a, *b;
    assert_true(latrec_path_index_segment_value(s->ix, pi, &segs[n - 1], &total, &a, &b));
    const uint64_t m = pi->legs[0]->seq;
    if (pi->path == s->ne3) {
        s->pipe_done++;
        s->wrong += (uint64_t)total != pipe_total(m);
    } else if (pi->path == s->ne3 + 1) {
        s->alt_done++;
        s->wrong += (uint64_t)total != alt_total(m - 100);
    } else if (pi->path == s->ne3 + 2) {
        s->only_alt_done++;
    } else {
        s->wrong++;
    }
}

static latrec_path_index *feeding;

static void on_leg(void *ctx, const latrec_instance *inst)
{
    (void)ctx;
    assert_int_equal(latrec_path_index_feed(feeding, inst), 0);
}

/* pipe's 5 requests and alt's 3, rings of both (and e3 as catalog 0, with
 * no rings) in one builder: each assembler takes its own catalog's legs,
 * instances come out with run-wide indexes, counts through the index. */
static void test_assemble(void **state)
{
    (void)state;
    /* ingest RX, PARSED (+100 m, aux = request id 500 + m) on rx.101;
     * answer DECIDE (+7000, aux = the id), TX (+30) on worker.102 */
    uint64_t rxr[10][5], wkr[10][5];
    for (uint64_t m = 1; m <= 5; m++) {
        const uint64_t t = BASE + m * MS;
        memcpy(rxr[2 * m - 2], (uint64_t[5]){ m, 1, t, 0, 0 }, sizeof rxr[0]);
        memcpy(rxr[2 * m - 1], (uint64_t[5]){ m, 2, t + 100 * m, 500 + m, 0 }, sizeof rxr[0]);
        memcpy(wkr[2 * m - 2], (uint64_t[5]){ 40 + m, 3, t + 100 * m + 7000, 500 + m, 0 }, sizeof wkr[0]);
        memcpy(wkr[2 * m - 1], (uint64_t[5]){ 40 + m, 4, t + 100 * m + 7030, 0, 0 }, sizeof wkr[0]);
    }
    /* alt: in IN_A, IN_B (+200 m, aux2 = id 900 + m) on alt.201; out OUT_A
     * (+9000, aux2 = the id), OUT_B (+50) on alt.202, seqs 101.. */
    uint64_t inr[6][5], outr[6][5];
    for (uint64_t m = 1; m <= 3; m++) {
        const uint64_t t = BASE + m * MS + 300000;
        memcpy(inr[2 * m - 2], (uint64_t[5]){ 100 + m, 1, t, 0, 0 }, sizeof inr[0]);
        memcpy(inr[2 * m - 1], (uint64_t[5]){ 100 + m, 2, t + 200 * m, 0, 900 + m }, sizeof inr[0]);
        memcpy(outr[2 * m - 2], (uint64_t[5]){ 200 + m, 3, t + 200 * m + 9000, 0, 900 + m }, sizeof outr[0]);
        memcpy(outr[2 * m - 1], (uint64_t[5]){ 200 + m, 4, t + 200 * m + 9050, 0, 0 }, sizeof outr[0]);
    }
    write_ring("rx.101", "pipe", 100, (const uint64_t(*)[5])rxr, 10);
    write_ring("worker.102", "pipe", 100, (const uint64_t(*)[5])wkr, 10);
    write_ring("alt.201", "alt", 200, (const uint64_t(*)[5])inr, 6);
    write_ring("alt.202", "alt", 200, (const uint64_t(*)[5])outr, 6);

    const char *dirs[] = { TMPDIR "/run" };
    char err[256];
    latrec_ringset set;
    assert_int_equal(latrec_ringset_open(&set, dirs, 1, err, sizeof err), 0);
    assert_int_equal(set.n, 4);
    int ring_cat[4];
    for (size_t i = 0; i < set.n; i++) ring_cat[i] = strstr(set.rings[i].path, "/alt.") ? 2 : 1;
    const latrec_catalog *cats[] = { &e3cat, &pipecat, &altcat };
    latrec_legs *legs = latrec_legs_new_multi(cats, 3, ring_cat, &set, NULL, 0, 0, on_leg, NULL);
    assert_non_null(legs);
    struct seen s = { NULL, e3cat.n_paths, 0, 0, 0, 0 };
    const latrec_paths_opts o = { 100 * MS, 0, 0 };
    latrec_path_index *ix = latrec_path_index_assemble(legs, &o, on_path, &s);
    assert_non_null(ix);
    s.ix = feeding = ix;
    assert_string_equal(latrec_path_index_name(ix, s.ne3), "pipe:request");
    latrec_merge mg;
    assert_int_equal(latrec_merge_init(&mg, set.rings, set.n, 0, err, sizeof err), 0);
    latrec_merged ev;
    while (latrec_merge_next(&mg, &ev)) assert_true(latrec_legs_feed(legs, ev.ring, &ev.rec) >= -1);
    latrec_merge_free(&mg);
    latrec_legs_finish(legs);
    latrec_path_index_finish(ix);
    assert_int_equal(latrec_path_index_open(ix), 0);

    assert_int_equal(s.wrong, 0);
    assert_int_equal(s.pipe_done, 5);
    assert_int_equal(s.alt_done, 3);
    assert_int_equal(s.only_alt_done, 3);
    assert_int_equal(latrec_path_index_counts(ix, s.ne3)->complete, 5);
    assert_int_equal(latrec_path_index_counts(ix, s.ne3)->incomplete, 0);
    assert_int_equal(latrec_path_index_counts(ix, s.ne3 + 1)->complete, 3);
    assert_int_equal(latrec_path_index_counts(ix, s.ne3 + 2)->complete, 3);
    for (int k = 0; k < s.ne3; k++) assert_int_equal(latrec_path_index_counts(ix, k)->complete, 0);
    assert_null(latrec_path_index_counts(ix, latrec_path_index_n(ix)));

    latrec_path_index_free(ix);
    latrec_legs_free(legs);
    latrec_ringset_close(&set);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_names),
        cmocka_unit_test(test_assemble),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
