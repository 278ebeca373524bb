/*
 * test_read_ring.c - one ring: header rejections, validity, wrap recovery,
 * loss accounting and write-order iteration, on synthetic rings written
 * byte by byte with ringgen.h.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "read/ring.h"
#include "ringgen.h"

#define TMPDIR LATREC_TEST_TMP "/read_ring"
#define MS 1000000ull
#define US 1000ull

static char tmp_path[512];

static const char *tmp(const char *name)
{
    snprintf(tmp_path, sizeof tmp_path, TMPDIR "/%s", name);
    return tmp_path;
}

static int setup_dir(void **state)
{
    (void)state;
    mkdir(LATREC_TEST_TMP, 0755);
    mkdir(TMPDIR, 0755);
    return 0;
}

/* Write g (first len bytes) to TMPDIR/name and open it into *r. */
static int open_len(latrec_ring *r, const ringgen *g, const char *name, size_t len)
{
    const char *p = tmp(name);
    assert_int_equal(ringgen_write_len(g, p, len), 0);
    return latrec_ring_open(r, p);
}

static int open_gen(latrec_ring *r, const ringgen *g, const char *name)
{
    return open_len(r, g, name, g->len);
}

/* Expect the ring built by g to be rejected with exactly `reason`. */
static void expect_reject_len(const ringgen *g, size_t len, const char *reason)
{
    latrec_ring r;
    assert_int_equal(open_len(&r, g, "reject.latrec", len), -1);
    assert_int_equal(r.status, LATREC_RING_REJECTED);
    assert_string_equal(r.error, reason);
    assert_null(r.recs);
    assert_string_equal(r.basename, "reject.latrec");
    latrec_ring_close(&r);
}

static void expect_reject(const ringgen *g, const char *reason)
{
    expect_reject_len(g, g->len, reason);
}

/* Collect the seqs of r in write order. Returns how many. */
static size_t seqs(const latrec_ring *r, uint64_t *out, size_t max)
{
    latrec_cursor c;
    latrec_rec rec = {0};
    size_t n = 0;
    latrec_ring_cursor_init(&c);
    while (latrec_ring_next(r, &c, &rec)) {
        if (n < max)
            out[n] = latrec_rec_seq(rec.sc);
        n++;
    }
    return n;
}

/* ---- rule 1: header rejections ---------------------------------------- */

static void test_reject_short(void **state)
{
    (void)state;
    ringgen g;
    assert_int_equal(ringgen_init(&g, 2, 16, "x.1"), 0);
    expect_reject_len(&g, 100, "shorter than a header: 100 bytes");
    expect_reject_len(&g, 0, "shorter than a header: 0 bytes");
    expect_reject_len(&g, 4095, "shorter than a header: 4095 bytes");
    ringgen_free(&g);
}

static void test_reject_magic(void **state)
{
    (void)state;
    ringgen g;
    assert_int_equal(ringgen_init(&g, 2, 16, "x.1"), 0);
    ringgen_set_u32(&g, RINGGEN_OFF_MAGIC, 0x31524C42u);
    expect_reject(&g, "bad magic 0x31524C42 (not a latrec ring)");
    ringgen_set_u32(&g, RINGGEN_OFF_MAGIC, 0);
    expect_reject(&g, "bad magic 0x00000000 (not a latrec ring)");
    /* "ALR1" written by a big-endian host: the same value, bytes reversed */
    ringgen_set_u32(&g, RINGGEN_OFF_MAGIC, 0x414C5231u);
    expect_reject(&g, "byte-swapped ring (written on an opposite-endian host)");
    ringgen_free(&g);
}

static void test_reject_version(void **state)
{
    (void)state;
    ringgen g;
    assert_int_equal(ringgen_init(&g, 2, 16, "x.1"), 0);
    ringgen_set_u32(&g, RINGGEN_OFF_VERSION, 0);
    expect_reject(&g, "unsupported version 0");
    ringgen_set_u32(&g, RINGGEN_OFF_VERSION, 4);
    expect_reject(&g, "unsupported version 4");
    ringgen_set_u32(&g, RINGGEN_OFF_VERSION, 0xFFFFFFFFu);
    expect_reject(&g, "unsupported version 4294967295");
    ringgen_free(&g);
}

