/* read/escape.c and read/outfile.c: every byte kept through JSON and the
 * terminal; outputs never through a link, never over a file latrec did not
 * write. Expected values are written out by hand below. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "read/escape.h"
#include "read/outfile.h"

static void test_utf8_valid(void **state)
{
    (void)state;
    assert_true(latrec_utf8_valid("plain"));
    assert_true(latrec_utf8_valid("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80"));
    assert_false(latrec_utf8_valid("a\xff"));
    assert_false(latrec_utf8_valid("\xc0\xaf"));         /* overlong '/' */
    assert_false(latrec_utf8_valid("\xed\xa0\x80"));     /* a surrogate */
    assert_false(latrec_utf8_valid("\xf4\x90\x80\x80")); /* above U+10FFFF */
    assert_false(latrec_utf8_valid("\xe2\x82"));         /* cut short */
}

static void test_escape_bytes(void **state)
{
    (void)state;
    char *e = latrec_escape_bytes("a\xff" "b\\c\xc3\xa9\xe2\x82");
    assert_string_equal(e, "a\\xffb\\\\c\xc3\xa9\\xe2\\x82");
    free(e);
}

static void test_text_safe(void **state)
{
    (void)state;
    char buf[64];
    assert_string_equal(latrec_text_safe("e\x1b[31m\xff\t\xc3\xa9\x7f", buf, sizeof(buf)),
                        "e\\x1b[31m\\xff\\x09\xc3\xa9\\x7f");
    assert_string_equal(latrec_text_safe("0123456789abcdef", buf, 10), "012345...");
}

static char dir[256];

static int setup(void **state)
{
    (void)state;
    snprintf(dir, sizeof(dir), "%s/outfile-XXXXXX", LATREC_TEST_TMP);
    return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    char cmd[300];
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
    return system(cmd) == 0 ? 0 : -1;
}

static void put_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static void read_file(const char *path, char *buf, size_t len)
{
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    size_t n = fread(buf, 1, len - 1, f);
    buf[n] = '\0';
    fclose(f);
}

static void test_outfile(void **state)
{
    (void)state;
    char path[512], target[512], link[512], buf[64], err[512];
    latrec_outfile o;
    /* a new name: written aside, renamed, listed in the marker */
    snprintf(path, sizeof(path), "%s/a.csv", dir);
    assert_int_equal(latrec_outfile_open(&o, path, 0, err, sizeof(err)), 0);
    fputs("one", o.f);
    assert_int_equal(latrec_outfile_commit(&o, err, sizeof(err)), 0);
    read_file(path, buf, sizeof(buf));
    assert_string_equal(buf, "one");
    int dfd = open(dir, O_RDONLY | O_DIRECTORY);
    assert_true(latrec_outdir_lists(dfd, "a.csv"));
    /* latrec's own file is replaced */
    assert_int_equal(latrec_outfile_open(&o, path, 0, err, sizeof(err)), 0);
    fputs("two", o.f);
    assert_int_equal(latrec_outfile_commit(&o, err, sizeof(err)), 0);
    read_file(path, buf, sizeof(buf));
    assert_string_equal(buf, "two");
    /* a symbolic link is refused and its target untouched */
    snprintf(target, sizeof(target), "%s/precious", dir);
    snprintf(link, sizeof(link), "%s/b.csv", dir);
    put_file(target, "keep");
    assert_int_equal(symlink(target, link), 0);
    assert_int_equal(latrec_outfile_open(&o, link, 0, err, sizeof(err)), -1);
    assert_int_equal(errno, EEXIST);
    assert_non_null(strstr(err, "a symbolic link"));
    read_file(target, buf, sizeof(buf));
    assert_string_equal(buf, "keep");
    /* a file the marker does not list is refused */
    assert_int_equal(latrec_outfile_open(&o, target, 0, err, sizeof(err)), -1);
    assert_non_null(strstr(err, "not written by latrec"));
    /* ...unless the directory is latrec's own (a run directory) */
    assert_int_equal(latrec_outfile_open(&o, target, LATREC_OUT_OWN_DIR, err, sizeof(err)), 0);
    fputs("new", o.f);
    /* the file appears at commit, not before */
    read_file(target, buf, sizeof(buf));
    assert_string_equal(buf, "keep");
    assert_int_equal(latrec_outfile_commit(&o, err, sizeof(err)), 0);
    read_file(target, buf, sizeof(buf));
    assert_string_equal(buf, "new");
    /* abort leaves nothing behind */
    snprintf(path, sizeof(path), "%s/c.csv", dir);
    assert_int_equal(latrec_outfile_open(&o, path, 0, err, sizeof(err)), 0);
    latrec_outfile_abort(&o);
    struct stat st;
    assert_int_equal(stat(path, &st), -1);
    close(dfd);
}

