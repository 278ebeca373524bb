/*
 * TSC rings from the writer: the header a TSC ring carries ("ALRT", the
 * timebase block, two open pairs >= 2 ms apart, one pair per heartbeat and
 * at close), stamps in TSC counts, which role gets a TSC ring (API over
 * LATREC_CLOCK_<ROLE> over LATREC_CLOCK), and the fall back to the clock
 * with one stderr line where the TSC is not invariant (simulated with
 * LATREC_TSC_CPUINFO naming a cpuinfo without nonstop_tsc). Every case runs
 * in a forked child with a clean environment; the parent reads the files
 * with the independent raw reader (offsets typed in from the contract).
 */
#include <stdarg.h>
#include <setjmp.h>
#include <stddef.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <latrec/latrec.h>

#include "test_writer_util.h"

#define OFF_TIMEBASE 256
#define OFF_CAL_SLOTS 260
#define OFF_CAL_TAKEN 264
#define OFF_CAL 512

static char dir[512];

static uint64_t cal_tsc(const struct tw_hdr *h, int k)
{
    return tw_le64(h->raw + OFF_CAL + 16 * k);
}
static uint64_t cal_mono(const struct tw_hdr *h, int k)
{
    return tw_le64(h->raw + OFF_CAL + 16 * k + 8);
}

static void read_named(const char *name, struct tw_ring *r)
{
    char path[700];
    snprintf(path, sizeof(path), "%s/%s.latrec", dir, name);
    assert_int_equal(tw_read_ring(path, r), 0);
}

static int is_tsc(const struct tw_hdr *h)
{
    const int tsc = memcmp(h->raw, "ALRT", 4) == 0;
    if (!tsc) assert_memory_equal(h->raw, "ALR1", 4);
    assert_int_equal(tw_le32(h->raw + OFF_TIMEBASE), tsc ? 1 : 0);
    return tsc;
}

/* The host's first flags line names constant_tsc and nonstop_tsc (the cases
 * that want a real TSC ring skip elsewhere, saying why). */
static int host_tsc_invariant(void)
{
    static char buf[1 << 16];
    if (tw_slurp("/proc/cpuinfo", buf, sizeof(buf)) < 0) return 0;
    char *flags = strstr(buf, "\nflags");
    char *end = flags ? strchr(flags + 1, '\n') : NULL;
    if (end) *end = '\0';
    return flags && strstr(flags, " constant_tsc") && strstr(flags, " nonstop_tsc");
}

static void need_invariant_tsc(void)
{
    if (!host_tsc_invariant()) {
        printf("SKIP: this host's TSC is not invariant (no constant_tsc/nonstop_tsc)\n");
        skip();
    }
}

/* ---- the header and the stamps of a TSC ring ------------------------------ */

static int tsc_ring_child(void *p)
{
    (void)p;
    tw_clean_env();
    setenv("LATREC_CLOCK", "tsc", 1);
    latrec_t a, b;
    if (latrec_open_in(&a, dir, "plain", 6) != 1 || a.timebase != LATREC_TIMEBASE_TSC) return 10;
    for (uint64_t i = 0; i < 10; i++) {
        latrec_stamp(&a, i + 1, LATREC_ENQUEUE, 0, 0);
        /* the stamp's own count is before this one: aux2 keeps it */
        a.recs[i].aux2 = latrec_rdtsc();
    }
    const uint64_t t = latrec_ring_now(&a);
    latrec_stamp_at(&a, 99, LATREC_DEQUEUE, 0, 0, t);
    latrec_close(&a); /* 2 open pairs + the close pair */
    if (latrec_open_in(&b, dir, "beating", 4) != 1) return 11;
    latrec_heartbeat(&b);
    latrec_heartbeat(&b);
    latrec_close(&b); /* 2 + 2 + 1 */
    /* the per-thread layer: tnow is in the ring's units */
    latrec_set_output_dir(dir);
    if (!latrec_tls_open_as("tls")) return 12;
    const uint64_t before = latrec_rdtsc();
    latrec_tstamp_at(1, LATREC_RECV, latrec_tnow(), before, 0);
    return 0;
}

