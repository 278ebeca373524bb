/*
 * Process-wide settings read from the environment and the API: per-thread
 * ring sizing (LATREC_ENTRIES_LOG2_<ROLE> > LATREC_ENTRIES_LOG2 > 18, warn
 * once and fall through on bad values) and the output directory (open_in dir
 * > latrec_set_output_dir > LATREC_OUTPUT_DIR > compiled default). Every case
 * runs in a forked child, so the environment and the warn-once state are
 * fresh; the parent judges from the files and the child's stderr.
 */
#include <stdarg.h>
#include <setjmp.h>
#include <stddef.h>
#include <cmocka.h>

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <latrec/latrec.h>

#include "test_writer_util.h"

#ifndef LATREC_TEST_DEFAULT_DIR
#error "LATREC_TEST_DEFAULT_DIR must be the library's compiled-in LATREC_DEFAULT_DIR"
#endif

#define ROLE_VAR "LATREC_ENTRIES_LOG2_MY_ROLE_X"
#define GLOBAL_VAR "LATREC_ENTRIES_LOG2"


/* ---- sizing ----------------------------------------------------------------- */

struct size_case {
    const char *role;
    const char *role_var;   /* NULL: unset */
    const char *role_value;
    const char *global;     /* NULL: unset */
    unsigned    threads;    /* rings opened (one per thread) */
    const char *dir;
};

static void *size_thread(void *p)
{
    const struct size_case *c = p;
    return latrec_tls_open_as(c->role) ? (void *)1 : NULL;
}

static int size_child(void *p)
{
    const struct size_case *c = p;
    tw_clean_env();
    if (c->role_var) setenv(c->role_var, c->role_value, 1);
    if (c->global) setenv(GLOBAL_VAR, c->global, 1);
    latrec_set_output_dir(c->dir);
    for (unsigned i = 0; i < c->threads; i++) {
        pthread_t t;
        void *ok = NULL;
        if (pthread_create(&t, NULL, size_thread, (void *)c) != 0) return 50;
        pthread_join(t, &ok);
        if (!ok) return 51;
    }
    return 0;
}

/* Lines of err that contain needle. */
static int lines_with(const char *err, const char *needle)
{
    int n = 0;
    for (const char *line = err; *line;) {
        const char *nl = strchr(line, '\n');
        size_t len = nl ? (size_t)(nl - line) : strlen(line);
        char buf[1024];
        snprintf(buf, sizeof(buf), "%.*s", (int)len, line);
        n += strstr(buf, needle) != NULL;
        line += len + (nl ? 1 : 0);
    }
    return n;
}

/* Runs the case; checks every ring has 2^want entries; returns the child's
 * stderr in err. */
static void run_size_case(struct size_case c, unsigned want, char *err, size_t err_len)
{
    char dir[512];
    tw_tmpdir(dir, sizeof(dir), "size");
    c.dir = dir;
    if (!c.threads) c.threads = 1;
    int st = tw_run_child(size_child, &c, err, err_len);
    assert_true(WIFEXITED(st));
    assert_int_equal(WEXITSTATUS(st), 0);
    assert_int_equal(tw_count_files(dir, ".latrec"), (int)c.threads);
    assert_int_equal(tw_count_files(dir, NULL), (int)c.threads);
    char prefix[128];
    snprintf(prefix, sizeof(prefix), "%s.", c.role);
    char path[700];
    assert_int_equal(tw_find_file(dir, prefix, ".latrec", path, sizeof(path)), 0);
    struct tw_hdr h;
    assert_int_equal(tw_read_hdr(path, &h), 0);
    assert_int_equal(h.entries, UINT64_C(1) << want);
    struct stat sb;
    assert_int_equal(stat(path, &sb), 0);
    assert_int_equal((uint64_t)sb.st_size, TW_HDR_LEN + (UINT64_C(1) << want) * TW_REC_LEN);
    tw_rm_rf(dir);
}

static void test_size_defaults_to_18_without_variables(void **state)
{
    (void)state;
    char err[4096];
    run_size_case((struct size_case){"my.role-x", NULL, NULL, NULL, 1, NULL}, 18, err, sizeof(err));
    assert_string_equal(err, "");
}

