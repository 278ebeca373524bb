/* The shared input of report, hist and convert (src/engine/input.c) over
 * synthetic rings written with ringgen.h: a ring file truncated in the
 * middle of a pass (named once, the other rings read whole), and totals
 * that saturate instead of wrapping. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "engine/input.h"
#include "latrec/stages.h"
#include "ringgen.h"

#define MS 1000000ull
#define US 1000ull

static char dir[512];

static void path_of(char *p, size_t n, const char *sub, const char *name)
{
    snprintf(p, n, "%s/%s/%s", dir, sub, name);
}

static int setup(void **state)
{
    (void)state;
    snprintf(dir, sizeof(dir), "%s/input.%d", LATREC_TEST_TMP, (int)getpid());
    mkdir(LATREC_TEST_TMP, 0755);
    return mkdir(dir, 0755);
}

static int teardown(void **state)
{
    (void)state;
    char cmd[700];
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
    return system(cmd) == 0 ? 0 : -1;
}

/* Run f with stderr going to a file; its text (first line) into out. */
static void capture_stderr(char *out, size_t n, void (*f)(void *), void *arg)
{
    char p[600];
    snprintf(p, sizeof(p), "%s/stderr.txt", dir);
    fflush(stderr);
    int saved = dup(2), fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    assert_true(saved >= 0 && fd >= 0);
    dup2(fd, 2);
    close(fd);
    f(arg);
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    FILE *in = fopen(p, "r");
    assert_non_null(in);
    out[0] = '\0';
    size_t got = fread(out, 1, n - 1, in);
    out[got] = '\0';
    fclose(in);
}

/* Open the input of directory `sub` as report does, quiet. */
static void open_quiet(latrec_input *in, const char *sub)
{
    latrec_input_opts o;
    memset(&o, 0, sizeof(o));
    latrec_input_add_dir(&o, sub);
    o.quiet = 1;
    assert_int_equal(latrec_input_open(in, &o, "test"), 0);
}

struct pass_state {
    latrec_input *in;
    const char *truncate_path;
    uint64_t n_a, n_b;
};

/* One pass: after 100 records of ring 0, its file is cut to 8 KiB. */
static void run_pass(void *arg)
{
    struct pass_state *ps = arg;
    latrec_merge m;
    latrec_merged x;
    assert_int_equal(latrec_input_rewind(ps->in, &m), 0);
    uint64_t n = 0;
    while (latrec_input_next(ps->in, &m, &x)) {
        if (++n == 100) assert_int_equal(truncate(ps->truncate_path, 8192), 0);
        if (x.ring == 0) ps->n_a++;
        else ps->n_b++;
    }
    latrec_merge_free(&m);
}

static void test_truncated_while_read(void **state)
{
    (void)state;
    char sub[600], pa[700], pb[700];
    snprintf(sub, sizeof(sub), "%s/shrink", dir);
    assert_int_equal(mkdir(sub, 0755), 0);
    /* a: 2^16 records 1 us apart from 1 s; b: 10 records after all of a */
    ringgen a, b;
    assert_int_equal(ringgen_init(&a, 3, 1u << 16, "a.1"), 0);
    assert_int_equal(ringgen_init(&b, 3, 16, "b.2"), 0);
    for (uint64_t i = 0; i < (1u << 16); i++) ringgen_stamp(&a, i + 1, 0, LATREC_ENQUEUE, 1000 * MS + i * US, 0, 0);
    for (uint64_t i = 0; i < 10; i++) ringgen_stamp(&b, i + 1, 0, LATREC_ENQUEUE, 2000 * MS + i * US, 0, 0);
    path_of(pa, sizeof(pa), "shrink", "a.1.latrec");
    path_of(pb, sizeof(pb), "shrink", "b.2.latrec");
    assert_int_equal(ringgen_write(&a, pa), 0);
    assert_int_equal(ringgen_write(&b, pb), 0);
    ringgen_free(&a);
    ringgen_free(&b);

    latrec_input in;
    open_quiet(&in, sub);
    struct pass_state ps = { &in, pa, 0, 0 };
    char err[1024];
    capture_stderr(err, sizeof(err), run_pass, &ps);
    assert_int_equal(ps.n_a, (8192 - 4096) / 32);
    assert_int_equal(ps.n_b, 10);
    char want[1200];
    snprintf(want, sizeof(want),
             "latrec: %s: truncated while read (now at most 8192 bytes): the records past "
             "that were not read\n",
             pa);
    assert_string_equal(err, want);
    latrec_input_totals t;
    latrec_input_totals_get(&in, &t);
    assert_int_equal(t.truncated, 1);
    assert_int_equal(t.rings, 2);
    assert_int_equal(in.n_rejected, 1); /* exit status 3: not everything read whole */
    /* a second pass says nothing again */
    ps.n_a = ps.n_b = 0;
    capture_stderr(err, sizeof(err), run_pass, &ps);
    assert_string_equal(err, "");
    assert_int_equal(ps.n_a + ps.n_b, 128 + 10);
    latrec_input_close(&in);
}

/* Three full rings with rec_count near 2^63: each loss is plausible, their
 * sum is not representable: the total saturates as a lower bound. */
static void test_loss_total_saturates(void **state)
{
    (void)state;
    char sub[600], p[700];
    snprintf(sub, sizeof(sub), "%s/loss", dir);
    assert_int_equal(mkdir(sub, 0755), 0);
    const uint64_t rc = (1ull << 62) + (1ull << 61); /* 1.5 * 2^62, congruent with slot 15 */
    for (int k = 0; k < 3; k++) {
        ringgen g;
        char name[16];
        snprintf(name, sizeof(name), "r.%d", k + 1);
        assert_int_equal(ringgen_init(&g, 3, 16, name), 0);
        for (uint64_t i = 0; i < 16; i++) ringgen_stamp(&g, i + 1, 0, LATREC_ENQUEUE, 1000 * MS + i * US, 0, 0);
        ringgen_set_u64(&g, RINGGEN_OFF_REC_COUNT, rc);
        snprintf(name, sizeof(name), "r.%d.latrec", k + 1);
        path_of(p, sizeof(p), "loss", name);
        assert_int_equal(ringgen_write(&g, p), 0);
        ringgen_free(&g);
    }
    latrec_input in;
    open_quiet(&in, sub);
    assert_int_equal(in.set.rings[0].lost, rc - 16);
    assert_false(in.set.rings[0].lost_lower_bound);
    latrec_input_totals t;
    latrec_input_totals_get(&in, &t);
    assert_int_equal(t.lost, INT64_MAX);
    assert_true(t.lost_lower_bound);
    latrec_input_close(&in);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_truncated_while_read),
        cmocka_unit_test(test_loss_total_saturates),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