static void test_reject_entries(void **state)
{
    (void)state;
    ringgen g;
    assert_int_equal(ringgen_init(&g, 2, 16, "x.1"), 0);
    ringgen_set_u64(&g, RINGGEN_OFF_ENTRIES, 0);
    expect_reject(&g, "entries is zero");
    ringgen_set_u64(&g, RINGGEN_OFF_ENTRIES, 100);
    expect_reject(&g, "entries 100 is not a power of two");
    ringgen_set_u64(&g, RINGGEN_OFF_ENTRIES, (1ull << 33) + 1);
    expect_reject(&g, "entries 8589934593 is not a power of two");
    ringgen_set_u64(&g, RINGGEN_OFF_ENTRIES, 1ull << 33);
    expect_reject(&g, "absurd entries 8589934592 (more than 2^32)");
    ringgen_set_u64(&g, RINGGEN_OFF_ENTRIES, 1ull << 63);
    expect_reject(&g, "absurd entries 9223372036854775808 (more than 2^32)");
    /* 2^32 itself is allowed by the header rule; this file is too short */
    ringgen_set_u64(&g, RINGGEN_OFF_ENTRIES, 1ull << 32);
    expect_reject(&g, "truncated: header says 4294967296 entries (137438957568 "
                      "bytes) but the file has 4608 bytes");
    ringgen_free(&g);
}

static void test_reject_truncated(void **state)
{
    (void)state;
    ringgen g;
    /* The b6 ex.truncated shape: 4096 entries, 7 records + 10 stray bytes.
     * The reference reader accepted it; the contract says it is no ring. */
    assert_int_equal(ringgen_init(&g, 2, 4096, "ex.truncated"), 0);
    for (int i = 0; i < 8; i++)
        ringgen_stamp(&g, 100 + i, 1, 0x21, 886012110196ull + i * 100 * US, i, 5);
    expect_reject_len(&g, 4330, "truncated: header says 4096 entries (135168 "
                                "bytes) but the file has 4330 bytes");
    expect_reject_len(&g, g.len - 1, "truncated: header says 4096 entries "
                                     "(135168 bytes) but the file has 135167 bytes");
    /* the header alone, for a one-entry ring */
    ringgen_set_u64(&g, RINGGEN_OFF_ENTRIES, 1);
    expect_reject_len(&g, 4096, "truncated: header says 1 entries (4128 bytes) "
                                "but the file has 4096 bytes");
    /* longer than needed is fine: the extra bytes are ignored */
    latrec_ring r;
    ringgen_set_u64(&g, RINGGEN_OFF_ENTRIES, 4);
    assert_int_equal(open_len(&r, &g, "long.latrec", 4096 + 4 * 32 + 1000), 0);
    assert_int_equal(r.entries, 4);
    assert_int_equal(r.valid, 4);
    assert_int_equal(r.file_size, 4096 + 4 * 32 + 1000);
    latrec_ring_close(&r);
    ringgen_free(&g);
}

static void test_rec_size(void **state)
{
    (void)state;
    ringgen g;
    latrec_ring r;

    assert_int_equal(ringgen_init(&g, 2, 16, "x.1"), 0);
    ringgen_set_u32(&g, RINGGEN_OFF_REC_SIZE, 64);
    expect_reject(&g, "rec_size 64, expected 32");
    /* v2/v3 writers always store 32: 0 is an error there */
    ringgen_set_u32(&g, RINGGEN_OFF_REC_SIZE, 0);
    expect_reject(&g, "rec_size 0, expected 32");
    ringgen_set_u32(&g, RINGGEN_OFF_VERSION, 3);
    expect_reject(&g, "rec_size 0, expected 32");
    ringgen_free(&g);

    /* v1 has no rec_size field: 0 reads as 32, 32 is fine, else error */
    assert_int_equal(ringgen_init(&g, 1, 16, "x.1"), 0);
    assert_int_equal(open_gen(&r, &g, "v1.latrec"), 0);
    assert_int_equal(r.rec_size, 32);
    latrec_ring_close(&r);
    ringgen_set_u32(&g, RINGGEN_OFF_REC_SIZE, 32);
    assert_int_equal(open_gen(&r, &g, "v1.latrec"), 0);
    assert_int_equal(r.rec_size, 32);
    latrec_ring_close(&r);
    ringgen_set_u32(&g, RINGGEN_OFF_REC_SIZE, 16);
    expect_reject(&g, "rec_size 16, expected 32");
    ringgen_free(&g);
}

