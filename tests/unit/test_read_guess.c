/*
 * test_read_guess.c - a ring opened by the guess (read/ring.h, enum
 * latrec_ring_derived) against the same file opened by the scan: when the
 * guess is made, when it is not, and, read as a pass reads it (records in
 * write order, stamps checked in order, latrec_ring_guess_holds, and
 * latrec_ring_rescan when it does not hold), the same derived fields and
 * the same records as the scan, in the same order. Rings are written byte
 * by byte with ringgen.h, and by the writer library for the live ring.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <latrec/latrec.h>

#include "read/ring.h"
#include "ringgen.h"
#include "test_writer_util.h"

#define T0 5000000000ull
#define US 1000ull
#define CLEAN 1u /* LATREC_F_CLEAN_CLOSE, from the contract */
#define MAX_RECS 256

static char dir[512];

static int setup(void **state)
{
    (void)state;
    tw_tmpdir(dir, sizeof(dir), "read_guess");
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    tw_rm_rf(dir);
    return 0;
}

/* A v3 ring of `entries` with `n` stamps 10 us apart from T0 (seq i + 1,
 * stage i % 7), rec_count n and the clean-close flag. */
static void gen(ringgen *g, uint64_t entries, uint64_t n)
{
    assert_int_equal(ringgen_init(g, 3, entries, "oai.1001"), 0);
    for (uint64_t i = 0; i < n; i++) ringgen_stamp(g, i + 1, 0, (unsigned)(i % 7), T0 + i * 10 * US, i, ~i);
    ringgen_set_u64(g, RINGGEN_OFF_REC_COUNT, n);
    ringgen_set_u32(g, RINGGEN_OFF_FLAGS, CLEAN);
}

static const char *put(const ringgen *g, const char *name)
{
    static char path[600];
    snprintf(path, sizeof(path), "%s/%s", dir, name);
    assert_int_equal(ringgen_write(g, path), 0);
    return path;
}

/* What a pass reads: every record in write order into out, 1 when their
 * stamps never go down. */
static size_t read_all(const latrec_ring *r, latrec_rec *out, uint64_t *lapped, int *in_order)
{
    latrec_cursor c;
    latrec_ring_cursor_init(&c);
    size_t n = 0;
    latrec_rec rec;
    *in_order = 1;
    while (latrec_ring_next(r, &c, &rec)) {
        assert_true(n < MAX_RECS);
        if (n && rec.t_ns < out[n - 1].t_ns) *in_order = 0;
        out[n++] = rec;
    }
    *lapped = c.lapped;
    return n;
}

/* Every field the scan derives, but stage_counts, min_seq and max_seq
 * (a guess leaves them). */
static void same_fields(const latrec_ring *a, const latrec_ring *b)
{
    assert_int_equal(a->valid, b->valid);
    assert_int_equal(a->torn, b->torn);
    assert_int_equal(a->wrapped, b->wrapped);
    assert_int_equal(a->descents, b->descents);
    assert_int_equal(a->significant_descents, b->significant_descents);
    assert_int_equal(a->multi_writer, b->multi_writer);
    assert_int_equal(a->start_slot, b->start_slot);
    assert_int_equal(a->newest_slot, b->newest_slot);
    assert_int_equal(a->iter_len, b->iter_len);
    assert_int_equal(a->written, b->written);
    assert_int_equal(a->lost, b->lost);
    assert_int_equal(a->lost_lower_bound, b->lost_lower_bound);
    assert_memory_equal(&a->first_rec, &b->first_rec, sizeof(a->first_rec));
    assert_memory_equal(&a->last_rec, &b->last_rec, sizeof(a->last_rec));
    assert_int_equal(a->first_t_ns, b->first_t_ns);
    assert_int_equal(a->last_t_ns, b->last_t_ns);
    assert_int_equal(a->min_t_ns, b->min_t_ns);
    assert_int_equal(a->max_t_ns, b->max_t_ns);
    assert_string_equal(a->warning, b->warning);
}

/* Open path by the scan and by the guess: the guess made (want_guess) or
 * not, held by the pass (want_hold) or not; in the end the same fields
 * and the same records in the same order. Returns the records read. */
