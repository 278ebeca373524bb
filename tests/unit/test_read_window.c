/*
 * The ring window (read/ring_window.h): a pass over a wrapped 32 MiB ring
 * (its oldest record in the middle of a page) that moves the window at
 * every record keeps at most 640 KiB of the ring mapped at any point
 * (about 0.3 MiB; a page left behind at each move would pile up to more) (measured from /proc/self/smaps over the ring's
 * mapping, whatever the kernel's folio sizes), reads every record in write
 * order exactly as a pass without the window does, and leaves nothing
 * mapped at its end. The control pass without the window shows that the
 * measurement sees the ring's pages (it ends with most of them mapped).
 */
#include <stdarg.h>
#include <setjmp.h>
#include <stddef.h>
#include <cmocka.h>

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "read/ring.h"
#include "read/ring_window.h"
#include "ringgen.h"

#define TMPDIR LATREC_TEST_TMP "/read_window"
#define ENTRIES (1u << 20) /* 32 MiB of records */
#define EXTRA 5000u        /* stamps past one round: the ring wraps */
#define BOUND_KB 640       /* 256 KiB behind, fault-around ahead, and room */

/* KiB of [lo, hi) resident in this process's mappings (smaps Rss). */
static long mapped_kb(uintptr_t lo, uintptr_t hi)
{
    FILE *f = fopen("/proc/self/smaps", "r");
    assert_non_null(f);
    char line[512];
    long kb = 0;
    int inside = 0;
    while (fgets(line, sizeof line, f)) {
        uintptr_t a, b;
        long v;
        if (sscanf(line, "%" SCNxPTR "-%" SCNxPTR " ", &a, &b) == 2 && strchr(line, '-') < strchr(line, ' '))
            inside = a < hi && b > lo;
        else if (inside && sscanf(line, "Rss: %ld kB", &v) == 1) kb += v;
    }
    fclose(f);
    return kb;
}

static const char *make_ring(void)
{
    static char path[256];
    mkdir(LATREC_TEST_TMP, 0755);
    mkdir(TMPDIR, 0755);
    snprintf(path, sizeof path, "%s/w.latrec", TMPDIR);
    ringgen g;
    assert_int_equal(ringgen_init(&g, 3, ENTRIES, "w.1"), 0);
    for (uint64_t i = 0; i < ENTRIES + EXTRA; i++) ringgen_stamp(&g, i + 1, 0, 0x21, 5000000000ull + 10 * i, i, ~i);
    ringgen_set_u64(&g, RINGGEN_OFF_REC_COUNT, ENTRIES + EXTRA);
    assert_int_equal(ringgen_write(&g, path), 0);
    ringgen_free(&g);
    return path;
}

static void test_window_bounds_pass(void **state)
{
    (void)state;
    latrec_ring r;
    assert_int_equal(latrec_ring_open(&r, make_ring()), 0);
    assert_true(r.wrapped);
    assert_int_equal(r.start_slot, EXTRA);
    const uintptr_t lo = (uintptr_t)r.map, hi = lo + r.map_len;
    assert_true(mapped_kb(lo, hi) <= 64); /* the open maps none of the records */

    /* windowed pass: every record, in write order, the bound held */
    latrec_ring_window w;
    latrec_cursor c;
    latrec_rec rec;
    latrec_ring_window_start(&r, &w);
    latrec_ring_cursor_init(&c);
    uint64_t n = 0;
    long peak = 0;
    while (latrec_ring_next(&r, &c, &rec)) {
        const uint64_t i = EXTRA + n; /* the stamp index of write-order position n */
        assert_int_equal(rec.t_ns, 5000000000ull + 10 * i);
        assert_int_equal(rec.aux, i);
        assert_int_equal(rec.aux2, ~i);
        latrec_ring_window_at(&r, &w, c.pos - 1);
        if (n % 4096 == 4095) {
            const long kb = mapped_kb(lo, hi);
            if (kb > peak) peak = kb;
        }
        n++;
    }
    assert_int_equal(n, ENTRIES);
    printf("windowed pass: at most %ld KiB of the 32 MiB ring mapped\n", peak);
    assert_true(peak > 0);
    assert_true(peak <= BOUND_KB);
    latrec_ring_window_end(&r, &w);
    assert_true(mapped_kb(lo, hi) <= 4);

    /* control: the same pass without the window maps the ring */
    latrec_ring_cursor_init(&c);
    n = 0;
    while (latrec_ring_next(&r, &c, &rec)) n++;
    assert_int_equal(n, ENTRIES);
    const long plain = mapped_kb(lo, hi);
    printf("plain pass: %ld KiB mapped at its end\n", plain);
    assert_true(plain >= 16384);
    latrec_ring_close(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_window_bounds_pass),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