static void test_size_global_variable_beats_default(void **state)
{
    (void)state;
    char err[4096];
    run_size_case((struct size_case){"my.role-x", NULL, NULL, "13", 1, NULL}, 13, err, sizeof(err));
    assert_string_equal(err, "");
}

static void test_size_role_variable_beats_global(void **state)
{
    (void)state;
    char err[4096];
    run_size_case((struct size_case){"my.role-x", ROLE_VAR, "12", "13", 1, NULL}, 12, err, sizeof(err));
    assert_string_equal(err, "");
    /* Upper-casing: a mixed-case role maps to the same variable. */
    run_size_case((struct size_case){"My.Role-X", ROLE_VAR, "12", "13", 1, NULL}, 12, err, sizeof(err));
    assert_string_equal(err, "");
    /* Another role's variable does not apply. */
    run_size_case((struct size_case){"my.role-x", "LATREC_ENTRIES_LOG2_OTHER", "12", NULL, 1, NULL}, 18,
                  err, sizeof(err));
    assert_string_equal(err, "");
    /* Empty means unset: no warning. */
    run_size_case((struct size_case){"my.role-x", ROLE_VAR, "", "14", 1, NULL}, 14, err, sizeof(err));
    assert_string_equal(err, "");
}

static void test_size_out_of_range_role_value_warns_and_falls_to_global(void **state)
{
    (void)state;
    static const char *bad[] = {"11", "29", "0", "-12", "99999999999999999999"};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        char err[4096];
        run_size_case((struct size_case){"my.role-x", ROLE_VAR, bad[i], "13", 1, NULL}, 13, err,
                      sizeof(err));
        assert_int_equal(tw_count_lines(err), 1);
        assert_int_equal(lines_with(err, ROLE_VAR), 1);
        assert_int_equal(lines_with(err, bad[i]), 1);
    }
}

static void test_size_unparsable_values_warn_and_fall_through(void **state)
{
    (void)state;
    char err[4096];
    /* role "abc" -> global 13 */
    run_size_case((struct size_case){"my.role-x", ROLE_VAR, "abc", "13", 1, NULL}, 13, err, sizeof(err));
    assert_int_equal(tw_count_lines(err), 1);
    assert_int_equal(lines_with(err, ROLE_VAR "=abc"), 1);
    /* role "12x", global "abc" -> default, one warning per variable */
    run_size_case((struct size_case){"my.role-x", ROLE_VAR, "12x", "abc", 1, NULL}, 18, err, sizeof(err));
    assert_int_equal(tw_count_lines(err), 2);
    assert_int_equal(lines_with(err, ROLE_VAR "=12x"), 1);
    assert_int_equal(lines_with(err, GLOBAL_VAR "=abc"), 1);
    /* bad global alone -> default */
    static const char *bad_global[] = {"11", "29", "12x", "abc"};
    for (size_t i = 0; i < sizeof(bad_global) / sizeof(bad_global[0]); i++) {
        run_size_case((struct size_case){"my.role-x", NULL, NULL, bad_global[i], 1, NULL}, 18, err,
                      sizeof(err));
        assert_int_equal(tw_count_lines(err), 1);
        char needle[64];
        snprintf(needle, sizeof(needle), GLOBAL_VAR "=%s", bad_global[i]);
        assert_int_equal(lines_with(err, needle), 1);
    }
}

static void test_size_warning_is_said_once_per_process(void **state)
{
    (void)state;
    char err[4096];
    /* three threads, three rings, all sized from the fallback; one line */
    run_size_case((struct size_case){"my.role-x", ROLE_VAR, "29", "14", 3, NULL}, 14, err, sizeof(err));
    assert_int_equal(tw_count_lines(err), 1);
    assert_int_equal(lines_with(err, ROLE_VAR), 1);
    run_size_case((struct size_case){"my.role-x", ROLE_VAR, "12x", "abc", 3, NULL}, 18, err, sizeof(err));
    assert_int_equal(tw_count_lines(err), 2);
}

