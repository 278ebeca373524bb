/*
 * test_read_ring_header.c - one ring's header: what is rejected and why
 * (size, magic, version, entries, truncation, rec_size, name, file kind,
 * clock), and the fields each version gives, on synthetic rings written
 * byte by byte with ringgen.h.
 */
#define RING_TEST_DIR LATREC_TEST_TMP "/read_ring_header"
#include "read_ring_util.h"

#include <errno.h>
#include <unistd.h>

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

/* ---- the stamps' clock ------------------------------------------------- */

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
        cmocka_unit_test(test_clock_id),
    };
    return cmocka_run_group_tests(tests, setup_dir, NULL);
}
