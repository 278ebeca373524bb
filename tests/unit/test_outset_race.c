/* read/outfile.c: a set of files placed together is all or nothing, also
 * when a file appears under one of its names between the last check and
 * the renames. renameat2 is wrapped in this binary (the library is linked
 * statically, so its calls are wrapped): just before the rename to a chosen
 * name, a file of "someone else" is created there. */
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

#include "read/outfile.h"

#define DIR_ LATREC_TEST_TMP "/outset_race"

int __real_renameat2(int olddfd, const char *oldpath, int newdfd, const char *newpath, unsigned int flags);

static const char *race_name; /* the name someone takes just before latrec renames to it */

int __wrap_renameat2(int olddfd, const char *oldpath, int newdfd, const char *newpath, unsigned int flags)
{
    if (race_name && strcmp(newpath, race_name) == 0) {
        int fd = openat(newdfd, newpath, O_WRONLY | O_CREAT | O_EXCL, 0644);
        if (fd >= 0) {
            (void)!write(fd, "theirs", 6);
            close(fd);
        }
        race_name = NULL;
    }
    return __real_renameat2(olddfd, oldpath, newdfd, newpath, flags);
}

static const char *at(const char *name)
{
    static char p[512];
    snprintf(p, sizeof(p), DIR_ "/%s", name);
    return p;
}

/* The whole content of DIR/name ("" when absent). */
static const char *content(const char *name)
{
    static char buf[256];
    buf[0] = '\0';
    FILE *f = fopen(at(name), "r");
    if (!f) return buf;
    size_t n = fread(buf, 1, sizeof(buf) - 1, f);
    buf[n] = '\0';
    fclose(f);
    return buf;
}

/* The names in DIR, sorted, joined by spaces. */
static const char *listing(void)
{
    static char out[1024];
    struct dirent **ents;
    int n = scandir(DIR_, &ents, NULL, alphasort);
    assert_true(n >= 0);
    out[0] = '\0';
    for (int i = 0; i < n; i++) {
        if (strcmp(ents[i]->d_name, ".") && strcmp(ents[i]->d_name, ".."))
            snprintf(out + strlen(out), sizeof(out) - strlen(out), "%s%s", out[0] ? " " : "", ents[i]->d_name);
        free(ents[i]);
    }
    free(ents);
    return out;
}

/* Place files names[0..n) holding text as one set: place's return; err. */
static int place(const char *const *names, int n, const char *text, char *err, size_t errlen)
{
    latrec_outset s = { 0 };
    for (int i = 0; i < n; i++) {
        latrec_outfile *o = malloc(sizeof(*o));
        assert_non_null(o);
        assert_int_equal(latrec_outfile_open(o, at(names[i]), 0, err, errlen), 0);
        fputs(text, o->f);
        assert_int_equal(latrec_outset_add(&s, o), 0);
    }
    return latrec_outset_place(&s, err, errlen);
}

static int setup(void **state)
{
    (void)state;
    mkdir(LATREC_TEST_TMP, 0755);
    mkdir(DIR_, 0755);
    const char *names[] = { "a.csv", "b.csv", "c.csv", "d.csv", "e.csv", ".latrec-output" };
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) unlink(at(names[i]));
    return 0;
}

static void test_race_new_files(void **state)
{
    (void)state;
    char err[512] = "";
    const char *set[] = { "a.csv", "b.csv", "c.csv" };
    race_name = "c.csv";
    errno = 0;
    assert_int_equal(place(set, 3, "ours", err, sizeof(err)), -1);
    assert_int_equal(errno, EEXIST);
    assert_string_equal(err, DIR_ "/c.csv: cannot rename into place: File exists");
    /* a and b taken back, the marker created for them gone, theirs kept */
    assert_string_equal(listing(), "c.csv");
    assert_string_equal(content("c.csv"), "theirs");
    unlink(at("c.csv"));
}

static void test_race_after_replacing(void **state)
{
    (void)state;
    char err[512] = "";
    const char *first[] = { "a.csv", "b.csv", "c.csv" };
    assert_int_equal(place(first, 3, "old", err, sizeof(err)), 0);
    assert_string_equal(listing(), ".latrec-output a.csv b.csv c.csv");
    char marker[512];
    snprintf(marker, sizeof(marker), "%s", content(".latrec-output"));

    /* a and b replace latrec's own files, d is new and taken meanwhile */
    const char *second[] = { "a.csv", "b.csv", "d.csv" };
    race_name = "d.csv";
    assert_int_equal(place(second, 3, "new", err, sizeof(err)), -1);
    assert_string_equal(err, DIR_ "/d.csv: cannot rename into place: File exists");
    assert_string_equal(listing(), ".latrec-output a.csv b.csv c.csv d.csv");
    assert_string_equal(content("a.csv"), "old");
    assert_string_equal(content("b.csv"), "old");
    assert_string_equal(content("d.csv"), "theirs");
    assert_string_equal(content(".latrec-output"), marker);

    /* no race: the old files replaced, the new one placed, nothing left over */
    unlink(at("d.csv"));
    const char *third[] = { "a.csv", "e.csv" };
    assert_int_equal(place(third, 2, "new", err, sizeof(err)), 0);
    assert_string_equal(listing(), ".latrec-output a.csv b.csv c.csv e.csv");
    assert_string_equal(content("a.csv"), "new");
    assert_string_equal(content("b.csv"), "old");
    assert_string_equal(content("e.csv"), "new");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(test_race_new_files, setup),
        cmocka_unit_test_setup(test_race_after_replacing, setup),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
