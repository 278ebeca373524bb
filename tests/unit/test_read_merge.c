/*
 * test_read_merge.c - k-way merge by time over synthetic rings: a known
 * interleaving, deterministic ties, write order kept inside a ring, wall
 * clock keys, refusal to mix boots, and no allocation while merging.
 *
 * This binary is linked with -Wl,--wrap=malloc,calloc,realloc (read.cmake),
 * so every allocation made by the test and by the statically linked reader
 * is counted below.
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

#include "read/merge.h"
#include "read/ringset.h"
#include "ringgen.h"

#define TMPDIR LATREC_TEST_TMP "/read_merge"

static size_t n_allocs;

void *__real_malloc(size_t n);
void *__real_calloc(size_t n, size_t m);
void *__real_realloc(void *p, size_t n);
void *__wrap_malloc(size_t n);
void *__wrap_calloc(size_t n, size_t m);
void *__wrap_realloc(void *p, size_t n);

void *__wrap_malloc(size_t n)
{
    n_allocs++;
    return __real_malloc(n);
}

void *__wrap_calloc(size_t n, size_t m)
{
    n_allocs++;
    return __real_calloc(n, m);
}

void *__wrap_realloc(void *p, size_t n)
{
    n_allocs++;
    return __real_realloc(p, n);
}

static char pbuf[512];

static const char *P(const char *rel)
{
    snprintf(pbuf, sizeof pbuf, TMPDIR "/%s", rel);
    return pbuf;
}

static int setup(void **state)
{
    (void)state;
    mkdir(LATREC_TEST_TMP, 0755);
    if (system("rm -rf '" TMPDIR "'") != 0)
        return -1;
    mkdir(TMPDIR, 0755);
    return 0;
}

/* Ring TMPDIR/<dir>/<file>: `n` stamps with times t[] (seq = tag * 100 + i),
 * capacity `entries`, rec_count n; t0/t1 pairs as given (0 = leave). */
static void put(const char *dir, const char *file, uint64_t entries,
                const uint64_t *t, size_t n, unsigned tag)
{
    char rel[256];
    ringgen g;
    mkdir(P(dir), 0755);
    assert_int_equal(ringgen_init(&g, 2, entries, file), 0);
    for (size_t i = 0; i < n; i++)
        ringgen_stamp(&g, tag * 100 + i, tag, 0x21, t[i], i, tag);
    ringgen_set_u64(&g, RINGGEN_OFF_REC_COUNT, n);
    snprintf(rel, sizeof rel, "%s/%s", dir, file);
    assert_int_equal(ringgen_write(&g, P(rel)), 0);
    ringgen_free(&g);
}