/* Entries in d besides . and .. */
static int count_entries(const char *d)
{
    int n = 0;
    DIR *dp = opendir(d);
    assert_non_null(dp);
    for (struct dirent *e; (e = readdir(dp));) n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
    closedir(dp);
    return n;
}

/* A marker that is a symbolic link is not followed, and the one line names
 * the marker (in the file's directory), not a path under the file: at
 * open, before any data is written, so that nothing is placed unlisted. */
static void test_outfile_marker_link(void **state)
{
    (void)state;
    char sub[300], path[512], marker[512], want[700], target[512], buf[64], err[512];
    latrec_outfile o;
    snprintf(sub, sizeof(sub), "%s/d", dir);
    assert_int_equal(mkdir(sub, 0755), 0);
    snprintf(target, sizeof(target), "%s/precious", dir);
    put_file(target, "keep");
    snprintf(marker, sizeof(marker), "%s/" LATREC_OUT_MARKER, sub);
    assert_int_equal(symlink(target, marker), 0);
    snprintf(path, sizeof(path), "%s/r.txt", sub);
    assert_int_equal(latrec_outfile_open(&o, path, 0, err, sizeof(err)), -1);
    assert_int_equal(errno, ELOOP);
    snprintf(want, sizeof(want), "%s: cannot list r.txt in it: a symbolic link, not followed", marker);
    assert_string_equal(err, want);
    read_file(target, buf, sizeof(buf));
    assert_string_equal(buf, "keep");
    assert_int_equal(count_entries(sub), 1); /* the marker link alone: no temporary */
}

/* A set is placed whole or not at all: a marker turned into a link after
 * open (so the check at open passed) refuses the second file; the first,
 * in another directory, is not placed either and its marker is back to
 * its bytes before; no temporary is left. Then a file that appeared under
 * a name meanwhile (not latrec's): again none placed. Then all placed. */
static void test_outset(void **state)
{
    (void)state;
    char a[300], b[300], pa[512], pb[512], ma[512], mb[512], target[512], buf[256], err[512], want[700];
    snprintf(a, sizeof(a), "%s/a", dir);
    snprintf(b, sizeof(b), "%s/b", dir);
    assert_int_equal(mkdir(a, 0755), 0);
    assert_int_equal(mkdir(b, 0755), 0);
    snprintf(ma, sizeof(ma), "%s/" LATREC_OUT_MARKER, a);
    snprintf(mb, sizeof(mb), "%s/" LATREC_OUT_MARKER, b);
    put_file(ma, "# latrec output directory\nold.csv\n");
    snprintf(pa, sizeof(pa), "%s/one.csv", a);
    snprintf(pb, sizeof(pb), "%s/two.csv", b);
    snprintf(target, sizeof(target), "%s/precious", dir);
    put_file(target, "keep");
    for (int round = 0; round < 3; round++) {
        latrec_outset set = { 0 };
        latrec_outfile *o1 = malloc(sizeof(*o1)), *o2 = malloc(sizeof(*o2));
        assert_int_equal(latrec_outfile_open(o1, pa, 0, err, sizeof(err)), 0);
        assert_int_equal(latrec_outfile_open(o2, pb, 0, err, sizeof(err)), 0);
        fputs("first", o1->f);
        fputs("second", o2->f);
        assert_int_equal(latrec_outset_add(&set, o1), 0);
        assert_int_equal(latrec_outset_add(&set, o2), 0);
        if (round == 0) assert_int_equal(symlink(target, mb), 0);
        if (round == 1) put_file(pb, "user's");
        const int rc = latrec_outset_place(&set, err, sizeof(err));
        assert_int_equal(set.n, 0);
        if (round == 2) {
            assert_int_equal(rc, 0);
            break;
        }
        assert_int_equal(rc, -1);
        if (round == 0) {
            assert_int_equal(errno, ELOOP);
            snprintf(want, sizeof(want), "%s: cannot list two.csv in it: a symbolic link, not followed", mb);
        } else {
            assert_int_equal(errno, EEXIST);
            snprintf(want, sizeof(want),
                     "%s: exists and is not written by latrec (its directory's " LATREC_OUT_MARKER
                     " does not list it): left alone; move it away or write elsewhere",
                     pb);
        }
        assert_string_equal(err, want);
        struct stat st;
        assert_int_equal(stat(pa, &st), -1); /* the first file is not placed */
        read_file(ma, buf, sizeof(buf));
        assert_string_equal(buf, "# latrec output directory\nold.csv\n");
        assert_int_equal(count_entries(a), 1); /* the marker alone */
        read_file(target, buf, sizeof(buf));
        assert_string_equal(buf, "keep");
        assert_int_equal(unlink(round == 0 ? mb : pb), 0);
        assert_int_equal(count_entries(b), 0);
    }
    read_file(pa, buf, sizeof(buf));
    assert_string_equal(buf, "first");
    read_file(pb, buf, sizeof(buf));
    assert_string_equal(buf, "second");
    /* one name twice in a set: refused before any rename (the second
     * would have replaced the first), both files left as they were */
    latrec_outset set = { 0 };
    for (int k = 0; k < 2; k++) {
        latrec_outfile *o = malloc(sizeof(*o));
        assert_int_equal(latrec_outfile_open(o, pa, 0, err, sizeof(err)), 0);
        fputs(k ? "twice" : "once", o->f);
        assert_int_equal(latrec_outset_add(&set, o), 0);
    }
    assert_int_equal(latrec_outset_place(&set, err, sizeof(err)), -1);
    snprintf(want, sizeof(want), "%s: written twice by one command (a latrec bug): none placed", pa);
    assert_string_equal(err, want);
    read_file(pa, buf, sizeof(buf));
    assert_string_equal(buf, "first");
    assert_int_equal(count_entries(a), 2); /* one.csv and the marker: no temporary */
    read_file(ma, buf, sizeof(buf));
    assert_string_equal(buf, "# latrec output directory\nold.csv\none.csv\n");
    int dfd = open(b, O_RDONLY | O_DIRECTORY);
    assert_true(latrec_outdir_lists(dfd, "two.csv"));
    close(dfd);
}