static size_t check_path(const char *path, int want_guess, int want_hold)
{
    latrec_ring s, g;
    assert_int_equal(latrec_ring_open(&s, path), 0);
    assert_int_equal(latrec_ring_openat_guess(&g, AT_FDCWD, path, path), 0);
    assert_int_equal(s.derived, LATREC_RING_SCANNED);
    assert_int_equal(g.derived, want_guess ? LATREC_RING_GUESSED : LATREC_RING_SCANNED);
    static latrec_rec want[MAX_RECS], got[MAX_RECS];
    uint64_t lapped;
    int in_order;
    const size_t n = read_all(&s, want, &lapped, &in_order);
    assert_int_equal(lapped, 0);
    size_t m = read_all(&g, got, &lapped, &in_order);
    if (want_guess) {
        const int hold = in_order && latrec_ring_guess_holds(&g, m, lapped);
        assert_int_equal(hold, want_hold);
        assert_int_equal(g.derived, hold ? LATREC_RING_VERIFIED : LATREC_RING_GUESSED);
        if (!hold) {
            latrec_ring_rescan(&g); /* what the pass does before it reads again */
            assert_int_equal(g.derived, LATREC_RING_SCANNED);
            m = read_all(&g, got, &lapped, &in_order);
            /* a scanned ring's stage counts and seqs are all there */
            assert_memory_equal(g.stage_counts, s.stage_counts, sizeof(s.stage_counts));
            assert_int_equal(g.min_seq, s.min_seq);
            assert_int_equal(g.max_seq, s.max_seq);
        }
    }
    same_fields(&g, &s);
    assert_int_equal(m, n);
    assert_memory_equal(got, want, n * sizeof(want[0]));
    latrec_ring_close(&s);
    latrec_ring_close(&g);
    return n;
}

static size_t check(const ringgen *g, const char *name, int want_guess, int want_hold)
{
    return check_path(put(g, name), want_guess, want_hold);
}

static void test_clean_rings_are_guessed(void **state)
{
    (void)state;
    ringgen g;
    gen(&g, 64, 40); /* not full: 24 empty slots after the records */
    assert_int_equal(check(&g, "part.latrec", 1, 1), 40);
    ringgen_free(&g);
    gen(&g, 64, 64); /* full, never wrapped */
    assert_int_equal(check(&g, "full.latrec", 1, 1), 64);
    ringgen_free(&g);
    gen(&g, 1, 1); /* one slot */
    assert_int_equal(check(&g, "one.latrec", 1, 1), 1);
    ringgen_free(&g);
}

/* What the header or the few slots read at open already tell. */
static void test_not_guessed(void **state)
{
    (void)state;
    ringgen g;
    gen(&g, 64, 100); /* wrapped: rec_count past entries */
    check(&g, "wrapped.latrec", 0, 0);
    ringgen_free(&g);

    gen(&g, 64, 40);
    ringgen_set_u32(&g, RINGGEN_OFF_FLAGS, 0); /* the writer did not close it */
    check(&g, "unclosed.latrec", 0, 0);
    ringgen_free(&g);

    gen(&g, 64, 40);
    ringgen_set_u64(&g, RINGGEN_OFF_REC_COUNT, 0); /* never flushed */
    check(&g, "zero_count.latrec", 0, 0);
    ringgen_free(&g);

    gen(&g, 64, 40);
    ringgen_set_rec(&g, 50, 9, 0, 3, 0, 1, 0); /* a torn slot after the records */
    check(&g, "tail_torn.latrec", 0, 0);
    ringgen_free(&g);

    gen(&g, 64, 40);
    ringgen_stamp(&g, 41, 0, 3, T0 + 41 * 10 * US, 0, 0); /* a record past rec_count */
    check(&g, "tail_record.latrec", 0, 0);
    ringgen_free(&g);

    gen(&g, 64, 40);
    ringgen_set_rec(&g, 39, 40, 0, 3, 0, 0, 0); /* the last slot rec_count names is empty */
    check(&g, "last_empty.latrec", 0, 0);
    ringgen_free(&g);

    gen(&g, 64, 40);
    ringgen_set_rec(&g, 39, 40, 0, 3, T0 - 1, 0, 0); /* the last stamp before the first */
    check(&g, "last_early.latrec", 0, 0);
    ringgen_free(&g);

    assert_int_equal(ringgen_init(&g, 2, 64, "oai.1001"), 0); /* v2: no flags */
    for (uint64_t i = 0; i < 40; i++) ringgen_stamp(&g, i + 1, 0, 3, T0 + i * US, 0, 0);
    ringgen_set_u64(&g, RINGGEN_OFF_REC_COUNT, 40);
    check(&g, "v2.latrec", 0, 0);
    ringgen_free(&g);

    /* a TSC ring: its stamps convert, the pass cannot check them raw */
    gen(&g, 64, 40);
    const uint64_t tsc[3] = { 1000, 1ull << 36, 1ull << 40 }, mono[3] = { 1000, 1ull << 36, 1ull << 40 };
    ringgen_make_tsc(&g, tsc, mono, 3);
    check(&g, "tsc.latrec", 0, 0);
    ringgen_free(&g);
}