static void test_interleave_and_ties(void **state)
{
    (void)state;
    /* a: 10 20 30 40; b: 15 20 35 (and 12 stamped late: stamp_at);
     * c: wrapped 4-entry ring written 1 5 20 20 50 60 -> keeps 20 20 50 60;
     * d: rejected */
    uint64_t ta[] = {10, 20, 30, 40};
    uint64_t tb[] = {15, 20, 35, 33};
    uint64_t tc[] = {1, 5, 20, 20, 50, 60};
    put("il", "a.latrec", 8, ta, 4, 1);
    put("il", "b.latrec", 8, tb, 4, 2);
    put("il", "c.latrec", 4, tc, 6, 3);
    FILE *f = fopen(P("il/d.latrec"), "w");
    assert_non_null(f);
    fputs("junk", f);
    fclose(f);

    latrec_ringset set;
    char err[256];
    assert_int_equal(latrec_ringset_open_dir(&set, P("il"), err, sizeof err), 0);
    assert_int_equal(set.n, 4);
    assert_int_equal(set.n_ok, 3);
    assert_true(set.rings[2].wrapped);

    latrec_merge m;
    assert_int_equal(latrec_merge_init(&m, set.rings, set.n, 0, err, sizeof err), 0);
    static const struct {
        uint64_t t;
        uint32_t ring;
        uint64_t seq, pos;
    } want[] = {
        {10, 0, 100, 0}, {15, 1, 200, 0}, {20, 0, 101, 1}, {20, 1, 201, 1},
        {20, 2, 302, 0}, {20, 2, 303, 1}, {30, 0, 102, 2},
        /* b keeps its write order: 35 before the late 33 */
        {35, 1, 202, 2}, {33, 1, 203, 3}, {40, 0, 103, 3},
        {50, 2, 304, 2}, {60, 2, 305, 3},
    };
    latrec_merged out;
    size_t n = 0;
    while (latrec_merge_next(&m, &out)) {
        assert_true(n < sizeof want / sizeof want[0]);
        assert_int_equal(out.t_ns, want[n].t);
        assert_int_equal(out.rec.t_ns, want[n].t);
        assert_int_equal(out.ring, want[n].ring);
        assert_int_equal(latrec_rec_seq(out.rec.sc), want[n].seq);
        assert_int_equal(out.pos, want[n].pos);
        assert_int_equal(out.rec.aux2, want[n].ring + 1);
        n++;
    }
    assert_int_equal(n, sizeof want / sizeof want[0]);
    assert_int_equal(latrec_merge_next(&m, &out), 0);
    latrec_merge_free(&m);

    /* an empty array and an array of rejected rings merge to nothing */
    assert_int_equal(latrec_merge_init(&m, set.rings, 0, 0, err, sizeof err), 0);
    assert_int_equal(latrec_merge_next(&m, &out), 0);
    latrec_merge_free(&m);
    assert_int_equal(latrec_merge_init(&m, &set.rings[3], 1, 0, err, sizeof err), 0);
    assert_int_equal(latrec_merge_next(&m, &out), 0);
    latrec_merge_free(&m);
    latrec_ringset_close(&set);
}

/* Many rings, many equal times: keys never decrease, ties come out in ring
 * index order, every record comes out once, and merging allocates nothing
 * beyond init's two blocks (the rings' places, the trees). */
static void test_many_rings_bounded(void **state)
{
    (void)state;
    enum { RINGS = 16, N = 3000, ENTRIES = 4096 };
    static uint64_t t[N];
    for (unsigned r = 0; r < RINGS; r++) {
        char file[32];
        for (unsigned i = 0; i < N; i++)
            t[i] = 1000 + (uint64_t)i * 7 + (i % 3 == 0 ? 0 : r % 5);
        snprintf(file, sizeof file, "r%02u.latrec", r);
        put("many", file, ENTRIES, t, N, r + 1);
    }
    latrec_ringset set;
    char err[256];
    assert_int_equal(latrec_ringset_open_dir(&set, P("many"), err, sizeof err), 0);
    assert_int_equal(set.n_ok, RINGS);

    latrec_merge m;
    size_t before = n_allocs;
    assert_int_equal(latrec_merge_init(&m, set.rings, set.n, 0, err, sizeof err), 0);
    assert_int_equal(n_allocs - before, 2); /* src and the trees; proves the wrap works */

    before = n_allocs;
    latrec_merged out;
    uint64_t last_t = 0, count = 0;
    uint32_t last_ring = 0;
    uint64_t per_ring[RINGS] = {0};
    while (latrec_merge_next(&m, &out)) {
        assert_true(out.t_ns >= last_t);
        if (out.t_ns == last_t && count > 0)
            assert_true(out.ring > last_ring);
        assert_int_equal(out.pos, per_ring[out.ring]);
        per_ring[out.ring]++;
        last_t = out.t_ns;
        last_ring = out.ring;
        count++;
    }
    assert_int_equal(n_allocs - before, 0);
    assert_int_equal(count, (uint64_t)RINGS * N);
    latrec_merge_free(&m);
    latrec_ringset_close(&set);
}

/* Two hosts, two boots: monotonic merge refused, wall merge ordered by the
 * mapped times; a ring without t0_real cannot join a wall merge. */