/* ---- output directory --------------------------------------------------------- */

struct dir_case {
    const char *open_dir;  /* latrec_open_in's dir (NULL: resolve) */
    const char *set_dir;   /* latrec_set_output_dir (NULL: not called) */
    int         set_then_clear; /* call latrec_set_output_dir(set_clear) after set_dir */
    const char *set_clear;
    const char *env_dir;   /* LATREC_OUTPUT_DIR (NULL: unset) */
    const char *name;
    int         use_tls;
};

static void *dir_tls_thread(void *p)
{
    const struct dir_case *c = p;
    latrec_t *r = latrec_tls_open_as(c->name);
    if (r) latrec_tstamp(1, 0x10, 2, 3);
    return r;
}

static int dir_child(void *p)
{
    const struct dir_case *c = p;
    tw_clean_env();
    if (c->env_dir) setenv("LATREC_OUTPUT_DIR", c->env_dir, 1);
    if (c->set_dir) latrec_set_output_dir(c->set_dir);
    if (c->set_then_clear) latrec_set_output_dir(c->set_clear);
    if (c->use_tls) {
        pthread_t t;
        void *r = NULL;
        if (pthread_create(&t, NULL, dir_tls_thread, (void *)c) != 0) return 60;
        pthread_join(t, &r);
        return r ? 0 : 61;
    }
    latrec_t r;
    if (latrec_open_in(&r, c->open_dir, c->name, 4) != 1) return 62;
    latrec_stamp(&r, 1, 0x10, 2, 3);
    latrec_close(&r);
    return 0;
}

struct dirs {
    char root[512], a[600], b[600], c[600];
};

static void make_dirs(struct dirs *d, const char *tag)
{
    tw_tmpdir(d->root, sizeof(d->root), tag);
    snprintf(d->a, sizeof(d->a), "%s/open-dir", d->root);
    snprintf(d->b, sizeof(d->b), "%s/set-dir", d->root);
    snprintf(d->c, sizeof(d->c), "%s/env-dir", d->root);
}

static void run_dir_case(const struct dir_case *c)
{
    char err[4096];
    int st = tw_run_child(dir_child, (void *)c, err, sizeof(err));
    assert_true(WIFEXITED(st));
    assert_int_equal(WEXITSTATUS(st), 0);
    assert_string_equal(err, "");
}

/* The ring is in `where` (exactly one file) and nowhere else among d. */
static void assert_only_in(const struct dirs *d, const char *where, const char *name)
{
    const char *all[] = {d->a, d->b, d->c};
    for (int i = 0; i < 3; i++) {
        int n = tw_count_files(all[i], ".latrec");
        if (strcmp(all[i], where) == 0) {
            assert_int_equal(n, 1);
            char path[700];
            assert_int_equal(tw_find_file(where, name, ".latrec", path, sizeof(path)), 0);
            struct tw_ring r;
            assert_int_equal(tw_read_ring(path, &r), 0);
            assert_int_equal(tw_valid_count(&r), 1);
            assert_int_equal(r.slots[0].aux, 2);
            assert_int_equal(r.slots[0].aux2, 3);
            tw_free_ring(&r);
        } else {
            assert_true(n <= 0); /* -1: never created */
        }
    }
}

static void test_dir_open_in_argument_beats_everything(void **state)
{
    (void)state;
    struct dirs d;
    make_dirs(&d, "dir-open");
    struct dir_case c = {d.a, d.b, 0, NULL, d.c, "byarg", 0};
    run_dir_case(&c);
    assert_only_in(&d, d.a, "byarg");
    tw_rm_rf(d.root);
}

