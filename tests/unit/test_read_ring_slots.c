/*
 * test_read_ring_slots.c - one ring's records: valid slots of a ring that
 * never wrapped, record fields, empty and torn slots, the shared mapping,
 * a file truncated while it is read, and a sparse file's holes.
 */
#define RING_TEST_DIR LATREC_TEST_TMP "/read_ring_slots"
#include "read_ring_util.h"

#include <fcntl.h>
#include <stdlib.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

/* ---- rule 2: valid records; a ring that is not full never wrapped ------ */

static void test_not_full_never_wrapped(void **state)
{
    (void)state;
    ringgen g;
    latrec_ring r;
    uint64_t s[16];
    /* 10 of 16 slots, with one big out-of-order stamp_at in the middle: the
     * reference reader called such a ring wrapped. */
    assert_int_equal(ringgen_init(&g, 2, 16, "ex.stamp_at"), 0);
    uint64_t t[10] = {100 * MS, 101 * MS, 102 * MS, 50 * MS, 104 * MS,
                      105 * MS, 106 * MS, 107 * MS, 108 * MS, 109 * MS};
    for (int i = 0; i < 10; i++)
        ringgen_stamp(&g, 1 + i, 0, 0x21, t[i], 0, 0);
    ringgen_set_u64(&g, RINGGEN_OFF_REC_COUNT, 10);
    assert_int_equal(open_gen(&r, &g, "nf.latrec"), 0);
    assert_int_equal(r.valid, 10);
    assert_false(r.wrapped);
    assert_int_equal(r.descents, 1);
    assert_int_equal(r.significant_descents, 1);
    assert_false(r.multi_writer);
    assert_string_equal(r.warning, "");
    assert_int_equal(r.start_slot, 0);
    assert_int_equal(r.newest_slot, 9);
    assert_int_equal(r.written, 10);
    assert_int_equal(r.lost, 0);
    assert_false(r.lost_lower_bound);
    assert_int_equal(seqs(&r, s, 16), 10);
    for (int i = 0; i < 10; i++)
        assert_int_equal(s[i], 1 + i);
    assert_int_equal(r.first_t_ns, 100 * MS);
    assert_int_equal(r.last_t_ns, 109 * MS);
    assert_int_equal(r.min_t_ns, 50 * MS);
    assert_int_equal(r.max_t_ns, 109 * MS);
    latrec_ring_close(&r);

    /* killed writer: rec_count 0, still 10 records, nothing lost */
    ringgen_set_u64(&g, RINGGEN_OFF_REC_COUNT, 0);
    assert_int_equal(open_gen(&r, &g, "nf0.latrec"), 0);
    assert_int_equal(r.written, 10);
    assert_int_equal(r.lost, 0);
    assert_false(r.lost_lower_bound);
    latrec_ring_close(&r);

    /* rec_count beyond the records present: said, but no loss invented */
    ringgen_set_u64(&g, RINGGEN_OFF_REC_COUNT, 40);
    assert_int_equal(open_gen(&r, &g, "nf40.latrec"), 0);
    assert_false(r.wrapped);
    assert_int_equal(r.written, 10);
    assert_int_equal(r.lost, 0);
    assert_string_equal(r.warning,
                        "rec_count 40 but the ring holds 10 records and never wrapped");
    latrec_ring_close(&r);

    /* two big inversions: not a single-writer ring, even when not full */
    ringgen_set_u64(&g, RINGGEN_OFF_REC_COUNT, 10);
    ringgen_set_rec(&g, 6, 7, 0, 0x21, 20 * MS, 0, 0);
    assert_int_equal(open_gen(&r, &g, "nf2.latrec"), 0);
    assert_int_equal(r.descents, 2);
    assert_true(r.multi_writer);
    assert_false(r.wrapped);
    assert_string_equal(r.warning, "not a single-writer ring (2 descents)");
    latrec_ring_close(&r);
    ringgen_free(&g);
}