static void test_wall_and_boots(void **state)
{
    (void)state;
    const uint64_t real0 = 1795950000000000000ull;
    uint8_t boot_a[16], boot_b[16];
    memset(boot_a, 0xAA, 16);
    memset(boot_b, 0xBB, 16);
    mkdir(P("wall"), 0755);

    /* host A: mono 1e9 <-> real0, t1 10 s later with +1 us drift */
    ringgen g;
    assert_int_equal(ringgen_init(&g, 3, 8, "a.1"), 0);
    ringgen_set_u64(&g, RINGGEN_OFF_T0_MONO, 1000000000ull);
    ringgen_set_u64(&g, RINGGEN_OFF_T0_REAL, real0);
    ringgen_set_u64(&g, RINGGEN_OFF_T1_MONO, 11000000000ull);
    ringgen_set_u64(&g, RINGGEN_OFF_T1_REAL, real0 + 10000001000ull);
    ringgen_set_bytes(&g, RINGGEN_OFF_BOOT_ID, boot_a, 16);
    ringgen_stamp(&g, 1, 0, 0x24, 1000000000ull + 5000000000ull, 0, 0); /* real0+5e9+500 */
    ringgen_stamp(&g, 2, 0, 0x24, 1000000000ull + 6000000000ull, 0, 0); /* real0+6e9+600 */
    assert_int_equal(ringgen_write(&g, P("wall/a.latrec")), 0);
    ringgen_free(&g);

    /* host B: mono 7e12 <-> real0 + 2 s, no t1 (constant offset) */
    assert_int_equal(ringgen_init(&g, 3, 8, "b.1"), 0);
    ringgen_set_u64(&g, RINGGEN_OFF_T0_MONO, 7000000000000ull);
    ringgen_set_u64(&g, RINGGEN_OFF_T0_REAL, real0 + 2000000000ull);
    ringgen_set_bytes(&g, RINGGEN_OFF_BOOT_ID, boot_b, 16);
    ringgen_stamp(&g, 1, 0, 0x26, 7000000000000ull + 3000000000ull + 550, 0, 0); /* real0+5e9+550 */
    ringgen_stamp(&g, 2, 0, 0x26, 7000000000000ull + 4000000000ull + 599, 0, 0); /* real0+6e9+599 */
    assert_int_equal(ringgen_write(&g, P("wall/b.latrec")), 0);
    ringgen_free(&g);

    latrec_ringset set;
    latrec_merge m;
    latrec_merged out;
    char err[512];
    assert_int_equal(latrec_ringset_open_dir(&set, P("wall"), err, sizeof err), 0);
    assert_int_equal(latrec_merge_init(&m, set.rings, set.n, 0, err, sizeof err), -1);
    assert_string_equal(err, TMPDIR "/wall/a.latrec and " TMPDIR
                             "/wall/b.latrec come from different boots: merge "
                             "on the wall clock");
    latrec_merge_free(&m);

    /* allowed on request: then plain monotonic order (a first) */
    assert_int_equal(latrec_merge_init(&m, set.rings, set.n,
                                       LATREC_MERGE_ALLOW_MIXED_BOOTS, err, sizeof err), 0);
    assert_int_equal(latrec_merge_next(&m, &out), 1);
    assert_int_equal(out.ring, 0);
    latrec_merge_free(&m);

    assert_int_equal(latrec_merge_init(&m, set.rings, set.n, LATREC_MERGE_WALL,
                                       err, sizeof err), 0);
    static const struct {
        uint32_t ring;
        uint64_t real;
    } want[] = {
        {0, 1795950005000000500ull}, {1, 1795950005000000550ull},
        {1, 1795950006000000599ull}, {0, 1795950006000000600ull},
    };
    for (size_t i = 0; i < 4; i++) {
        assert_int_equal(latrec_merge_next(&m, &out), 1);
        assert_int_equal(out.ring, want[i].ring);
        assert_int_equal(out.t_ns, want[i].real);
        assert_true(out.rec.t_ns < 8000000000000ull); /* record stays monotonic */
    }
    assert_int_equal(latrec_merge_next(&m, &out), 0);
    latrec_merge_free(&m);
    latrec_ringset_close(&set);

    /* no t0_real: a wall merge names the ring */
    assert_int_equal(ringgen_init(&g, 2, 8, "c.1"), 0);
    ringgen_set_u64(&g, RINGGEN_OFF_T0_REAL, 0);
    ringgen_stamp(&g, 1, 0, 0x26, 5, 0, 0);
    assert_int_equal(ringgen_write(&g, P("wall/c.latrec")), 0);
    ringgen_free(&g);
    assert_int_equal(latrec_ringset_open_dir(&set, P("wall"), err, sizeof err), 0);
    assert_int_equal(latrec_merge_init(&m, set.rings, set.n, LATREC_MERGE_WALL,
                                       err, sizeof err), -1);
    assert_string_equal(err, TMPDIR "/wall/c.latrec: no t0_real_ns: cannot map to wall clock");
    latrec_merge_free(&m);
    latrec_ringset_close(&set);
}