/* The guess made, the pass finds it wrong: the scan's fields and records. */
static void test_torn_slot(void **state)
{
    (void)state;
    ringgen g;
    gen(&g, 64, 40);
    ringgen_set_rec(&g, 17, 18, 0, 3, 0, 17, 0); /* published never: payload, t_ns 0 */
    assert_int_equal(check(&g, "torn.latrec", 1, 0), 39);
    ringgen_free(&g);
    gen(&g, 64, 64);
    ringgen_set_rec(&g, 0, 0, 0, 0, 0, 0, 0); /* slot 0 empty in a full ring: no guess */
    check(&g, "first_empty.latrec", 0, 0);
    ringgen_free(&g);
    gen(&g, 64, 40);
    ringgen_set_rec(&g, 20, 0, 0, 0, 0, 0, 0); /* an empty slot among the records */
    assert_int_equal(check(&g, "hole.latrec", 1, 0), 39);
    ringgen_free(&g);
}

/* A writer killed mid-record leaves its slot torn and rec_count as of its
 * last refresh (every entries / 2 stamps), without the clean-close flag;
 * one whose header still says closed cleanly from an earlier life is
 * caught by the slots after rec_count. */
static void test_killed_writer(void **state)
{
    (void)state;
    ringgen g;
    gen(&g, 64, 45);
    ringgen_set_u64(&g, RINGGEN_OFF_REC_COUNT, 32);
    ringgen_set_u32(&g, RINGGEN_OFF_FLAGS, 0);
    ringgen_set_rec(&g, 45, 46, 0, 3, 0, 46, 0);
    assert_int_equal(check(&g, "killed.latrec", 0, 0), 45);
    ringgen_set_u32(&g, RINGGEN_OFF_FLAGS, CLEAN);
    assert_int_equal(check(&g, "killed_flag.latrec", 0, 0), 45);
    ringgen_free(&g);
    /* killed after it wrapped: the slot being written is empty */
    gen(&g, 64, 100);
    ringgen_set_u64(&g, RINGGEN_OFF_REC_COUNT, 64);
    ringgen_set_rec(&g, 100 & 63, 101, 0, 3, 0, 0, 0);
    check(&g, "killed_wrapped.latrec", 0, 0);
    ringgen_free(&g);
}

/* Stamps out of order where the guess is made (slot 0 and the last slot
 * in order): a small inversion (stamp_at), a drop that makes a full ring
 * wrapped, two large drops (not a single-writer ring, its warning). */
static void test_stamps_out_of_order(void **state)
{
    (void)state;
    ringgen g;
    gen(&g, 64, 40);
    ringgen_set_rec(&g, 20, 21, 0, 3, T0 + 19 * 10 * US - 3 * US, 0, 0); /* 3 us before slot 19 */
    assert_int_equal(check(&g, "inversion.latrec", 1, 0), 40);
    ringgen_free(&g);

    /* full: 5, 100..(slot 31), then 1.., and the last slot above slot 0 */
    assert_int_equal(ringgen_init(&g, 3, 64, "oai.1001"), 0);
    for (uint64_t i = 0; i < 64; i++) {
        const uint64_t t = i == 0 ? T0 + 5 * US : i < 32 ? T0 + (1000 + i) * US : T0 + (i - 31) * 10 * US;
        ringgen_stamp(&g, i + 1, 0, 3, t, 0, 0);
    }
    ringgen_set_u64(&g, RINGGEN_OFF_REC_COUNT, 64);
    ringgen_set_u32(&g, RINGGEN_OFF_FLAGS, CLEAN);
    const char *p = put(&g, "wrap_in_stamps.latrec");
    latrec_ring r;
    assert_int_equal(latrec_ring_open(&r, p), 0);
    assert_int_equal(r.wrapped, 1); /* the scan reads from slot 32: not slot order */
    assert_int_equal(r.start_slot, 32);
    latrec_ring_close(&r);
    check_path(p, 1, 0);
    ringgen_free(&g);

    gen(&g, 64, 40);
    ringgen_set_rec(&g, 10, 11, 0, 3, T0 - 300 * 1000 * US, 0, 0);
    ringgen_set_rec(&g, 30, 31, 0, 3, T0 - 200 * 1000 * US, 0, 0);
    p = put(&g, "multi.latrec");
    assert_int_equal(latrec_ring_open(&r, p), 0);
    assert_int_equal(r.multi_writer, 1);
    assert_string_not_equal(r.warning, "");
    latrec_ring_close(&r);
    check_path(p, 1, 0);
    ringgen_free(&g);
}