static void test_reject_name(void **state)
{
    (void)state;
    ringgen g;
    latrec_ring r;
    char name[64];
    assert_int_equal(ringgen_init(&g, 2, 16, "x"), 0);
    memset(name, 'a', sizeof name);
    ringgen_set_bytes(&g, RINGGEN_OFF_NAME, name, 64);
    expect_reject(&g, "name is not NUL-terminated (64 bytes)");
    /* 63 characters and a NUL: the longest name */
    ringgen_set_bytes(&g, RINGGEN_OFF_NAME + 63, "", 1);
    assert_int_equal(open_gen(&r, &g, "name.latrec"), 0);
    assert_int_equal(strlen(r.name), 63);
    latrec_ring_close(&r);
    ringgen_free(&g);
}

static void test_reject_files(void **state)
{
    (void)state;
    latrec_ring r;
    ringgen g;
    assert_int_equal(ringgen_init(&g, 2, 16, "x.1"), 0);

    /* .part is never opened, not even when it exists */
    assert_int_equal(ringgen_write(&g, tmp("p.latrec.part")), 0);
    assert_int_equal(latrec_ring_open(&r, tmp("p.latrec.part")), -1);
    assert_string_equal(r.error, "partial ring (.part): not opened");
    latrec_ring_close(&r);
    assert_int_equal(latrec_ring_open(&r, tmp("missing.latrec.part")), -1);
    assert_string_equal(r.error, "partial ring (.part): not opened");
    latrec_ring_close(&r);

    /* a symlink to a good ring is not followed */
    assert_int_equal(ringgen_write(&g, tmp("target.latrec")), 0);
    unlink(tmp("link.latrec"));
    assert_int_equal(symlink("target.latrec", tmp("link.latrec")), 0);
    assert_int_equal(latrec_ring_open(&r, tmp("link.latrec")), -1);
    assert_string_equal(r.error, "symbolic link: not followed");
    assert_string_equal(r.basename, "link.latrec");
    latrec_ring_close(&r);
    assert_int_equal(latrec_ring_open(&r, tmp("target.latrec")), 0);
    latrec_ring_close(&r);

    /* a directory, a missing file */
    mkdir(tmp("dir.latrec"), 0755);
    assert_int_equal(latrec_ring_open(&r, tmp("dir.latrec")), -1);
    assert_string_equal(r.error, "not a regular file");
    latrec_ring_close(&r);
    assert_int_equal(latrec_ring_open(&r, tmp("none.latrec")), -1);
    assert_string_equal(r.error, strerror(ENOENT));
    latrec_ring_close(&r);
    ringgen_free(&g);

    /* closing a zeroed struct and closing twice are harmless */
    memset(&r, 0, sizeof r);
    latrec_ring_close(&r);
    latrec_ring_close(&r);
}

/* ---- header fields ------------------------------------------------------ */