static void test_empty_and_fields(void **state)
{
    (void)state;
    ringgen g;
    latrec_ring r;
    latrec_cursor c;
    latrec_rec rec = {0};

    assert_int_equal(ringgen_init(&g, 2, 16, "ex.empty"), 0);
    assert_int_equal(open_gen(&r, &g, "empty.latrec"), 0);
    assert_int_equal(r.status, LATREC_RING_OK);
    assert_int_equal(r.valid, 0);
    assert_int_equal(r.written, 0);
    assert_int_equal(r.first_t_ns, 0);
    latrec_ring_cursor_init(&c);
    assert_int_equal(latrec_ring_next(&r, &c, &rec), 0);
    latrec_ring_close(&r);

    /* every record field round-trips; zero slots in between are skipped */
    ringgen_set_rec(&g, 2, (1ull << 48) - 1, 0xAB, 0xFF, 123, UINT64_MAX, 1ull << 63);
    ringgen_set_rec(&g, 5, 0, 0, 0, 456, 1, 2);
    assert_int_equal(open_gen(&r, &g, "fields.latrec"), 0);
    assert_int_equal(r.valid, 2);
    assert_int_equal(r.start_slot, 2);
    assert_int_equal(r.newest_slot, 5);
    assert_int_equal(r.written, 6);
    assert_int_equal(r.min_seq, 0);
    assert_int_equal(r.max_seq, (1ull << 48) - 1);
    assert_int_equal(r.stage_counts[0xFF], 1);
    assert_int_equal(r.stage_counts[0], 1);
    latrec_ring_cursor_init(&c);
    assert_int_equal(latrec_ring_next(&r, &c, &rec), 1);
    assert_int_equal(latrec_rec_seq(rec.sc), (1ull << 48) - 1);
    assert_int_equal(latrec_rec_cpu(rec.sc), 0xAB);
    assert_int_equal(latrec_rec_stage(rec.sc), 0xFF);
    assert_int_equal(rec.t_ns, 123);
    assert_int_equal(rec.aux, UINT64_MAX);
    assert_int_equal(rec.aux2, 1ull << 63);
    assert_int_equal(c.pos - 1, 0);
    assert_int_equal(latrec_ring_next(&r, &c, &rec), 1);
    assert_int_equal(rec.t_ns, 456);
    assert_int_equal(rec.aux, 1);
    assert_int_equal(rec.aux2, 2);
    assert_int_equal(c.pos - 1, 3);
    assert_int_equal(latrec_ring_next(&r, &c, &rec), 0);
    assert_int_equal(latrec_ring_next(&r, &c, &rec), 0);
    latrec_ring_close(&r);
    ringgen_free(&g);
}

/* The mapping is MAP_SHARED: a record changed after open is seen. */
static void test_shared_mapping(void **state)
{
    (void)state;
    ringgen g;
    latrec_ring r;
    latrec_cursor c;
    latrec_rec rec = {0};
    assert_int_equal(ringgen_init(&g, 2, 4, "live"), 0);
    ringgen_stamp(&g, 1, 0, 0x21, 10, 7, 0);
    assert_int_equal(open_gen(&r, &g, "live.latrec"), 0);
    FILE *f = fopen(tmp("live.latrec"), "r+b");
    assert_non_null(f);
    uint8_t aux[8] = {42};
    assert_int_equal(fseek(f, 4096 + 16, SEEK_SET), 0);
    assert_int_equal(fwrite(aux, 1, 8, f), 8);
    fclose(f);
    latrec_ring_cursor_init(&c);
    assert_int_equal(latrec_ring_next(&r, &c, &rec), 1);
    assert_int_equal(rec.aux, 42);
    latrec_ring_close(&r);
    ringgen_free(&g);
}

/* One empty slot in the middle of a ring whose stamps rise across it is
 * not the slot of a wrapped writer (that one has time descending across
 * it): slot order stays the write order, nothing is wrapped or lost. */
static void test_empty_slot_no_descent(void **state)
{
    (void)state;
    ringgen g;
    latrec_ring r;
    assert_int_equal(ringgen_init(&g, 3, 8, "h.1"), 0);
    for (int i = 0; i < 8; i++)
        ringgen_stamp(&g, (uint64_t)i + 1, 0, 0x21, 2000 * MS + (uint64_t)i * MS, 0, 0);
    ringgen_set_rec(&g, 2, 0, 0, 0, 0, 0, 0); /* cleared */
    ringgen_set_u64(&g, RINGGEN_OFF_REC_COUNT, 8);
    assert_int_equal(open_gen(&r, &g, "hole.latrec"), 0);
    assert_int_equal(r.valid, 7);
    assert_false(r.wrapped);
    assert_int_equal(r.start_slot, 0);
    assert_int_equal(r.lost, 0);
    latrec_cursor c;
    latrec_rec rec;
    uint64_t prev = 0, n = 0;
    latrec_ring_cursor_init(&c);
    while (latrec_ring_next(&r, &c, &rec)) {
        assert_true(rec.t_ns > prev); /* write order is time order here */
        prev = rec.t_ns;
        n++;
    }
    assert_int_equal(n, 7);
    latrec_ring_close(&r);
    ringgen_free(&g);
}