static void test_tsc_ring_header_pairs_and_stamps(void **state)
{
    (void)state;
    need_invariant_tsc();
    char err[2048];
    const int st = tw_run_child(tsc_ring_child, NULL, err, sizeof(err));
    assert_true(WIFEXITED(st));
    assert_int_equal(WEXITSTATUS(st), 0);
    assert_string_equal(err, "");

    struct tw_ring r;
    read_named("plain", &r);
    assert_true(is_tsc(&r.h));
    assert_int_equal(r.h.version, 3);
    assert_int_equal(r.h.clock_id, 1); /* what the counts convert to */
    assert_int_equal(tw_le32(r.h.raw + OFF_CAL_SLOTS), 128);
    assert_int_equal(tw_le64(r.h.raw + OFF_CAL_TAKEN), 3);
    /* open pairs: >= 2 ms apart, both later in TSC and clock; the t0 clock
     * reading lies between them */
    assert_true(cal_mono(&r.h, 1) >= cal_mono(&r.h, 0) + 2000000);
    assert_true(cal_tsc(&r.h, 1) > cal_tsc(&r.h, 0));
    assert_true(r.h.t0_mono >= cal_mono(&r.h, 0) && r.h.t0_mono <= cal_mono(&r.h, 1));
    /* the close pair: after every stamp, with t1's clock reading beside it */
    assert_true(cal_tsc(&r.h, 2) > cal_tsc(&r.h, 1));
    assert_true(cal_mono(&r.h, 2) >= r.h.t1_mono);
    assert_int_equal(cal_mono(&r.h, 3), 0); /* nothing more */
    assert_int_equal(tw_valid_count(&r), 11);
    for (int i = 0; i < 10; i++) {
        /* a TSC count: after the open pairs, before the read after it */
        assert_true(r.slots[i].t_ns > cal_tsc(&r.h, 1));
        assert_true(r.slots[i].t_ns <= r.slots[i].aux2);
        assert_true(r.slots[i].t_ns < cal_tsc(&r.h, 2));
    }
    assert_true(r.slots[10].t_ns > r.slots[9].t_ns);
    tw_free_ring(&r);

    read_named("beating", &r);
    assert_true(is_tsc(&r.h));
    assert_int_equal(tw_le64(r.h.raw + OFF_CAL_TAKEN), 5);
    for (int k = 1; k < 5; k++) {
        assert_true(cal_tsc(&r.h, k) > cal_tsc(&r.h, k - 1));
        assert_true(cal_mono(&r.h, k) > cal_mono(&r.h, k - 1));
    }
    tw_free_ring(&r);

    char path[700];
    assert_int_equal(tw_find_file(dir, "tls.", ".latrec", path, sizeof(path)), 0);
    assert_int_equal(tw_read_ring(path, &r), 0);
    assert_true(is_tsc(&r.h));
    assert_true(r.slots[0].t_ns >= r.slots[0].aux); /* tnow in counts, after `before` */
    assert_true(r.slots[0].t_ns > cal_tsc(&r.h, 1));
    assert_true(r.h.flags & TW_F_CLEAN_CLOSE);             /* exit flush ... */
    assert_int_equal(tw_le64(r.h.raw + OFF_CAL_TAKEN), 3); /* ... took its pair */
    tw_free_ring(&r);
}

/* ---- which role gets which timebase --------------------------------------- */

static int choice_child(void *p)
{
    (void)p;
    tw_clean_env();
    setenv("LATREC_CLOCK", "tsc", 1);
    setenv("LATREC_CLOCK_MONOROLE", "mono", 1);
    setenv("LATREC_CLOCK_LIBE3_INBOUND", "tsc", 1);
    setenv("LATREC_CLOCK_APIMONO", "tsc", 1);
    latrec_t r;
    /* env: the role's own variable beats LATREC_CLOCK; a trailing .<tid>
     * is not part of the role */
    if (latrec_open_in(&r, dir, "monorole.42", 4) != 1) return 10;
    latrec_close(&r);
    if (latrec_open_in(&r, dir, "other", 4) != 1) return 11;
    latrec_close(&r);
    latrec_set_output_dir(dir);
    if (!latrec_tls_open_as("libe3.inbound")) return 12;
    /* API beats the environment: per role, then process-wide */
    latrec_set_timebase("apimono", LATREC_TIMEBASE_MONO);
    latrec_set_timebase(NULL, LATREC_TIMEBASE_MONO);
    latrec_set_timebase("apitsc", LATREC_TIMEBASE_TSC);
    if (latrec_open_in(&r, dir, "apimono", 4) != 1) return 13;
    latrec_close(&r);
    if (latrec_open_in(&r, dir, "apitsc", 4) != 1) return 14;
    latrec_close(&r);
    if (latrec_open_in(&r, dir, "apiother", 4) != 1) return 15;
    latrec_close(&r);
    /* -1 drops a choice: back to the environment (LATREC_CLOCK=tsc) */
    latrec_set_timebase(NULL, -1);
    if (latrec_open_in(&r, dir, "dropped", 4) != 1) return 16;
    latrec_close(&r);
    return 0;
}

static void test_role_api_and_environment_choose_the_timebase(void **state)
{
    (void)state;
    need_invariant_tsc();
    char err[2048];
    const int st = tw_run_child(choice_child, NULL, err, sizeof(err));
    assert_true(WIFEXITED(st));
    assert_int_equal(WEXITSTATUS(st), 0);
    assert_string_equal(err, "");
    static const struct {
        const char *name;
        int tsc;
    } want[] = { { "monorole.42", 0 }, { "other", 1 },    { "apimono", 0 },
                 { "apitsc", 1 },      { "apiother", 0 }, { "dropped", 1 } };
    for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
        struct tw_hdr h;
        char path[700];
        snprintf(path, sizeof(path), "%s/%s.latrec", dir, want[i].name);
        assert_int_equal(tw_read_hdr(path, &h), 0);
        if (is_tsc(&h) != want[i].tsc) fail_msg("%s: tsc %d expected", want[i].name, want[i].tsc);
    }
    char path[700];
    struct tw_hdr h;
    assert_int_equal(tw_find_file(dir, "libe3.inbound.", ".latrec", path, sizeof(path)), 0);
    assert_int_equal(tw_read_hdr(path, &h), 0);
    assert_true(is_tsc(&h));
}