static void test_header_versions(void **state)
{
    (void)state;
    ringgen g;
    latrec_ring r;
    uint8_t boot[16];
    for (int i = 0; i < 16; i++)
        boot[i] = (uint8_t)(0xA0 + i);

    /* v1 with junk after byte 104: only the v1 fields are read */
    assert_int_equal(ringgen_init(&g, 1, 8, "libe3.pub"), 0);
    ringgen_set_u64(&g, RINGGEN_OFF_REC_COUNT, 3);
    ringgen_set_u32(&g, RINGGEN_OFF_CLOCK_COST, 77);
    ringgen_set_u64(&g, RINGGEN_OFF_T1_MONO, 5);
    ringgen_set_u64(&g, RINGGEN_OFF_T1_REAL, 6);
    ringgen_set_u32(&g, RINGGEN_OFF_PID, 99);
    ringgen_set_bytes(&g, RINGGEN_OFF_BOOT_ID, boot, 16);
    ringgen_set_bytes(&g, RINGGEN_OFF_HOST, "h", 1);
    assert_int_equal(open_gen(&r, &g, "v1.latrec"), 0);
    assert_int_equal(r.version, 1);
    assert_int_equal(r.entries, 8);
    assert_int_equal(r.rec_count, 3);
    assert_int_equal(r.t0_mono_ns, RINGGEN_T0_MONO);
    assert_int_equal(r.t0_real_ns, RINGGEN_T0_REAL);
    assert_string_equal(r.name, "libe3.pub");
    assert_int_equal(r.rec_size, 32);
    assert_int_equal(r.clock_ns_per_call, 0);
    assert_int_equal(r.t1_mono_ns, 0);
    assert_int_equal(r.t1_real_ns, 0);
    assert_int_equal(r.pid, 0);
    assert_false(latrec_ring_boot_known(&r));
    assert_string_equal(r.host, "");
    latrec_ring_close(&r);
    ringgen_free(&g);

    /* v2: t1 pair and clock cost, still no v3 fields */
    assert_int_equal(ringgen_init(&g, 2, 8, "oai.7"), 0);
    ringgen_set_u64(&g, RINGGEN_OFF_T1_MONO, RINGGEN_T0_MONO + 5);
    ringgen_set_u64(&g, RINGGEN_OFF_T1_REAL, RINGGEN_T0_REAL + 6);
    ringgen_set_u32(&g, RINGGEN_OFF_PID, 99);
    assert_int_equal(open_gen(&r, &g, "v2.latrec"), 0);
    assert_int_equal(r.version, 2);
    assert_int_equal(r.clock_ns_per_call, 20);
    assert_int_equal(r.t1_mono_ns, RINGGEN_T0_MONO + 5);
    assert_int_equal(r.t1_real_ns, RINGGEN_T0_REAL + 6);
    assert_int_equal(r.pid, 0);
    assert_string_equal(r.catalog, "");
    latrec_ring_close(&r);
    ringgen_free(&g);

    /* v3: every field; a host without NUL is cut at 64 characters */
    char host[64];
    memset(host, 'h', sizeof host);
    assert_int_equal(ringgen_init(&g, 3, 8, "dapp.12"), 0);
    ringgen_set_u32(&g, RINGGEN_OFF_FLAGS, 0x5);
    ringgen_set_bytes(&g, RINGGEN_OFF_BOOT_ID, boot, 16);
    ringgen_set_bytes(&g, RINGGEN_OFF_HOST, host, 64);
    ringgen_set_bytes(&g, RINGGEN_OFF_CATALOG, "e3", 3);
    assert_int_equal(open_gen(&r, &g, "v3.latrec"), 0);
    assert_int_equal(r.version, 3);
    assert_int_equal(r.pid, 1000);
    assert_int_equal(r.tid, 1001);
    assert_int_equal(r.flags, 0x5);
    assert_int_equal(r.clock_id, 1);
    assert_memory_equal(r.boot_id, boot, 16);
    assert_true(latrec_ring_boot_known(&r));
    assert_int_equal(strlen(r.host), 64);
    assert_string_equal(r.catalog, "e3");
    assert_string_equal(r.name, "dapp.12");
    latrec_ring_close(&r);
    ringgen_free(&g);
}

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

/* ---- rule 3: wrap recovery --------------------------------------------- */

/* A 16-entry ring after `n` stamps at t = base + i * step (i = 0..n-1),
 * seq = i + 1, rec_count rc. */
static void make_ring(ringgen *g, uint64_t n, uint64_t base, uint64_t step,
                      uint64_t rc)
{
    assert_int_equal(ringgen_init(g, 2, 16, "w.1"), 0);
    for (uint64_t i = 0; i < n; i++)
        ringgen_stamp(g, i + 1, 0, 0x21, base + i * step, i, 0);
    ringgen_set_u64(g, RINGGEN_OFF_REC_COUNT, rc);
}

static void expect_order(const latrec_ring *r, uint64_t first_seq, uint64_t n)
{
    uint64_t s[64];
    assert_int_equal(seqs(r, s, 64), n);
    for (uint64_t i = 0; i < n; i++)
        assert_int_equal(s[i], first_seq + i);
}

static void test_wrap_simple(void **state)
{
    (void)state;
    ringgen g;
    latrec_ring r;
    make_ring(&g, 20, 1000 * MS, 10 * MS, 20);
    assert_int_equal(open_gen(&r, &g, "w.latrec"), 0);
    assert_int_equal(r.valid, 16);
    assert_true(r.wrapped);
    assert_int_equal(r.descents, 1);
    assert_int_equal(r.significant_descents, 1);
    assert_int_equal(r.start_slot, 4);
    assert_int_equal(r.newest_slot, 3);
    assert_int_equal(r.written, 20);
    assert_int_equal(r.lost, 4);
    assert_false(r.lost_lower_bound);
    assert_int_equal(r.first_t_ns, 1000 * MS + 4 * 10 * MS);
    assert_int_equal(r.last_t_ns, 1000 * MS + 19 * 10 * MS);
    assert_int_equal(latrec_rec_seq(r.first_rec.sc), 5);
    assert_int_equal(latrec_rec_seq(r.last_rec.sc), 20);
    assert_int_equal(r.min_seq, 5);
    assert_int_equal(r.max_seq, 20);
    expect_order(&r, 5, 16);
    latrec_ring_close(&r);
    ringgen_free(&g);
}