/* The whole merged order of rings[0..n) one record at a time, into want
 * (ring << 32 | pos per record): how many. */
static size_t order_of(const latrec_ring *rings, size_t n, uint64_t *want, size_t cap)
{
    latrec_merge m;
    latrec_merged out;
    char err[256];
    size_t k = 0;
    assert_int_equal(latrec_merge_init(&m, rings, n, 0, err, sizeof err), 0);
    while (latrec_merge_next(&m, &out)) {
        assert_true(k < cap);
        want[k++] = (uint64_t)out.ring << 32 | out.pos;
    }
    latrec_merge_free(&m);
    return k;
}

/* Batches give the order one record at a time gives, whatever their size;
 * a limit stops before the first key above it, and the records above it
 * come with the next batch; a key outside the 64-bit tree's bound (a ring
 * struct whose min_t_ns says more than its records) turns the merge to
 * 128-bit keys in the middle of a batch, and the order stays. */
static void test_fill_batches_limit_and_wide(void **state)
{
    (void)state;
    enum { RINGS = 5, N = 500 };
    static uint64_t t[N], want[RINGS * N];
    for (unsigned r = 0; r < RINGS; r++) {
        char file[32];
        for (unsigned i = 0; i < N; i++) t[i] = 5000 + (uint64_t)i * 10 + (r * 3 + i) % 7;
        if (r == 2) t[50] = 4000; /* stamped late (stamp_at), before every ring's first */
        snprintf(file, sizeof file, "f%u.latrec", r);
        put("fill", file, 1024, t, N, r + 1);
    }
    latrec_ringset set;
    char err[256];
    assert_int_equal(latrec_ringset_open_dir(&set, P("fill"), err, sizeof err), 0);
    const size_t total = order_of(set.rings, set.n, want, RINGS * N);
    assert_int_equal(total, RINGS * N);

    latrec_merge m;
    latrec_merged out[7];
    for (size_t batch = 1; batch <= 7; batch++) {
        assert_int_equal(latrec_merge_init(&m, set.rings, set.n, 0, err, sizeof err), 0);
        assert_int_equal(m.narrow, 1);
        size_t k = 0, got;
        while ((got = latrec_merge_fill(&m, out, batch, UINT64_MAX)) > 0) {
            assert_true(got <= batch);
            for (size_t j = 0; j < got; j++, k++) assert_int_equal((uint64_t)out[j].ring << 32 | out[j].pos, want[k]);
        }
        assert_int_equal(k, total);
        latrec_merge_free(&m);
    }

    /* limit 5995: the records up to t = 5995 (the stamps of i < 99 and
     * some of i = 99), then the rest */
    assert_int_equal(latrec_merge_init(&m, set.rings, set.n, 0, err, sizeof err), 0);
    size_t k = 0, got;
    while ((got = latrec_merge_fill(&m, out, 7, 5995)) > 0)
        for (size_t j = 0; j < got; j++, k++) {
            assert_true(out[j].t_ns <= 5995);
            assert_int_equal((uint64_t)out[j].ring << 32 | out[j].pos, want[k]);
        }
    assert_true(k > RINGS * 98 && k < RINGS * 100);
    uint64_t key;
    assert_int_equal(latrec_merge_peek(&m, &key), 1);
    assert_true(key > 5995);
    while ((got = latrec_merge_fill(&m, out, 7, UINT64_MAX)) > 0)
        for (size_t j = 0; j < got; j++, k++) assert_int_equal((uint64_t)out[j].ring << 32 | out[j].pos, want[k]);
    assert_int_equal(k, total);
    latrec_merge_free(&m);

    /* ring 2 claims no stamp below 8000: the tree's base is then its
     * first records' 5000, too high for its late 4000, and the merge goes
     * wide at that record */
    set.rings[2].min_t_ns = 8000;
    assert_int_equal(latrec_merge_init(&m, set.rings, set.n, 0, err, sizeof err), 0);
    assert_int_equal(m.narrow, 1);
    k = 0;
    while ((got = latrec_merge_fill(&m, out, 7, UINT64_MAX)) > 0)
        for (size_t j = 0; j < got; j++, k++) assert_int_equal((uint64_t)out[j].ring << 32 | out[j].pos, want[k]);
    assert_int_equal(k, total);
    assert_int_equal(m.narrow, 0);
    assert_int_equal(m.widen, 1);
    latrec_merge_free(&m);
    latrec_ringset_close(&set);
}