/* A slot whose payload is set but whose t_ns is 0 is a stamp never
 * published: not a record, counted as torn. A cleared slot is not torn. */
static void test_torn_slots(void **state)
{
    (void)state;
    ringgen g;
    latrec_ring r;
    assert_int_equal(ringgen_init(&g, 3, 16, "t.1"), 0);
    for (int i = 0; i < 10; i++)
        ringgen_stamp(&g, (uint64_t)i + 1, 0, 0x21, 1000 * MS + (uint64_t)i * MS, 0, 0);
    ringgen_set_rec(&g, 4, 5, 0, 0x21, 0, 0, 0);  /* seq set, t_ns 0 */
    ringgen_set_rec(&g, 7, 0, 0, 0, 0, 99, 0);    /* aux only, t_ns 0 */
    ringgen_set_rec(&g, 8, 0, 0, 0, 0, 0, 0);     /* cleared: just empty */
    ringgen_set_rec(&g, 10, 11, 0, 0x22, 0, 0, 0); /* the next stamp, torn */
    ringgen_set_u64(&g, RINGGEN_OFF_REC_COUNT, 10);
    assert_int_equal(open_gen(&r, &g, "torn.latrec"), 0);
    assert_int_equal(r.valid, 7);
    assert_int_equal(r.torn, 3);
    assert_int_equal(r.lost, 0);
    latrec_cursor c;
    latrec_rec rec;
    uint64_t n = 0;
    latrec_ring_cursor_init(&c);
    while (latrec_ring_next(&r, &c, &rec))
        n++;
    assert_int_equal(n, 7);
    latrec_ring_close(&r);
    ringgen_free(&g);
}

/* Records of ring r in one write-order pass. */
static uint64_t count_pass(const latrec_ring *r)
{
    latrec_cursor c;
    latrec_rec rec;
    uint64_t n = 0;
    latrec_ring_cursor_init(&c);
    while (latrec_ring_next(r, &c, &rec)) {
        assert_int_equal(rec.t_ns, 1000 * MS + n * US);
        n++;
    }
    return n;
}

/* A ring file truncated while it is read (its mapping outlives the file's
 * end): no SIGBUS, the slots past the new end read as empty, the ring says
 * it was truncated, and a second ring beside it reads whole. */
static void test_shrink_while_read(void **state)
{
    (void)state;
    const uint64_t entries = 1u << 16;
    ringgen g;
    latrec_ring a, b;
    assert_int_equal(ringgen_init(&g, 3, entries, "big.1"), 0);
    for (uint64_t i = 0; i < entries; i++)
        ringgen_stamp(&g, i + 1, 0, 0x21, 1000 * MS + i * US, 0, 0);
    ringgen_set_u64(&g, RINGGEN_OFF_REC_COUNT, entries);
    assert_int_equal(open_gen(&a, &g, "shrink_a.latrec"), 0);
    assert_int_equal(open_gen(&b, &g, "shrink_b.latrec"), 0);
    assert_int_equal(a.valid, entries);
    assert_int_equal(latrec_ring_truncated(&a, NULL), 0);

    /* part of a pass, then the file shrinks to 8 KiB under it */
    latrec_cursor c;
    latrec_rec rec;
    latrec_ring_cursor_init(&c);
    for (int i = 0; i < 100; i++)
        assert_int_equal(latrec_ring_next(&a, &c, &rec), 1);
    assert_int_equal(truncate(tmp("shrink_a.latrec"), 8192), 0);
    uint64_t n = 100;
    while (latrec_ring_next(&a, &c, &rec))
        n++;
    assert_int_equal(n, (8192 - 4096) / 32); /* the records still in the file */
    uint64_t readable = 0;
    assert_int_equal(latrec_ring_truncated(&a, &readable), 1);
    assert_int_equal(readable, 8192);
    assert_int_equal(count_pass(&a), 128); /* a second pass: the same */
    assert_int_equal(count_pass(&b), entries);
    assert_int_equal(latrec_ring_truncated(&b, NULL), 0);

    /* to nothing at all: the header page was read at open, the records go */
    assert_int_equal(truncate(tmp("shrink_b.latrec"), 0), 0);
    assert_int_equal(count_pass(&b), 0);
    assert_int_equal(latrec_ring_truncated(&b, &readable), 1);
    assert_int_equal(readable, 4096);
    latrec_ring_close(&a);
    latrec_ring_close(&b);

    /* a ring opened again later sees the short file as truncated */
    assert_int_equal(latrec_ring_open(&a, tmp("shrink_a.latrec")), -1);
    assert_string_equal(a.error, "truncated: header says 65536 entries (2101248 bytes) but "
                                 "the file has 8192 bytes");
    latrec_ring_close(&a);
    ringgen_free(&g);
}