/* Open name in dir, write text, add it to set s. */
static void set_add(latrec_outset *s, const char *name, const char *text)
{
    char path[512], err[512];
    snprintf(path, sizeof(path), "%s/%s", dir, name);
    latrec_outfile *o = malloc(sizeof(*o));
    assert_non_null(o);
    assert_int_equal(latrec_outfile_open(o, path, 0, err, sizeof(err)), 0);
    fputs(text, o->f);
    assert_int_equal(latrec_outset_add(s, o), 0);
}

/* The files an earlier set left that this one does not write: only those
 * the marker lists, under the suffix, regular files, each once; removed
 * with their names out of the marker, nothing else touched. */
/* A listed name with a '/' in it is never stale: ../out.csv (beside the
 * directory), an absolute path, sub/in.csv (a subdirectory) and lnk/x.csv
 * (a link to another directory) would be removed by convert -f. */
static void stale_names_with_slash(void)
{
    char path[600], f[600], inside[600];
    const char *const base = strrchr(dir, '/') + 1;
    snprintf(path, sizeof(path), "%s/" LATREC_OUT_MARKER, dir);
    snprintf(f, sizeof(f), "%s/sub", dir);
    assert_int_equal(mkdir(f, 0755), 0);
    snprintf(inside, sizeof(inside), "%s/sub/in.csv", dir);
    put_file(inside, "user's");
    snprintf(f, sizeof(f), "%s/lnk", dir);
    assert_int_equal(symlink("sub", f), 0);
    char marker[2400];
    snprintf(marker, sizeof(marker),
             "# latrec output directory\n../%s/old.csv\n%s/old.csv\nsub/in.csv\nlnk/in.csv\nold.csv\n", base, dir);
    put_file(path, marker);
    snprintf(f, sizeof(f), "%s/old.csv", dir);
    put_file(f, "earlier");
    latrec_outset set = { 0 };
    set_add(&set, "fresh.csv", "now");
    size_t n = 99;
    char *stale = latrec_outset_stale(&set, ".csv", &n);
    assert_int_equal(n, 1);
    assert_string_equal(stale, "old.csv");
    free(stale);
    latrec_outset_abort(&set);
    char buf[64];
    read_file(inside, buf, sizeof(buf));
    assert_string_equal(buf, "user's");
    snprintf(f, sizeof(f), "%s/lnk", dir);
    assert_int_equal(unlink(f), 0);
    assert_int_equal(unlink(inside), 0);
    snprintf(f, sizeof(f), "%s/sub", dir);
    assert_int_equal(rmdir(f), 0);
    snprintf(f, sizeof(f), "%s/old.csv", dir);
    assert_int_equal(unlink(f), 0);
}