static void test_dir_set_output_dir_beats_environment(void **state)
{
    (void)state;
    struct dirs d;
    make_dirs(&d, "dir-set");
    struct dir_case c = {NULL, d.b, 0, NULL, d.c, "byset", 0};
    run_dir_case(&c);
    assert_only_in(&d, d.b, "byset");
    /* the per-thread layer resolves the same way */
    c.use_tls = 1;
    c.name = "byset-tls";
    run_dir_case(&c);
    assert_int_equal(tw_count_files(d.b, ".latrec"), 2);
    assert_true(tw_count_files(d.c, NULL) <= 0);
    /* "" for open_in's dir means "resolve", like NULL */
    c.use_tls = 0;
    c.open_dir = "";
    c.name = "byset-empty";
    run_dir_case(&c);
    assert_int_equal(tw_count_files(d.b, ".latrec"), 3);
    tw_rm_rf(d.root);
}

static void test_dir_environment_beats_default(void **state)
{
    (void)state;
    struct dirs d;
    make_dirs(&d, "dir-env");
    struct dir_case c = {NULL, NULL, 0, NULL, d.c, "byenv", 0};
    run_dir_case(&c);
    assert_only_in(&d, d.c, "byenv");
    /* set then cleared (NULL or ""): back to the environment */
    struct dir_case cleared = {NULL, d.b, 1, NULL, d.c, "cleared", 1};
    run_dir_case(&cleared);
    struct dir_case emptied = {NULL, d.b, 1, "", d.c, "emptied", 0};
    run_dir_case(&emptied);
    assert_int_equal(tw_count_files(d.c, ".latrec"), 3);
    assert_true(tw_count_files(d.b, NULL) <= 0);
    tw_rm_rf(d.root);
}

/* The compiled-in default (/tmp/latrec unless configured). This is the one
 * case that writes outside LATREC_TEST_TMP: a uniquely named ring there,
 * removed again (and the directory too, when this test created it). */
static void test_dir_compiled_default_is_used_last(void **state)
{
    (void)state;
    struct stat sb;
    const int existed = stat(LATREC_TEST_DEFAULT_DIR, &sb) == 0;
    if (existed && access(LATREC_TEST_DEFAULT_DIR, W_OK | X_OK) != 0) {
        /* another user's (root ran a program without a ring directory) */
        print_message("skipped: %s exists and this user cannot write in it: %s\n", LATREC_TEST_DEFAULT_DIR,
                      strerror(errno));
        skip();
    }
    char name[64], path[700];
    snprintf(name, sizeof(name), "writer-env-default-%d", (int)getpid());
    snprintf(path, sizeof(path), "%s/%s.latrec", LATREC_TEST_DEFAULT_DIR, name);
    unlink(path);
    struct dir_case c = {NULL, NULL, 0, NULL, NULL, name, 0};
    run_dir_case(&c);
    struct tw_ring r;
    const int rc = tw_read_ring(path, &r);
    unlink(path);
    if (!existed) rmdir(LATREC_TEST_DEFAULT_DIR);
    assert_int_equal(rc, 0);
    assert_string_equal(r.h.name, name);
    assert_int_equal(tw_valid_count(&r), 1);
    tw_free_ring(&r);

    /* An empty LATREC_OUTPUT_DIR means unset. */
    struct dir_case e = {NULL, NULL, 0, NULL, "", name, 0};
    run_dir_case(&e);
    const int rc2 = tw_read_ring(path, &r);
    unlink(path);
    if (!existed) rmdir(LATREC_TEST_DEFAULT_DIR);
    assert_int_equal(rc2, 0);
    assert_int_equal(tw_valid_count(&r), 1);
    tw_free_ring(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_size_defaults_to_18_without_variables),
        cmocka_unit_test(test_size_global_variable_beats_default),
        cmocka_unit_test(test_size_role_variable_beats_global),
        cmocka_unit_test(test_size_out_of_range_role_value_warns_and_falls_to_global),
        cmocka_unit_test(test_size_unparsable_values_warn_and_fall_through),
        cmocka_unit_test(test_size_warning_is_said_once_per_process),
        cmocka_unit_test(test_dir_open_in_argument_beats_everything),
        cmocka_unit_test(test_dir_set_output_dir_beats_environment),
        cmocka_unit_test(test_dir_environment_beats_default),
        cmocka_unit_test(test_dir_compiled_default_is_used_last),
    };
    return cmocka_run_group_tests_name("writer_env", tests, NULL, NULL);
}