/* The writer library's ring: while it is open (stamped, not closed) it is
 * scanned; once closed, guessed and held. */
/* g written as a sparse file: its first `keep` bytes, then holes to its
 * size but for the slots [from, to) (written again, zero or not). */
static const char *put_sparse(const ringgen *g, const char *name, size_t keep, uint64_t from, uint64_t to)
{
    static char path[600];
    snprintf(path, sizeof(path), "%s/%s", dir, name);
    assert_int_equal(ringgen_write_len(g, path, keep), 0);
    const int fd = open(path, O_WRONLY);
    assert_true(fd >= 0);
    assert_int_equal(ftruncate(fd, (off_t)g->len), 0);
    const size_t off = RINGGEN_HDR_LEN + (size_t)from * RINGGEN_REC_LEN, n = (size_t)(to - from) * RINGGEN_REC_LEN;
    if (n) assert_int_equal(pwrite(fd, g->buf + off, n, (off_t)off), (ssize_t)n);
    assert_int_equal(close(fd), 0);
    return path;
}

/* The empty slots after the records in holes of the file (a writer that
 * never touched them): not read, and the same as the scan; a stale record
 * in the data among the holes still refuses the guess. */
static void test_sparse_tail(void **state)
{
    (void)state;
    ringgen g;
    gen(&g, 4096, 200); /* 32 pages of slots, the records in the first 2 */
    const size_t keep = RINGGEN_HDR_LEN + 200 * RINGGEN_REC_LEN;
    assert_int_equal(check_path(put_sparse(&g, "sparse.latrec", keep, 0, 0), 1, 1), 200);
    /* zeros written in the middle of the tail: data, read, still empty */
    assert_int_equal(check_path(put_sparse(&g, "zeros.latrec", keep, 2048, 2304), 1, 1), 200);
    /* the last page of the tail written (zeros): up to the end of the file */
    assert_int_equal(check_path(put_sparse(&g, "end.latrec", keep, 3968, 4096), 1, 1), 200);
    ringgen_set_rec(&g, 3000, 7, 0, 3, T0, 0, 0); /* a stale record far after rec_count */
    check_path(put_sparse(&g, "stale.latrec", keep, 2990, 3010), 0, 0);
    ringgen_set_rec(&g, 3000, 0, 0, 0, 0, 0, 0);
    ringgen_set_rec(&g, 4095, 0, 0, 0, 0, 0, 1); /* a payload in the ring's last slot */
    check_path(put_sparse(&g, "last.latrec", keep, 4095, 4096), 0, 0);
    ringgen_free(&g);
}

static void test_live_ring(void **state)
{
    (void)state;
    latrec_t w;
    char path[600];
    assert_int_equal(latrec_open_in(&w, dir, "live", 8), 1);
    snprintf(path, sizeof(path), "%s/live.latrec", dir);
    const uint64_t base = latrec_tnow();
    for (uint64_t i = 0; i < 200; i++) latrec_stamp_at(&w, i + 1, 3, i, 0, base + i * US);
    assert_int_equal(check_path(path, 0, 0), 200);
    latrec_close(&w);
    assert_int_equal(check_path(path, 1, 1), 200);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_clean_rings_are_guessed),
        cmocka_unit_test(test_not_guessed),
        cmocka_unit_test(test_torn_slot),
        cmocka_unit_test(test_killed_writer),
        cmocka_unit_test(test_stamps_out_of_order),
        cmocka_unit_test(test_live_ring),
        cmocka_unit_test(test_sparse_tail),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