/* The merge's definition, written plainly: each ring's records in write
 * order (latrec_ring_next), and over and over the head with the smallest
 * (time, ring index) goes out. want[k] = ring << 32 | pos. */
static size_t plain_merge(const latrec_ring *rings, size_t n, uint64_t *want, size_t cap)
{
    enum { MAX = 80 };
    latrec_cursor cur[MAX];
    latrec_rec head[MAX];
    uint64_t pos[MAX];
    int has[MAX];
    assert_true(n <= MAX);
    for (size_t i = 0; i < n; i++) {
        latrec_ring_cursor_init(&cur[i]);
        has[i] = rings[i].status == LATREC_RING_OK && latrec_ring_next(&rings[i], &cur[i], &head[i]);
        pos[i] = cur[i].pos - 1;
    }
    size_t k = 0;
    for (;;) {
        size_t best = n;
        for (size_t i = 0; i < n; i++)
            if (has[i] && (best == n || head[i].t_ns < head[best].t_ns)) best = i;
        if (best == n) return k;
        assert_true(k < cap);
        want[k++] = (uint64_t)best << 32 | pos[best];
        has[best] = latrec_ring_next(&rings[best], &cur[best], &head[best]);
        pos[best] = cur[best].pos - 1;
    }
}

/* Every tree shape (1 to 70 rings: 2^0 to 2^7 leaves) against the plain
 * merge, on rings with ties, local inversions, empty and torn slots, wraps
 * and different lengths, in batches of changing sizes and under a limit
 * that moves, and over a subset of the rings: the same records in the
 * same order, ties included. */
