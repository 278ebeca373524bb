/*
 * test_read_ringset.c - loading run directories and ring directories.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <grp.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "read/ringset.h"
#include "ringgen.h"

#define TMPDIR LATREC_TEST_TMP "/read_ringset"

static char pbuf[512];

static const char *P(const char *rel)
{
    snprintf(pbuf, sizeof pbuf, TMPDIR "/%s", rel);
    return pbuf;
}

/* A small valid ring named `name` with `n` records, written to rel. */
static void put_ring(const char *rel, const char *name, int n)
{
    ringgen g;
    assert_int_equal(ringgen_init(&g, 2, 8, name), 0);
    for (int i = 0; i < n; i++)
        ringgen_stamp(&g, i + 1, 0, 0x21, 1000 + i, 0, 0);
    ringgen_set_u64(&g, RINGGEN_OFF_REC_COUNT, (uint64_t)n);
    assert_int_equal(ringgen_write(&g, P(rel)), 0);
    ringgen_free(&g);
}

static void put_file(const char *rel, const char *text)
{
    FILE *f = fopen(P(rel), "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static int setup(void **state)
{
    (void)state;
    umask(022); /* the tree is read by an unprivileged user too (test_permission) */
    mkdir(LATREC_TEST_TMP, 0755);
    /* start clean: the tree below is rebuilt on every run */
    if (system("rm -rf '" TMPDIR "'") != 0)
        return -1;
    mkdir(TMPDIR, 0755);

    /* a run directory */
    mkdir(P("run"), 0755);
    mkdir(P("run/rings"), 0755);
    put_ring("run/rings/b.12.latrec", "b.12", 3);
    put_ring("run/rings/a.11.latrec", "a.11", 2);
    put_ring("run/rings/c.13.latrec.part", "c.13", 1);
    put_file("run/rings/notes.txt", "not a ring\n");
    put_file("run/rings/bad.latrec", "this is not a ring, and short\n");
    put_ring("run/elsewhere.latrec", "elsewhere", 1);
    if (symlink("../elsewhere.latrec", P("run/rings/link.latrec")) != 0)
        return -1;
    put_ring("run/sched.latrec", "sched", 4);
    put_ring("run/top.latrec", "top", 1); /* not read: rings/ wins */

    /* a plain directory of rings, name order differs from creation order */
    mkdir(P("plain"), 0755);
    put_ring("plain/z.1.latrec", "z.1", 1);
    put_ring("plain/m.1.latrec", "m.1", 1);
    put_ring("plain/libe3.pub.latrec", "libe3.pub", 1);

    /* empty ones */
    mkdir(P("empty"), 0755);
    mkdir(P("partonly"), 0755);
    put_ring("partonly/x.1.latrec.part", "x.1", 1);
    mkdir(P("emptyrun"), 0755);
    mkdir(P("emptyrun/rings"), 0755);
    mkdir(P("schedonly"), 0755);
    mkdir(P("schedonly/rings"), 0755);
    put_ring("schedonly/sched.latrec", "sched", 1);
    put_file("afile", "x");
    return 0;
}

/* The run directory, its rings' scans on `threads` threads (rings/ holds
 * four files named *.latrec: two threads take them). */
static void check_run_dir(int threads)
{
    latrec_ringset set;
    char err[256] = "untouched";
    const char *dir = P("run");
    assert_int_equal(latrec_ringset_open_on(&set, &dir, 1, threads, err, sizeof err), 0);
    assert_string_equal(err, "");
    static const char *order[] = {"a.11.latrec", "b.12.latrec", "bad.latrec",
                                  "link.latrec", "sched.latrec"};
    assert_int_equal(set.n, 5);
    assert_int_equal(set.n_ok, 3);
    for (size_t i = 0; i < set.n; i++)
        assert_string_equal(set.rings[i].basename, order[i]);
    assert_string_equal(set.rings[0].path, TMPDIR "/run/rings/a.11.latrec");
    assert_string_equal(set.rings[0].name, "a.11");
    assert_int_equal(set.rings[1].valid, 3);
    assert_int_equal(set.rings[2].status, LATREC_RING_REJECTED);
    assert_string_equal(set.rings[2].error, "shorter than a header: 30 bytes");
    assert_int_equal(set.rings[3].status, LATREC_RING_REJECTED);
    assert_string_equal(set.rings[3].error, "symbolic link: not followed");
    assert_string_equal(set.rings[4].path, TMPDIR "/run/sched.latrec");
    assert_int_equal(set.rings[4].valid, 4);
    latrec_ringset_close(&set);
    latrec_ringset_close(&set);
}

static void test_run_dir(void **state)
{
    (void)state;
    check_run_dir(1);
}

/* The same set in the same order when two threads scan the rings. */
static void test_run_dir_threads(void **state)
{
    (void)state;
    check_run_dir(2);
    check_run_dir(64);
}

static void test_plain_and_several(void **state)
{
    (void)state;
    latrec_ringset set;
    char err[256];
    assert_int_equal(latrec_ringset_open_dir(&set, P("plain/"), err, sizeof err), 0);
    assert_int_equal(set.n, 3);
    assert_string_equal(set.rings[0].basename, "libe3.pub.latrec");
    assert_string_equal(set.rings[1].basename, "m.1.latrec");
    assert_string_equal(set.rings[2].basename, "z.1.latrec");
    /* no doubled slash from the trailing one */
    assert_string_equal(set.rings[0].path, TMPDIR "/plain/libe3.pub.latrec");
    latrec_ringset_close(&set);

    /* several directories keep the order given */
    char a[512], b[512];
    snprintf(a, sizeof a, "%s", P("schedonly"));
    snprintf(b, sizeof b, "%s", P("plain"));
    const char *dirs[] = {a, b};
    assert_int_equal(latrec_ringset_open(&set, dirs, 2, err, sizeof err), 0);
    assert_int_equal(set.n, 4);
    assert_int_equal(set.n_ok, 4);
    assert_string_equal(set.rings[0].basename, "sched.latrec");
    assert_string_equal(set.rings[1].basename, "libe3.pub.latrec");
    latrec_ringset_close(&set);
}

static void expect_error(const char *rel, int rc, const char *suffix)
{
    latrec_ringset set;
    char err[512], want[600];
    assert_int_equal(latrec_ringset_open_dir(&set, P(rel), err, sizeof err), rc);
    snprintf(want, sizeof want, TMPDIR "/%s: %s", rel, suffix);
    assert_string_equal(err, want);
    assert_int_equal(set.n, 0);
    assert_null(set.rings);
    latrec_ringset_close(&set);
}

static void test_errors(void **state)
{
    (void)state;
    expect_error("missing", -ENOENT, "no such directory");
    expect_error("afile", -ENOTDIR, "not a directory");
    expect_error("empty", -ENODATA, "no .latrec rings");
    expect_error("partonly", -ENODATA, "no .latrec rings");
    expect_error("emptyrun", -ENODATA, "no .latrec rings");

    latrec_ringset set;
    char err[256];
    assert_int_equal(latrec_ringset_open_dir(&set, P("schedonly"), err, sizeof err), 0);
    assert_int_equal(set.n, 1);
    latrec_ringset_close(&set);

    /* one bad directory among several fails the whole load, naming it */
    char a[512], b[512];
    snprintf(a, sizeof a, "%s", P("plain"));
    snprintf(b, sizeof b, "%s", P("missing"));
    const char *dirs[] = {a, b};
    assert_int_equal(latrec_ringset_open(&set, dirs, 2, err, sizeof err), -ENOENT);
    assert_string_equal(err, TMPDIR "/missing: no such directory");
    assert_int_equal(set.n, 0);
    assert_int_equal(latrec_ringset_open(&set, dirs, 0, err, sizeof err), -EINVAL);
    assert_string_equal(err, "no directory given");
    /* err may be NULL */
    assert_int_equal(latrec_ringset_open(&set, dirs + 1, 1, NULL, 0), -ENOENT);
}

/* The permission checks, without cmocka (they may run in a child), on the
 * tree below `base`: 0 when every expectation holds, else the number of
 * the failed one. */
static int permission_checks(const char *base)
{
    latrec_ringset set;
    char err[512], want[600], locked[512], plain[512];
    snprintf(locked, sizeof locked, "%s/locked", base);
    snprintf(plain, sizeof plain, "%s/plain", base);
    if (latrec_ringset_open_dir(&set, locked, err, sizeof err) != -EACCES)
        return 1;
    snprintf(want, sizeof want, "%s: permission denied", locked);
    if (strcmp(err, want) != 0 || set.n != 0)
        return 2;
    /* an unreadable ring is rejected; the others still load */
    if (latrec_ringset_open_dir(&set, plain, err, sizeof err) != 0)
        return 3;
    int bad = set.n != 4 || set.n_ok != 3 ||
              strcmp(set.rings[2].basename, "unreadable.latrec") != 0 ||
              strcmp(set.rings[2].error, strerror(EACCES)) != 0;
    latrec_ringset_close(&set);
    return bad ? 4 : 0;
}

static void test_permission(void **state)
{
    (void)state;
    mkdir(P("locked"), 0755);
    put_ring("locked/a.1.latrec", "a.1", 1);
    put_ring("plain/unreadable.latrec", "u", 1);
    chmod(P("locked"), 0);
    chmod(P("plain/unreadable.latrec"), 0);
    int rc;
    if (geteuid() != 0) {
        rc = permission_checks(TMPDIR);
    } else {
        /* root reads everything: check as an unprivileged user instead. The
         * child enters the tree while still root and then names it
         * relatively, so the checkout's own directories (which may be
         * closed to other users, e.g. a 0700 mktemp -d) are not in the way. */
        pid_t pid = fork();
        assert_true(pid >= 0);
        if (pid == 0) {
            if (chdir(TMPDIR) != 0)
                _exit(101);
            if (setgroups(0, NULL) != 0 || setgid(65534) != 0 || setuid(65534) != 0)
                _exit(100);
            _exit(permission_checks("."));
        }
        int status;
        assert_int_equal(waitpid(pid, &status, 0), pid);
        assert_true(WIFEXITED(status));
        rc = WEXITSTATUS(status);
    }
    chmod(P("locked"), 0755);
    unlink(P("plain/unreadable.latrec"));
    assert_int_equal(rc, 0);
}

static void test_boots(void **state)
{
    (void)state;
    uint8_t b1[16], b2[16];
    memset(b1, 0x11, 16);
    memset(b2, 0x22, 16);
    mkdir(P("boots"), 0755);
    ringgen g;
    const struct {
        const char *file;
        const uint8_t *boot;
    } rings[] = {{"a.latrec", NULL}, {"b.latrec", b1}, {"c.latrec", NULL},
                 {"d.latrec", b1}, {"e.latrec", b2}};
    for (size_t i = 0; i < 5; i++) {
        char rel[64];
        assert_int_equal(ringgen_init(&g, 3, 4, "x"), 0);
        ringgen_stamp(&g, 1, 0, 0x21, 5, 0, 0);
        if (rings[i].boot)
            ringgen_set_bytes(&g, RINGGEN_OFF_BOOT_ID, rings[i].boot, 16);
        snprintf(rel, sizeof rel, "boots/%s", rings[i].file);
        assert_int_equal(ringgen_write(&g, P(rel)), 0);
        ringgen_free(&g);
    }
    latrec_ringset set;
    char err[256];
    size_t a = 99, b = 99;
    assert_int_equal(latrec_ringset_open_dir(&set, P("boots"), err, sizeof err), 0);
    assert_int_equal(latrec_ringset_boots_differ(&set, &a, &b), 1);
    assert_int_equal(a, 1);
    assert_int_equal(b, 4);
    latrec_ringset_close(&set);

    unlink(P("boots/e.latrec"));
    assert_int_equal(latrec_ringset_open_dir(&set, P("boots"), err, sizeof err), 0);
    assert_int_equal(latrec_ringset_boots_differ(&set, NULL, NULL), 0);
    latrec_ringset_close(&set);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_run_dir),
        cmocka_unit_test(test_run_dir_threads),
        cmocka_unit_test(test_plain_and_several),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_permission),
        cmocka_unit_test(test_boots),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