/* A SIGBUS outside every ring mapping still ends the process (the guard
 * passes it on). */
static void test_shrink_guard_other_faults(void **state)
{
    (void)state;
    ringgen g;
    latrec_ring a;
    assert_int_equal(ringgen_init(&g, 3, 16, "x.1"), 0);
    ringgen_stamp(&g, 1, 0, 0x21, 1000 * MS, 0, 0);
    assert_int_equal(ringgen_write(&g, tmp("guarded.latrec")), 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        /* without the test harness's own handler: the default action */
        signal(SIGBUS, SIG_DFL);
        if (latrec_ring_open(&a, tmp("guarded.latrec")) != 0) /* the guard is in place */
            _exit(1);
        const char *p = tmp("other.bin");
        int fd = open(p, O_RDWR | O_CREAT | O_TRUNC, 0644);
        if (fd < 0 || ftruncate(fd, 8192) != 0)
            _exit(2);
        volatile const char *m = mmap(NULL, 8192, PROT_READ, MAP_SHARED, fd, 0);
        if (m == MAP_FAILED || ftruncate(fd, 0) != 0)
            _exit(3);
        (void)m[4096]; /* SIGBUS, not ours */
        _exit(0);
    }
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFSIGNALED(status));
    assert_int_equal(WTERMSIG(status), SIGBUS);
    ringgen_free(&g);
}

/* Pages of the file at path in the page cache (mincore on a mapping of it
 * of its own: a hole read through any mapping is filled with a page of
 * zeros there; one never read has none). */
static size_t cached_pages(const char *path, size_t len)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    assert_true(fd >= 0);
    void *m = mmap(NULL, len, PROT_READ, MAP_SHARED, fd, 0);
    assert_true(m != MAP_FAILED);
    const size_t pages = (len + 4095) / 4096;
    unsigned char *vec = calloc(pages, 1);
    assert_non_null(vec);
    assert_int_equal(mincore(m, len, vec), 0);
    size_t n = 0;
    for (size_t i = 0; i < pages; i++) n += vec[i] & 1;
    free(vec);
    munmap(m, len);
    close(fd);
    return n;
}

/* A ring of 2^22 entries (128 MiB) holding 10 records at its start and one
 * at slot 2^21, written sparse (the rest holes of the file) and dense (the
 * same bytes, every one written): the scan at open gives the same fields
 * and records for both, and reads the holes of the sparse one not at all:
 * a few of its 32769 pages are in the page cache after, not all. */