static void test_shapes_against_plain_merge(void **state)
{
    (void)state;
    static const unsigned counts[] = { 1, 2, 3, 4, 5, 8, 9, 16, 17, 33, 64, 70 };
    enum { ENTRIES = 64, MAXN = 70 * ENTRIES };
    static uint64_t want[MAXN];
    uint64_t rnd = 0x9E3779B97F4A7C15ull;
    for (size_t c = 0; c < sizeof counts / sizeof counts[0]; c++) {
        char dir[32];
        snprintf(dir, sizeof dir, "shape%u", counts[c]);
        mkdir(P(dir), 0755);
        for (unsigned r = 0; r < counts[c]; r++) {
            ringgen g;
            char file[32], rel[64];
            snprintf(file, sizeof file, "s%02u.latrec", r);
            assert_int_equal(ringgen_init(&g, 2, ENTRIES, file), 0);
            const unsigned n = (r * 37 + c * 11) % (2 * ENTRIES) + 1; /* some wrap */
            uint64_t t = 1000 + r % 3;
            for (unsigned i = 0; i < n; i++) {
                rnd = rnd * 6364136223846793005ull + 1442695040888963407ull;
                t += (rnd >> 60) % 4; /* steps of 0..3 ns: many ties */
                const uint64_t back = (rnd >> 40) % 16 == 0 ? 2 : 0; /* a local inversion */
                ringgen_stamp(&g, r * 1000 + i, r, 0x21, t - back, i, r);
            }
            if (n > 8 && r % 4 == 1) ringgen_set_rec(&g, 3, 0, 0, 0, 0, 0, 0); /* an empty slot */
            if (n > 8 && r % 4 == 2) ringgen_set_rec(&g, 5, 7, 0, 0x21, 0, 1, 1); /* a torn one */
            ringgen_set_u64(&g, RINGGEN_OFF_REC_COUNT, n);
            snprintf(rel, sizeof rel, "%s/%s", dir, file);
            assert_int_equal(ringgen_write(&g, P(rel)), 0);
            ringgen_free(&g);
        }
        latrec_ringset set;
        char err[256];
        assert_int_equal(latrec_ringset_open_dir(&set, P(dir), err, sizeof err), 0);
        const size_t total = plain_merge(set.rings, set.n, want, MAXN);
        latrec_merge m;
        latrec_merged out[41];
        for (size_t batch = 1; batch <= 41; batch += 8) {
            assert_int_equal(latrec_merge_init(&m, set.rings, set.n, 0, err, sizeof err), 0);
            size_t k = 0, got, round = 0;
            uint64_t limit = 1010;
            while ((got = latrec_merge_fill(&m, out, batch, limit)) > 0 || latrec_merge_peek(&m, &limit)) {
                for (size_t j = 0; j < got; j++, k++) {
                    assert_true(k < total);
                    assert_int_equal((uint64_t)out[j].ring << 32 | out[j].pos, want[k]);
                    assert_true(out[j].t_ns <= limit);
                    assert_int_equal(out[j].t_ns, out[j].rec.t_ns);
                    assert_int_equal(out[j].rec.aux2, out[j].ring);
                }
                if (got == 0 || ++round % 3 == 0) limit += 7; /* a moving limit, as a live watermark */
            }
            assert_int_equal(k, total);
            latrec_merge_free(&m);
        }
        /* a subset of the array (the others left out, as a merge of one
         * process's rings sees them): the same order, and a tree of the
         * subset's size */
        static latrec_ring some[70];
        size_t n_some = 0;
        for (size_t r = 0; r < set.n; r++) {
            some[r] = set.rings[r];
            if (r % 3 != 1) some[r].status = LATREC_RING_REJECTED;
            else n_some++;
        }
        const size_t some_total = plain_merge(some, set.n, want, MAXN);
        assert_int_equal(latrec_merge_init(&m, some, set.n, 0, err, sizeof err), 0);
        size_t leaves = 1;
        while (leaves < n_some) leaves *= 2;
        assert_int_equal(m.leaves, leaves);
        size_t k = 0, got;
        while ((got = latrec_merge_fill(&m, out, 41, UINT64_MAX)) > 0)
            for (size_t j = 0; j < got; j++, k++) assert_int_equal((uint64_t)out[j].ring << 32 | out[j].pos, want[k]);
        assert_int_equal(k, some_total);
        assert_int_equal(latrec_merge_cursor(&m, 0)->pos, 0); /* ring 0 left out: never visited */
        latrec_merge_free(&m);
        latrec_ringset_close(&set);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_interleave_and_ties),
        cmocka_unit_test(test_many_rings_bounded),
        cmocka_unit_test(test_wall_and_boots),
        cmocka_unit_test(test_fill_batches_limit_and_wide),
        cmocka_unit_test(test_shapes_against_plain_merge),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