/* A ring filled in well under 1 ms (records 1 us apart) still wraps. */
static void test_wrap_tiny_span(void **state)
{
    (void)state;
    ringgen g;
    latrec_ring r;
    make_ring(&g, 27, 5000 * MS, 1 * US, 27);
    assert_int_equal(open_gen(&r, &g, "tiny.latrec"), 0);
    assert_true(r.wrapped);
    assert_int_equal(r.start_slot, 11);
    assert_int_equal(r.written, 27);
    assert_int_equal(r.lost, 11);
    expect_order(&r, 12, 16);
    latrec_ring_close(&r);
    ringgen_free(&g);
}

/* stamp_at inversions of a few us right before the wrap point (the newest
 * record), right after it (the oldest), and away from it: none of them is
 * taken for the wrap, which stays where the newest meets the oldest. */
static void test_wrap_with_inversions(void **state)
{
    (void)state;
    ringgen g;
    latrec_ring r;
    uint64_t base = 2000 * MS, step = 100 * US;
    make_ring(&g, 24, base, step, 24);
    /* records 0..23: slots 8..15 hold records 8..15 (oldest), slots 0..7
     * hold records 16..23 (newest = slot 7). */
    /* newest record stamped 5 us before its predecessor */
    ringgen_set_rec(&g, 7, 24, 0, 0x21, base + 22 * step - 5 * US, 23, 0);
    /* the oldest's successor stamped 3 us before the oldest */
    ringgen_set_rec(&g, 9, 10, 0, 0x21, base + 8 * step - 3 * US, 9, 0);
    /* and one in the middle of the newer part */
    ringgen_set_rec(&g, 3, 20, 0, 0x21, base + 18 * step - 7 * US, 19, 0);
    assert_int_equal(open_gen(&r, &g, "inv.latrec"), 0);
    assert_int_equal(r.descents, 4);
    assert_int_equal(r.significant_descents, 1);
    assert_true(r.wrapped);
    assert_false(r.multi_writer);
    assert_int_equal(r.start_slot, 8);
    assert_int_equal(r.newest_slot, 7);
    assert_int_equal(r.written, 24);
    assert_int_equal(r.lost, 8);
    expect_order(&r, 9, 16);
    assert_int_equal(r.last_t_ns, base + 22 * step - 5 * US);
    latrec_ring_close(&r);

    /* the same inversions with a ring that did not wrap (exactly full):
     * no candidate spans half the ring, slot order stays */
    ringgen_free(&g);
    make_ring(&g, 16, base, step, 16);
    ringgen_set_rec(&g, 15, 16, 0, 0x21, base + 14 * step - 5 * US, 15, 0);
    ringgen_set_rec(&g, 1, 2, 0, 0x21, base - 3 * US, 1, 0);
    ringgen_set_rec(&g, 7, 8, 0, 0x21, base + 6 * step - 7 * US, 7, 0);
    assert_int_equal(open_gen(&r, &g, "inv0.latrec"), 0);
    assert_int_equal(r.descents, 3);
    assert_int_equal(r.significant_descents, 0);
    assert_false(r.wrapped);
    assert_int_equal(r.start_slot, 0);
    assert_int_equal(r.written, 16);
    assert_int_equal(r.lost, 0);
    expect_order(&r, 1, 16);
    latrec_ring_close(&r);
    ringgen_free(&g);
}

/* A full ring with no descent wrapped exactly at the slot-0 boundary when
 * rec_count says so. */