/* ---- no invariant TSC: the clock, said once -------------------------------- */

static int fallback_child(void *p)
{
    tw_clean_env();
    setenv("LATREC_CLOCK", "tsc", 1);
    setenv("LATREC_TSC_CPUINFO", (const char *)p, 1);
    latrec_t a, b;
    const uint64_t before = latrec_now_ns();
    if (latrec_open_in(&a, dir, "fell", 4) != 1 || a.timebase != LATREC_TIMEBASE_MONO) return 10;
    if (latrec_open_in(&b, dir, "fell2", 4) != 1 || b.timebase != LATREC_TIMEBASE_MONO) return 11;
    latrec_stamp(&a, 1, LATREC_ENQUEUE, before, 0);
    latrec_stamp(&a, 2, LATREC_ENQUEUE, latrec_now_ns(), 0);
    latrec_close(&a);
    latrec_close(&b);
    return 0;
}

static void test_no_invariant_tsc_falls_back_to_the_clock_with_one_line(void **state)
{
    (void)state;
    char cpuinfo[700];
    snprintf(cpuinfo, sizeof(cpuinfo), "%s/cpuinfo", dir);
    FILE *f = fopen(cpuinfo, "w");
    assert_non_null(f);
    fputs("processor\t: 0\nflags\t\t: fpu tsc constant_tsc rdtscp\n\nprocessor\t: 1\n"
          "flags\t\t: fpu tsc constant_tsc nonstop_tsc\n",
          f); /* the first CPU decides */
    fclose(f);
    char err[2048];
    const int st = tw_run_child(fallback_child, cpuinfo, err, sizeof(err));
    assert_true(WIFEXITED(st));
    assert_int_equal(WEXITSTATUS(st), 0);
    assert_int_equal(tw_count_lines(err), 1);
    if (!strstr(err, "latrec: ring fell: TSC asked for (LATREC_CLOCK) but the TSC is not invariant") ||
        !strstr(err, "no nonstop_tsc in") || !strstr(err, "stamping CLOCK_MONOTONIC"))
        fail_msg("unexpected line: %s", err);
    struct tw_ring r;
    read_named("fell", &r);
    assert_false(is_tsc(&r.h));
    assert_int_equal(tw_le64(r.h.raw + OFF_CAL_TAKEN), 0);
    /* clock stamps: between the clock reads around them */
    assert_true(r.slots[0].t_ns >= r.slots[0].aux);
    assert_true(r.slots[0].t_ns <= r.slots[1].aux);
    assert_true(r.slots[0].t_ns >= r.h.t0_mono);
    tw_free_ring(&r);
    read_named("fell2", &r);
    assert_false(is_tsc(&r.h));
    tw_free_ring(&r);
}

static int bad_value_child(void *p)
{
    (void)p;
    tw_clean_env();
    setenv("LATREC_CLOCK", "fast", 1);
    latrec_t a;
    if (latrec_open_in(&a, dir, "badvalue", 4) != 1) return 10;
    latrec_close(&a);
    if (latrec_open_in(&a, dir, "badvalue2", 4) != 1) return 11;
    latrec_close(&a);
    return a.timebase == LATREC_TIMEBASE_MONO ? 0 : 12;
}

static void test_unknown_clock_value_is_said_once_and_ignored(void **state)
{
    (void)state;
    char err[2048];
    const int st = tw_run_child(bad_value_child, NULL, err, sizeof(err));
    assert_true(WIFEXITED(st));
    assert_int_equal(WEXITSTATUS(st), 0);
    assert_string_equal(err, "latrec: LATREC_CLOCK=fast is not a clock (tsc or mono); ignored\n");
    struct tw_hdr h;
    char path[700];
    snprintf(path, sizeof(path), "%s/badvalue.latrec", dir);
    assert_int_equal(tw_read_hdr(path, &h), 0);
    assert_false(is_tsc(&h));
}

static int setup(void **state)
{
    (void)state;
    tw_tmpdir(dir, sizeof(dir), "tsc");
    return 0;
}

int main(void)
{
#if !defined(__x86_64__)
    printf("test_writer_tsc: SKIP: TSC rings are x86-64 only\n");
    return 0;
#endif
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tsc_ring_header_pairs_and_stamps),
        cmocka_unit_test(test_role_api_and_environment_choose_the_timebase),
        cmocka_unit_test(test_no_invariant_tsc_falls_back_to_the_clock_with_one_line),
        cmocka_unit_test(test_unknown_clock_value_is_said_once_and_ignored),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