static void test_outset_stale(void **state)
{
    (void)state;
    char path[600], buf[512], err[512];
    snprintf(path, sizeof(path), "%s/" LATREC_OUT_MARKER, dir);
    /* listed: kept.csv (written again), old.csv, again.csv (twice), r.txt,
     * sub.csv (a directory), gone.csv (absent); unlisted: user.csv */
    put_file(path, "# latrec output directory\nkept.csv\nold.csv\nagain.csv\nr.txt\nsub.csv\ngone.csv\nagain.csv\n");
    const char *files[] = { "kept.csv", "old.csv", "again.csv", "r.txt", "user.csv" };
    for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
        char f[600];
        snprintf(f, sizeof(f), "%s/%s", dir, files[i]);
        put_file(f, "earlier");
    }
    snprintf(buf, sizeof(buf), "%s/sub.csv", dir);
    assert_int_equal(mkdir(buf, 0755), 0);
    latrec_outset set = { 0 };
    size_t n = 99;
    assert_null(latrec_outset_stale(&set, ".csv", &n)); /* an empty set: no directory */
    assert_int_equal(n, 0);
    set_add(&set, "kept.csv", "now");
    set_add(&set, "new.csv", "now");
    char *stale = latrec_outset_stale(&set, ".csv", &n);
    assert_int_equal(n, 2);
    assert_string_equal(stale, "old.csv");
    assert_string_equal(stale + strlen(stale) + 1, "again.csv");
    assert_int_equal(latrec_outset_place(&set, err, sizeof(err)), 0);
    assert_int_equal(latrec_outdir_remove(dir, stale, n, err, sizeof(err)), 0);
    free(stale);
    read_file(path, buf, sizeof(buf));
    assert_string_equal(buf, "# latrec output directory\nkept.csv\nr.txt\nsub.csv\ngone.csv\nnew.csv\n");
    struct stat st;
    char f[600];
    snprintf(f, sizeof(f), "%s/old.csv", dir);
    assert_int_equal(stat(f, &st), -1);
    snprintf(f, sizeof(f), "%s/again.csv", dir);
    assert_int_equal(stat(f, &st), -1);
    snprintf(f, sizeof(f), "%s/user.csv", dir);
    read_file(f, buf, sizeof(buf));
    assert_string_equal(buf, "earlier");
    snprintf(f, sizeof(f), "%s/kept.csv", dir);
    read_file(f, buf, sizeof(buf));
    assert_string_equal(buf, "now");
    /* kept.csv new.csv r.txt sub.csv user.csv and the marker */
    assert_int_equal(count_entries(dir), 6);
    snprintf(f, sizeof(f), "%s/sub.csv", dir);
    assert_int_equal(rmdir(f), 0);
    stale_names_with_slash();
    /* a marker that cannot be rewritten: nothing removed, the line names it */
    snprintf(f, sizeof(f), "%s/r.txt", dir);
    snprintf(buf, sizeof(buf), "%s/nowhere", dir);
    assert_int_equal(latrec_outdir_remove(buf, "r.txt", 1, err, sizeof(err)), -1);
    char want[700];
    snprintf(want, sizeof(want), "%s: No such file or directory", buf);
    assert_string_equal(err, want);
    assert_int_equal(stat(f, &st), 0);
}

/* An empty directory name is said so (it was walked from past its end,
 * reading the bytes after the string: `convert -o ''`); a nested one is
 * made. */
static void test_outdir_empty(void **state)
{
    (void)state;
    char err[512] = "", made[700], parent[600];
    errno = 0;
    assert_int_equal(latrec_outdir_make("", err, sizeof(err)), -1);
    assert_int_equal(errno, ENOENT);
    assert_string_equal(err, "an empty directory name");
    snprintf(parent, sizeof(parent), "%s/made", dir);
    snprintf(made, sizeof(made), "%s/here", parent);
    assert_int_equal(latrec_outdir_make(made, err, sizeof(err)), 0);
    struct stat st;
    assert_int_equal(stat(made, &st), 0);
    assert_true(S_ISDIR(st.st_mode));
    assert_int_equal(rmdir(made), 0);
    assert_int_equal(rmdir(parent), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_utf8_valid),
        cmocka_unit_test(test_escape_bytes),
        cmocka_unit_test(test_text_safe),
        cmocka_unit_test_setup_teardown(test_outfile, setup, teardown),
        cmocka_unit_test_setup_teardown(test_outfile_marker_link, setup, teardown),
        cmocka_unit_test_setup_teardown(test_outset, setup, teardown),
        cmocka_unit_test_setup_teardown(test_outset_stale, setup, teardown),
        cmocka_unit_test_setup_teardown(test_outdir_empty, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