static void test_wrap_at_boundary(void **state)
{
    (void)state;
    ringgen g;
    latrec_ring r;
    make_ring(&g, 32, 1000 * MS, MS, 32);
    assert_int_equal(open_gen(&r, &g, "b32.latrec"), 0);
    assert_int_equal(r.descents, 0);
    assert_true(r.wrapped);
    assert_int_equal(r.start_slot, 0);
    assert_int_equal(r.newest_slot, 15);
    assert_int_equal(r.written, 32);
    assert_int_equal(r.lost, 16);
    assert_false(r.lost_lower_bound);
    expect_order(&r, 17, 16);
    latrec_ring_close(&r);

    /* rec_count 17 (stored when the index reached 16, plus one heartbeat):
     * the first n >= 17 ending at slot 15 is 32 */
    ringgen_set_u64(&g, RINGGEN_OFF_REC_COUNT, 17);
    assert_int_equal(open_gen(&r, &g, "b17.latrec"), 0);
    assert_true(r.wrapped);
    assert_int_equal(r.written, 32);
    assert_int_equal(r.lost, 16);
    latrec_ring_close(&r);

    /* exactly full: rec_count 16, not wrapped */
    ringgen_set_u64(&g, RINGGEN_OFF_REC_COUNT, 16);
    assert_int_equal(open_gen(&r, &g, "b16.latrec"), 0);
    assert_false(r.wrapped);
    assert_int_equal(r.written, 16);
    assert_int_equal(r.lost, 0);
    assert_false(r.lost_lower_bound);
    latrec_ring_close(&r);

    /* rec_count 0 (killed writer): cannot tell, lower bound */
    ringgen_set_u64(&g, RINGGEN_OFF_REC_COUNT, 0);
    assert_int_equal(open_gen(&r, &g, "b0.latrec"), 0);
    assert_false(r.wrapped);
    assert_int_equal(r.written, 16);
    assert_int_equal(r.lost, 0);
    assert_true(r.lost_lower_bound);
    latrec_ring_close(&r);
    ringgen_free(&g);
}

/* Two writers' records in one ring: more than one significant descent. */
static void test_multi_writer(void **state)
{
    (void)state;
    ringgen g;
    latrec_ring r;
    assert_int_equal(ringgen_init(&g, 2, 16, "mw.1"), 0);
    /* A: 100..107 ms in slots 0,2,4..; B: 50..57 ms in slots 1,3,5.. */
    for (int i = 0; i < 16; i++)
        ringgen_stamp(&g, i + 1, 0, 0x21, (i % 2 ? 50 : 100) * MS + (i / 2) * MS, 0, 0);
    ringgen_set_u64(&g, RINGGEN_OFF_REC_COUNT, 40);
    assert_int_equal(open_gen(&r, &g, "mw.latrec"), 0);
    assert_int_equal(r.status, LATREC_RING_OK);
    assert_int_equal(r.descents, 8);
    assert_int_equal(r.significant_descents, 8);
    assert_true(r.multi_writer);
    assert_false(r.wrapped);
    assert_string_equal(r.warning, "not a single-writer ring (8 descents)");
    assert_int_equal(r.start_slot, 0);
    assert_int_equal(r.written, 40);
    assert_int_equal(r.lost, 24);
    expect_order(&r, 1, 16);
    latrec_ring_close(&r);

    /* a wrap plus one more big descent elsewhere: two significant */
    ringgen_free(&g);
    make_ring(&g, 20, 1000 * MS, 10 * MS, 20);
    ringgen_set_rec(&g, 10, 11, 0, 0x21, 1000 * MS + 5 * 10 * MS, 0, 0);
    assert_int_equal(open_gen(&r, &g, "mw2.latrec"), 0);
    assert_int_equal(r.descents, 2);
    assert_int_equal(r.significant_descents, 2);
    assert_true(r.multi_writer);
    assert_false(r.wrapped);
    assert_string_equal(r.warning, "not a single-writer ring (2 descents)");
    latrec_ring_close(&r);
    ringgen_free(&g);
}

/* ---- rule 4: loss ------------------------------------------------------- */