static void test_sparse_holes_not_read(void **state)
{
    (void)state;
    const uint64_t entries = 1ull << 22, mid = 1ull << 21;
    const size_t len = LATREC_HDR_LEN + entries * LATREC_REC_SIZE;
    ringgen g;
    assert_int_equal(ringgen_init(&g, 3, 16, "oai.7"), 0);
    for (int i = 0; i < 10; i++)
        ringgen_stamp(&g, 1 + i, 0, 0x21, (100 + i) * MS, 0, 0);
    ringgen_set_u64(&g, RINGGEN_OFF_ENTRIES, entries);
    ringgen_set_u64(&g, RINGGEN_OFF_REC_COUNT, 11);
    /* the record at slot 2^21, made in slot 15 of the 16 built and taken out */
    unsigned char rec[LATREC_REC_SIZE], *slot15 = g.buf + LATREC_HDR_LEN + 15 * LATREC_REC_SIZE;
    ringgen_set_rec(&g, 15, 11, 0, 0x21, 200 * MS, 0, 0);
    memcpy(rec, slot15, sizeof rec);
    memset(slot15, 0, sizeof rec);
    const char *paths[2] = {"sparse.latrec", "dense.latrec"};
    for (int k = 0; k < 2; k++) {
        char p[512];
        snprintf(p, sizeof p, "%s", tmp(paths[k]));
        assert_int_equal(ringgen_write_len(&g, p, len), 0);
        int fd = open(p, O_WRONLY | O_CLOEXEC);
        assert_true(fd >= 0);
        if (k == 1) { /* every byte written: no hole */
            static unsigned char zero[1 << 20];
            for (size_t off = LATREC_HDR_LEN + 16 * LATREC_REC_SIZE; off < len; off += sizeof zero - off % sizeof zero) {
                const size_t n = sizeof zero - off % sizeof zero < len - off ? sizeof zero - off % sizeof zero : len - off;
                assert_int_equal(pwrite(fd, zero, n, (off_t)off), (ssize_t)n);
            }
        }
        assert_int_equal(pwrite(fd, rec, sizeof rec, (off_t)(LATREC_HDR_LEN + mid * LATREC_REC_SIZE)), (ssize_t)sizeof rec);
        assert_int_equal(close(fd), 0);
    }
    int fd = open(tmp("sparse.latrec"), O_RDONLY | O_CLOEXEC);
    assert_true(fd >= 0);
    const off_t at = LATREC_HDR_LEN + 4096 * 4, data = lseek(fd, at, SEEK_DATA);
    close(fd);
    if (data <= at) {
        ringgen_free(&g);
        skip(); /* the filesystem of LATREC_TEST_TMP does not say where its holes are */
    }
    latrec_ring a, b;
    assert_int_equal(latrec_ring_open(&a, tmp("sparse.latrec")), 0);
    const size_t cached = cached_pages(tmp("sparse.latrec"), len);
    print_message("pages of the sparse ring cached after its open: %zu of %zu\n", cached, len / 4096);
    assert_true(cached < 64);
    assert_int_equal(latrec_ring_open(&b, tmp("dense.latrec")), 0);
    assert_int_equal(a.valid, 11);
    assert_int_equal(a.valid, b.valid);
    assert_int_equal(a.wrapped, b.wrapped);
    assert_int_equal(a.descents, b.descents);
    assert_int_equal(a.significant_descents, b.significant_descents);
    assert_int_equal(a.multi_writer, b.multi_writer);
    assert_string_equal(a.warning, b.warning);
    assert_int_equal(a.start_slot, b.start_slot);
    assert_int_equal(a.newest_slot, b.newest_slot);
    assert_int_equal(a.iter_len, b.iter_len);
    assert_int_equal(a.written, b.written);
    assert_int_equal(a.lost, b.lost);
    assert_int_equal(a.lost_lower_bound, b.lost_lower_bound);
    assert_int_equal(a.first_t_ns, b.first_t_ns);
    assert_int_equal(a.last_t_ns, b.last_t_ns);
    assert_int_equal(a.min_t_ns, b.min_t_ns);
    assert_int_equal(a.max_t_ns, 200 * MS);
    assert_int_equal(a.max_t_ns, b.max_t_ns);
    assert_memory_equal(a.stage_counts, b.stage_counts, sizeof a.stage_counts);
    uint64_t sa[16], sb[16];
    const size_t na = seqs(&a, sa, 16);
    assert_int_equal(na, 11);
    assert_int_equal(seqs(&b, sb, 16), na);
    assert_memory_equal(sa, sb, na * sizeof *sa);
    latrec_ring_close(&a);
    latrec_ring_close(&b);
    unlink(tmp("sparse.latrec"));
    unlink(tmp("dense.latrec"));
    ringgen_free(&g);
}


int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_not_full_never_wrapped),
        cmocka_unit_test(test_empty_and_fields),
        cmocka_unit_test(test_shared_mapping),
        cmocka_unit_test(test_empty_slot_no_descent),
        cmocka_unit_test(test_torn_slots),
        cmocka_unit_test(test_shrink_while_read),
        cmocka_unit_test(test_shrink_guard_other_faults),
        cmocka_unit_test(test_sparse_holes_not_read),
    };
    return cmocka_run_group_tests(tests, setup_dir, NULL);
}