static void test_loss(void **state)
{
    (void)state;
    ringgen g;
    latrec_ring r;
    /* 45 written into 16: newest at slot (45-1) mod 16 = 12 */
    make_ring(&g, 45, 1000 * MS, MS, 45);
    assert_int_equal(open_gen(&r, &g, "l45.latrec"), 0);
    assert_true(r.wrapped);
    assert_int_equal(r.newest_slot, 12);
    assert_int_equal(r.start_slot, 13);
    assert_int_equal(r.written, 45);
    assert_int_equal(r.lost, 29);
    assert_false(r.lost_lower_bound);
    latrec_ring_close(&r);

    /* rec_count last stored when the index reached 32: exact again */
    ringgen_set_u64(&g, RINGGEN_OFF_REC_COUNT, 32);
    assert_int_equal(open_gen(&r, &g, "l32.latrec"), 0);
    assert_int_equal(r.written, 45);
    assert_int_equal(r.lost, 29);
    assert_false(r.lost_lower_bound);
    latrec_ring_close(&r);

    /* killed writer (rec_count 0): congruent lower bound 16 + 13 = 29 */
    ringgen_set_u64(&g, RINGGEN_OFF_REC_COUNT, 0);
    assert_int_equal(open_gen(&r, &g, "l0.latrec"), 0);
    assert_true(r.wrapped);
    assert_int_equal(r.written, 29);
    assert_int_equal(r.lost, 13);
    assert_true(r.lost_lower_bound);
    assert_int_equal(r.written % 16, 45 % 16);
    latrec_ring_close(&r);

    /* stale heartbeat below the capacity: same lower bound */
    ringgen_set_u64(&g, RINGGEN_OFF_REC_COUNT, 9);
    assert_int_equal(open_gen(&r, &g, "l9.latrec"), 0);
    assert_int_equal(r.written, 29);
    assert_true(r.lost_lower_bound);
    latrec_ring_close(&r);

    /* an impossible rec_count: no overflow, said so, saturated at 2^63 - 1
     * (what every output, JSON included, holds) as a lower bound */
    ringgen_set_u64(&g, RINGGEN_OFF_REC_COUNT, UINT64_MAX);
    assert_int_equal(open_gen(&r, &g, "lmax.latrec"), 0);
    assert_true(r.wrapped);
    assert_int_equal(r.written, INT64_MAX);
    assert_int_equal(r.lost, INT64_MAX);
    assert_true(r.lost_lower_bound);
    assert_string_equal(r.warning, "rec_count 18446744073709551615 is implausible: "
                                   "loss is not exact");
    latrec_ring_close(&r);

    /* congruent with the newest slot, so no overflow either: 2^64 - 19
     * written would be 2^64 - 35 lost (printed as -35 by a signed
     * figure); saturated instead */
    ringgen_set_u64(&g, RINGGEN_OFF_REC_COUNT, UINT64_MAX - 18);
    assert_int_equal(open_gen(&r, &g, "lbig.latrec"), 0);
    assert_int_equal((UINT64_MAX - 18 - 1) % 16, r.newest_slot);
    assert_int_equal(r.written, INT64_MAX);
    assert_int_equal(r.lost, INT64_MAX);
    assert_true(r.lost_lower_bound);
    assert_string_equal(r.warning, "rec_count 18446744073709551597 is implausible: "
                                   "loss is not exact");
    latrec_ring_close(&r);

    /* 2^63 - 1 itself is still a plausible count */
    ringgen_set_u64(&g, RINGGEN_OFF_REC_COUNT, (uint64_t)INT64_MAX - 2);
    assert_int_equal(open_gen(&r, &g, "l63.latrec"), 0);
    assert_int_equal(r.written, INT64_MAX - 2);
    assert_int_equal(r.lost, INT64_MAX - 18);
    assert_false(r.lost_lower_bound);
    assert_string_equal(r.warning, "");
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

/* The clock the stamps are on, once read, must be CLOCK_MONOTONIC (1);
 * 0 says nothing (versions 1 and 2 have no field) and is taken as it. */
static void test_clock_id(void **state)
{
    (void)state;
    ringgen g;
    latrec_ring r;
    assert_int_equal(ringgen_init(&g, 3, 16, "c.1"), 0);
    ringgen_stamp(&g, 1, 0, 0x21, 1000 * MS, 0, 0);
    ringgen_set_u32(&g, RINGGEN_OFF_CLOCK_ID, 0);
    assert_int_equal(open_gen(&r, &g, "clock0.latrec"), 0);
    latrec_ring_close(&r);
    ringgen_set_u32(&g, RINGGEN_OFF_CLOCK_ID, 4); /* e.g. CLOCK_MONOTONIC_RAW + 0 */
    expect_reject(&g, "clock_id 4: stamps not on CLOCK_MONOTONIC (1), not comparable with the other rings");
    ringgen_set_u32(&g, RINGGEN_OFF_CLOCK_ID, 0xFFFFFFFFu);
    expect_reject(&g, "clock_id 4294967295: stamps not on CLOCK_MONOTONIC (1), not comparable with the "
                      "other rings");
    /* a TSC ring converts to clock_id: the same check after conversion */
    const uint64_t tsc[2] = {1000000, 5000000}, mono[2] = {1000 * MS, 1002 * MS};
    ringgen_make_tsc(&g, tsc, mono, 2);
    ringgen_set_rec(&g, 0, 1, 0, 0x21, 2000000, 0, 0);
    ringgen_set_u32(&g, RINGGEN_OFF_CLOCK_ID, 1);
    assert_int_equal(open_gen(&r, &g, "tsc1.latrec"), 0);
    assert_int_equal(r.first_t_ns, 1000 * MS + MS / 2);
    latrec_ring_close(&r);
    ringgen_set_u32(&g, RINGGEN_OFF_CLOCK_ID, 7);
    expect_reject(&g, "clock_id 7: stamps not on CLOCK_MONOTONIC (1), not comparable with the other rings");
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

/* A writer killed in the middle of a stamp after wrapping leaves the slot it
 * was rewriting empty (the stamp clears t_ns first). The ring is still
 * wrapped, its order starts after the empty slot, and the count is exact
 * from a rec_count refreshed every entries/2 records. */
static void test_in_progress_slot(void **state)
{
    (void)state;
    ringgen g;
    latrec_ring r;
    /* 45 completed, the 46th (index 45, slot 13) in progress */
    make_ring(&g, 46, 1000 * MS, MS, 40);
    ringgen_set_rec(&g, 13, 0, 0, 0, 0, 0, 0);
    assert_int_equal(open_gen(&r, &g, "ip45.latrec"), 0);
    assert_true(r.wrapped);
    assert_false(r.multi_writer);
    assert_int_equal(r.valid, 15);
    assert_int_equal(r.newest_slot, 12);
    assert_int_equal(r.start_slot, 14);
    assert_int_equal(r.written, 45);
    assert_int_equal(r.lost, 30);
    assert_false(r.lost_lower_bound);
    expect_order(&r, 31, 15); /* seqs 31..45: records 30..44 */
    latrec_ring_close(&r);

    /* in progress at slot 0: the newest record is in the last slot */
    ringgen_free(&g);
    make_ring(&g, 49, 1000 * MS, MS, 40);
    ringgen_set_rec(&g, 0, 0, 0, 0, 0, 0, 0);
    assert_int_equal(open_gen(&r, &g, "ip48.latrec"), 0);
    assert_true(r.wrapped);
    assert_int_equal(r.newest_slot, 15);
    assert_int_equal(r.start_slot, 1);
    assert_int_equal(r.written, 48);
    assert_int_equal(r.lost, 33);
    expect_order(&r, 34, 15);
    latrec_ring_close(&r);

    /* in progress at the last slot of a later lap: order as written, the
     * count from rec_count */
    ringgen_free(&g);
    make_ring(&g, 48, 1000 * MS, MS, 40);
    ringgen_set_rec(&g, 15, 0, 0, 0, 0, 0, 0);
    assert_int_equal(open_gen(&r, &g, "ip47.latrec"), 0);
    assert_true(r.wrapped);
    assert_int_equal(r.newest_slot, 14);
    assert_int_equal(r.written, 47);
    assert_int_equal(r.lost, 32);
    expect_order(&r, 33, 15);
    latrec_ring_close(&r);

    /* the same picture in the first lap is just a ring not yet full */
    ringgen_free(&g);
    make_ring(&g, 15, 1000 * MS, MS, 8);
    assert_int_equal(open_gen(&r, &g, "first.latrec"), 0);
    assert_false(r.wrapped);
    assert_int_equal(r.written, 15);
    assert_int_equal(r.lost, 0);
    latrec_ring_close(&r);
    ringgen_free(&g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_reject_short),
        cmocka_unit_test(test_reject_magic),
        cmocka_unit_test(test_reject_version),
        cmocka_unit_test(test_reject_entries),
        cmocka_unit_test(test_reject_truncated),
        cmocka_unit_test(test_rec_size),
        cmocka_unit_test(test_reject_name),
        cmocka_unit_test(test_reject_files),
        cmocka_unit_test(test_header_versions),
        cmocka_unit_test(test_not_full_never_wrapped),
        cmocka_unit_test(test_empty_and_fields),
        cmocka_unit_test(test_shared_mapping),
        cmocka_unit_test(test_wrap_simple),
        cmocka_unit_test(test_wrap_tiny_span),
        cmocka_unit_test(test_wrap_with_inversions),
        cmocka_unit_test(test_wrap_at_boundary),
        cmocka_unit_test(test_multi_writer),
        cmocka_unit_test(test_loss),
        cmocka_unit_test(test_in_progress_slot),
        cmocka_unit_test(test_torn_slots),
        cmocka_unit_test(test_empty_slot_no_descent),
        cmocka_unit_test(test_clock_id),
        cmocka_unit_test(test_shrink_while_read),
        cmocka_unit_test(test_shrink_guard_other_faults),
    };
    return cmocka_run_group_tests(tests, setup_dir, NULL);
}
