/*
 * Explicit rings (latrec_open_in / latrec_stamp / latrec_stamp_at /
 * latrec_heartbeat / latrec_close): every assertion reads the ring FILE back
 * through the independent raw reader of test_writer_util.c.
 */
#include <stdarg.h>
#include <setjmp.h>
#include <stddef.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/rseq.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <latrec/latrec.h>

#include "test_writer_util.h"

#define U64_MAX UINT64_C(0xFFFFFFFFFFFFFFFF)
#define SEQ_48  (UINT64_C(1) << 48)

static void ring_path(char *out, size_t len, const char *dir, const char *name)
{
    snprintf(out, len, "%s/%s.latrec", dir, name);
}

static int parse_boot_id(uint8_t out[16])
{
    char text[128];
    if (tw_slurp("/proc/sys/kernel/random/boot_id", text, sizeof(text)) < 32) return -1;
    int n = 0;
    for (const char *p = text; *p && *p != '\n'; p++) {
        if (*p == '-') continue;
        unsigned v;
        if (*p >= '0' && *p <= '9') v = (unsigned)(*p - '0');
        else if (*p >= 'a' && *p <= 'f') v = (unsigned)(*p - 'a' + 10);
        else return -1;
        if (n >= 32) return -1;
        if (n % 2 == 0) out[n / 2] = (uint8_t)(v << 4);
        else out[n / 2] |= (uint8_t)v;
        n++;
    }
    return n == 32 ? 0 : -1;
}

static int all_zero(const uint8_t *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (p[i]) return 0;
    return 1;
}

/* A NUL-padded field holds exactly s and zeros after it. */
static void assert_padded(const uint8_t *field, size_t len, const char *s)
{
    size_t n = strlen(s);
    assert_true(n < len);
    assert_memory_equal(field, s, n);
    assert_true(all_zero(field + n, len - n));
}

static uint32_t expected_cpu_flag(void)
{
    return __rseq_size > 0 ? TW_F_RSEQ_CPU : 0;
}

static void test_fresh_ring_header_has_documented_fields(void **state)
{
    (void)state;
    char dir[512], path[600];
    tw_tmpdir(dir, sizeof(dir), "hdr");
    latrec_t r;
    const uint64_t real0 = tw_real_ns(), mono0 = tw_mono_ns();
    assert_int_equal(latrec_open_in(&r, dir, "hdr.test", 12), 1);
    const uint64_t mono1 = tw_mono_ns(), real1 = tw_real_ns();
    ring_path(path, sizeof(path), dir, "hdr.test");

    struct tw_ring ring;
    assert_int_equal(tw_read_ring(path, &ring), 0);
    const struct tw_hdr *h = &ring.h;
    assert_memory_equal(h->raw, TW_MAGIC_BYTES, 4);
    assert_int_equal(h->magic, 0x31524C41u);
    assert_int_equal(h->version, 3);
    assert_int_equal(h->entries, 4096);
    assert_int_equal(ring.file_size, TW_HDR_LEN + 4096u * TW_REC_LEN);
    assert_int_equal(h->rec_count, 0);
    assert_int_equal(h->rec_size, 32);
    assert_true(h->clock_ns_per_call > 0);
    assert_true(h->clock_ns_per_call < 100000);
    assert_true(h->t0_mono >= mono0 && h->t0_mono <= mono1);
    assert_true(h->t0_real >= real0 && h->t0_real <= real1);
    assert_padded(h->raw + 40, 64, "hdr.test");
    assert_int_equal(h->pid, (uint32_t)getpid());
    assert_int_equal(h->tid, (uint32_t)gettid());
    assert_int_equal(h->flags, expected_cpu_flag());
    assert_int_equal(h->clock_id, 1);

    uint8_t boot[16];
    assert_int_equal(parse_boot_id(boot), 0);
    assert_memory_equal(h->boot_id, boot, 16);

    char host[256] = {0};
    assert_int_equal(gethostname(host, sizeof(host) - 1), 0);
    assert_padded(h->raw + 160, 64, host);
    assert_padded(h->raw + 224, 32, "e3");
    assert_true(all_zero(h->raw + 256, TW_HDR_LEN - 256));
    assert_int_equal(tw_valid_count(&ring), 0);
    tw_free_ring(&ring);

    /* The file appeared under its final name only: no .part is left. */
    assert_int_equal(tw_count_files(dir, NULL), 1);

    const uint64_t mono2 = tw_mono_ns(), real2 = tw_real_ns();
    latrec_close(&r);
    const uint64_t mono3 = tw_mono_ns(), real3 = tw_real_ns();
    struct tw_hdr c;
    assert_int_equal(tw_read_hdr(path, &c), 0);
    assert_int_equal(c.flags, expected_cpu_flag() | TW_F_CLEAN_CLOSE);
    assert_true(c.t1_mono >= mono2 && c.t1_mono <= mono3);
    assert_true(c.t1_real >= real2 && c.t1_real <= real3);
    assert_int_equal(c.t0_mono, h->t0_mono);
    assert_int_equal(c.rec_count, 0);
    tw_rm_rf(dir);
}

static void test_catalog_name_follows_latrec_set_catalog(void **state)
{
    (void)state;
    char dir[512], path[600];
    tw_tmpdir(dir, sizeof(dir), "catalog");
    latrec_t r;
    struct tw_hdr h;

    latrec_set_catalog("kernel.sched");
    assert_int_equal(latrec_open_in(&r, dir, "cat1", 4), 1);
    latrec_close(&r);
    ring_path(path, sizeof(path), dir, "cat1");
    assert_int_equal(tw_read_hdr(path, &h), 0);
    assert_padded(h.raw + 224, 32, "kernel.sched");

    /* 31 bytes fit exactly; the field stays NUL-terminated. */
    latrec_set_catalog("0123456789012345678901234567890");
    assert_int_equal(latrec_open_in(&r, dir, "cat2", 4), 1);
    latrec_close(&r);
    ring_path(path, sizeof(path), dir, "cat2");
    assert_int_equal(tw_read_hdr(path, &h), 0);
    assert_padded(h.raw + 224, 32, "0123456789012345678901234567890");

    latrec_set_catalog(NULL);
    assert_int_equal(latrec_open_in(&r, dir, "cat3", 4), 1);
    latrec_close(&r);
    ring_path(path, sizeof(path), dir, "cat3");
    assert_int_equal(tw_read_hdr(path, &h), 0);
    assert_padded(h.raw + 224, 32, "e3");

    latrec_set_catalog("x");
    latrec_set_catalog("");
    assert_int_equal(latrec_open_in(&r, dir, "cat4", 4), 1);
    latrec_close(&r);
    ring_path(path, sizeof(path), dir, "cat4");
    assert_int_equal(tw_read_hdr(path, &h), 0);
    assert_padded(h.raw + 224, 32, "e3");
    tw_rm_rf(dir);
}

struct rt_case {
    uint64_t seq;
    uint8_t  stage;
    uint64_t aux, aux2;
    uint64_t want_seq;
};

static void test_records_round_trip_with_exact_fields_and_limits(void **state)
{
    (void)state;
    static const struct rt_case limits[] = {
        {0, 0x00, 0, 0, 0},
        {1, 0xFF, U64_MAX, U64_MAX, 1},
        {SEQ_48 - 1, 0x10, 0, U64_MAX, SEQ_48 - 1},
        {SEQ_48, 0x20, U64_MAX, 0, 0},
        {U64_MAX, 0x7F, UINT64_C(0x0123456789ABCDEF), UINT64_C(0xFEDCBA9876543210), SEQ_48 - 1},
        {SEQ_48 + 5, 0x80, 1, 2, 5},
        {UINT64_C(0xABCD000000000042), 0x01, UINT64_C(0x8000000000000000), 1, 0x42},
    };
    enum { NLIM = sizeof(limits) / sizeof(limits[0]), NRAND = 1000, N = NLIM + NRAND };
    static struct rt_case all[N];
    static uint64_t before[N], after[N];
    static int cpu_before[N], cpu_after[N];
    uint64_t x = UINT64_C(0x9E3779B97F4A7C15);
    for (int i = 0; i < N; i++) {
        if (i < NLIM) {
            all[i] = limits[i];
            continue;
        }
        /* xorshift64: varied bit patterns in every field */
        x ^= x << 13; x ^= x >> 7; x ^= x << 17;
        all[i].seq = x;
        all[i].want_seq = x & TW_SEQ_MASK;
        all[i].stage = (uint8_t)(x >> 29);
        all[i].aux = x * 3;
        all[i].aux2 = ~x;
    }

    char dir[512], path[600];
    tw_tmpdir(dir, sizeof(dir), "roundtrip");
    cpu_set_t old;
    tw_pin_here(&old);
    latrec_t r;
    assert_int_equal(latrec_open_in(&r, dir, "rt", 12), 1);
    for (int i = 0; i < N; i++) {
        cpu_before[i] = sched_getcpu();
        before[i] = tw_mono_ns();
        latrec_stamp(&r, all[i].seq, all[i].stage, all[i].aux, all[i].aux2);
        after[i] = tw_mono_ns();
        cpu_after[i] = sched_getcpu();
    }
    ring_path(path, sizeof(path), dir, "rt");
    latrec_close(&r);
    tw_unpin(&old);

    struct tw_ring ring;
    assert_int_equal(tw_read_ring(path, &ring), 0);
    assert_int_equal(ring.h.rec_count, N);
    assert_int_equal(tw_valid_count(&ring), N);
    for (int i = 0; i < N; i++) {
        const struct tw_rec *rec = &ring.slots[i];
        assert_int_equal(rec->seq, all[i].want_seq);
        assert_int_equal(rec->stage, all[i].stage);
        assert_int_equal(rec->aux, all[i].aux);
        assert_int_equal(rec->aux2, all[i].aux2);
        assert_int_equal(cpu_before[i], cpu_after[i]);
        assert_int_equal(rec->cpu, (unsigned)cpu_before[i] & 0xFF);
        assert_true(rec->t_ns >= before[i] && rec->t_ns <= after[i]);
        /* the sc word is exactly the documented packing */
        assert_int_equal(rec->sc, all[i].want_seq | (uint64_t)rec->cpu << 48 |
                                      (uint64_t)all[i].stage << 56);
    }
    for (uint64_t i = N; i < ring.nslots; i++) {
        assert_int_equal(ring.slots[i].sc, 0);
        assert_int_equal(ring.slots[i].t_ns, 0);
        assert_int_equal(ring.slots[i].aux, 0);
        assert_int_equal(ring.slots[i].aux2, 0);
    }
    tw_free_ring(&ring);
    tw_rm_rf(dir);
}

/* The cpu field tracks the CPU of each stamp, not the CPU of the open. */
static void test_cpu_field_follows_the_thread_across_cpus(void **state)
{
    (void)state;
    cpu_set_t old;
    assert_int_equal(sched_getaffinity(0, sizeof(old), &old), 0);
    int cpus[CPU_SETSIZE], ncpu = 0;
    for (int c = 0; c < CPU_SETSIZE && ncpu < 256; c++)
        if (CPU_ISSET(c, &old)) cpus[ncpu++] = c;
    assert_true(ncpu >= 1);

    char dir[512], path[600];
    tw_tmpdir(dir, sizeof(dir), "cpus");
    latrec_t r;
    assert_int_equal(latrec_open_in(&r, dir, "cpus", 12), 1);
    enum { PER_CPU = 8 };
    for (int k = 0; k < ncpu; k++) {
        cpu_set_t one;
        CPU_ZERO(&one);
        CPU_SET(cpus[k], &one);
        assert_int_equal(sched_setaffinity(0, sizeof(one), &one), 0);
        sched_yield();
        assert_int_equal(sched_getcpu(), cpus[k]);
        for (int j = 0; j < PER_CPU; j++) latrec_stamp(&r, (uint64_t)k, 0x30, (uint64_t)cpus[k], 0);
    }
    tw_unpin(&old);
    ring_path(path, sizeof(path), dir, "cpus");
    latrec_close(&r);

    struct tw_ring ring;
    assert_int_equal(tw_read_ring(path, &ring), 0);
    assert_int_equal(tw_valid_count(&ring), (uint64_t)ncpu * PER_CPU);
    for (int k = 0; k < ncpu; k++)
        for (int j = 0; j < PER_CPU; j++) {
            const struct tw_rec *rec = &ring.slots[k * PER_CPU + j];
            assert_int_equal(rec->seq, (uint64_t)k);
            assert_int_equal(rec->cpu, (unsigned)cpus[k] & 0xFF);
        }
    tw_free_ring(&ring);
    tw_rm_rf(dir);
}

static void test_wrapped_ring_keeps_newest_entries_and_recoverable_count(void **state)
{
    (void)state;
    char dir[512], path[600];
    tw_tmpdir(dir, sizeof(dir), "wrap");
    latrec_t r;
    assert_int_equal(latrec_open_in(&r, dir, "wrap", 4), 1);
    ring_path(path, sizeof(path), dir, "wrap");
    struct tw_hdr h;
    for (uint64_t i = 0; i < 100; i++) {
        latrec_stamp(&r, i, (uint8_t)i, i * 7, ~i);
        /* The capacity-boundary rule: a stamp whose write index is a
         * multiple of entries / 2 first stores that index as rec_count. */
        assert_int_equal(tw_read_hdr(path, &h), 0);
        assert_int_equal(h.rec_count, (i / 8) * 8);
    }

    /* Before close (no heartbeat): rec_count is one boundary behind, and the
     * documented formula recovers the exact count. */
    struct tw_ring ring;
    assert_int_equal(tw_read_ring(path, &ring), 0);
    assert_int_equal(ring.h.entries, 16);
    assert_int_equal(ring.h.rec_count, 96);
    assert_int_equal(ring.h.flags & TW_F_CLEAN_CLOSE, 0);
    assert_int_equal(tw_valid_count(&ring), 16);
    const long newest = tw_newest_slot(&ring);
    assert_int_equal(newest, 99 & 15);
    assert_int_equal(tw_count_formula(ring.h.rec_count, ring.h.entries, (uint64_t)newest), 100);
    tw_free_ring(&ring);

    latrec_close(&r);
    assert_int_equal(tw_read_ring(path, &ring), 0);
    assert_int_equal(ring.h.rec_count, 100);
    assert_int_equal(ring.h.flags & TW_F_CLEAN_CLOSE, TW_F_CLEAN_CLOSE);
    assert_int_equal(tw_valid_count(&ring), 16);
    for (uint64_t i = 84; i < 100; i++) {
        const struct tw_rec *rec = &ring.slots[i & 15];
        assert_int_equal(rec->seq, i);
        assert_int_equal(rec->stage, (unsigned)(i & 0xFF));
        assert_int_equal(rec->aux, i * 7);
        assert_int_equal(rec->aux2, ~i);
    }
    /* Slot order descends exactly once, after the newest record. */
    int descents = 0;
    for (int s = 0; s < 15; s++) descents += ring.slots[s + 1].t_ns < ring.slots[s].t_ns;
    assert_int_equal(descents, 1);
    assert_true(ring.slots[4].t_ns < ring.slots[3].t_ns);
    tw_free_ring(&ring);
    tw_rm_rf(dir);
}

static void test_formula_is_exact_for_every_count_of_a_live_ring(void **state)
{
    (void)state;
    char dir[512], path[600];
    tw_tmpdir(dir, sizeof(dir), "formula");
    latrec_t r;
    assert_int_equal(latrec_open_in(&r, dir, "formula", 3), 1);
    ring_path(path, sizeof(path), dir, "formula");
    for (uint64_t n = 1; n <= 70; n++) {
        latrec_stamp(&r, n, 0x21, n, 0);
        struct tw_ring ring;
        assert_int_equal(tw_read_ring(path, &ring), 0);
        const long newest = tw_newest_slot(&ring);
        assert_int_equal(newest, (long)((n - 1) & 7));
        assert_int_equal(tw_count_formula(ring.h.rec_count, 8, (uint64_t)newest), n);
        assert_int_equal(ring.h.rec_count, ((n - 1) / 4) * 4);
        assert_int_equal(tw_valid_count(&ring), n < 8 ? n : 8);
        tw_free_ring(&ring);
    }
    latrec_close(&r);
    tw_rm_rf(dir);
}

static void test_stamp_at_zero_stores_now_and_explicit_t_exactly(void **state)
{
    (void)state;
    char dir[512], path[600];
    tw_tmpdir(dir, sizeof(dir), "stampat");
    latrec_t r;
    assert_int_equal(latrec_open_in(&r, dir, "at", 6), 1);
    const uint64_t b0 = tw_mono_ns();
    latrec_stamp_at(&r, 1, 0x21, 10, 20, 0);
    const uint64_t a0 = tw_mono_ns();
    latrec_stamp_at(&r, 2, 0x22, 11, 21, 12345);
    latrec_stamp_at(&r, 3, 0x23, 12, 22, 1);
    latrec_stamp_at(&r, 4, 0x24, 13, 23, U64_MAX);
    const uint64_t earlier = tw_mono_ns() - 5000;
    latrec_stamp_at(&r, 5, 0x25, 14, 24, earlier);
    ring_path(path, sizeof(path), dir, "at");
    latrec_close(&r);

    struct tw_ring ring;
    assert_int_equal(tw_read_ring(path, &ring), 0);
    assert_int_equal(tw_valid_count(&ring), 5);
    assert_true(ring.slots[0].t_ns >= b0 && ring.slots[0].t_ns <= a0);
    assert_int_equal(ring.slots[1].t_ns, 12345);
    assert_int_equal(ring.slots[2].t_ns, 1);
    assert_int_equal(ring.slots[3].t_ns, U64_MAX);
    assert_int_equal(ring.slots[4].t_ns, earlier);
    for (int i = 0; i < 5; i++) {
        assert_int_equal(ring.slots[i].seq, (uint64_t)i + 1);
        assert_int_equal(ring.slots[i].stage, 0x21u + (unsigned)i);
        assert_int_equal(ring.slots[i].aux, 10u + (unsigned)i);
        assert_int_equal(ring.slots[i].aux2, 20u + (unsigned)i);
    }
    tw_free_ring(&ring);
    tw_rm_rf(dir);
}

static void test_heartbeat_refreshes_exact_count_and_t1_pair(void **state)
{
    (void)state;
    char dir[512], path[600];
    tw_tmpdir(dir, sizeof(dir), "heartbeat");
    latrec_t r;
    assert_int_equal(latrec_open_in(&r, dir, "hb", 5), 1);
    ring_path(path, sizeof(path), dir, "hb");
    for (int i = 0; i < 45; i++) latrec_stamp(&r, (uint64_t)i, 0x10, 0, 0);
    struct tw_hdr h;
    assert_int_equal(tw_read_hdr(path, &h), 0);
    assert_int_equal(h.rec_count, 32);
    const uint64_t m0 = tw_mono_ns(), w0 = tw_real_ns();
    latrec_heartbeat(&r);
    const uint64_t m1 = tw_mono_ns(), w1 = tw_real_ns();
    assert_int_equal(tw_read_hdr(path, &h), 0);
    assert_int_equal(h.rec_count, 45);
    assert_true(h.t1_mono >= m0 && h.t1_mono <= m1);
    assert_true(h.t1_real >= w0 && h.t1_real <= w1);
    assert_int_equal(h.flags & TW_F_CLEAN_CLOSE, 0);
    latrec_close(&r);
    tw_rm_rf(dir);
}

static void test_stamps_after_close_are_noops(void **state)
{
    (void)state;
    char dir[512], path[600];
    tw_tmpdir(dir, sizeof(dir), "closed");
    latrec_t r;
    assert_int_equal(latrec_open_in(&r, dir, "closed", 4), 1);
    latrec_stamp(&r, 1, 0x10, 1, 1);
    latrec_close(&r);
    latrec_stamp(&r, 2, 0x11, 2, 2);
    latrec_stamp_at(&r, 3, 0x12, 3, 3, 99);
    latrec_heartbeat(&r);
    latrec_close(&r);
    ring_path(path, sizeof(path), dir, "closed");
    struct tw_ring ring;
    assert_int_equal(tw_read_ring(path, &ring), 0);
    assert_int_equal(ring.h.rec_count, 1);
    assert_int_equal(tw_valid_count(&ring), 1);
    assert_int_equal(ring.slots[0].seq, 1);
    tw_free_ring(&ring);
    tw_rm_rf(dir);
}

static void test_missing_directories_are_created(void **state)
{
    (void)state;
    char dir[512], sub[700], path[800];
    tw_tmpdir(dir, sizeof(dir), "mkdirs");
    snprintf(sub, sizeof(sub), "%s/a/b/c", dir);
    latrec_t r;
    assert_int_equal(latrec_open_in(&r, sub, "deep", 4), 1);
    latrec_stamp(&r, 7, 0x10, 0, 0);
    latrec_close(&r);
    ring_path(path, sizeof(path), sub, "deep");
    struct tw_ring ring;
    assert_int_equal(tw_read_ring(path, &ring), 0);
    assert_int_equal(ring.slots[0].seq, 7);
    tw_free_ring(&ring);
    tw_rm_rf(dir);
}

static void test_same_name_twice_gives_dash_1_and_keeps_first_records(void **state)
{
    (void)state;
    char dir[512], p0[600], p1[600];
    tw_tmpdir(dir, sizeof(dir), "collide");
    latrec_t a, b;
    assert_int_equal(latrec_open_in(&a, dir, "dup", 4), 1);
    for (uint64_t i = 0; i < 5; i++) latrec_stamp(&a, 100 + i, 0x10, 1000 + i, 0);
    assert_int_equal(latrec_open_in(&b, dir, "dup", 4), 1);
    for (uint64_t i = 0; i < 3; i++) latrec_stamp(&b, 200 + i, 0x20, 2000 + i, 0);
    for (uint64_t i = 5; i < 7; i++) latrec_stamp(&a, 100 + i, 0x10, 1000 + i, 0);
    latrec_close(&a);
    latrec_close(&b);
    ring_path(p0, sizeof(p0), dir, "dup");
    ring_path(p1, sizeof(p1), dir, "dup-1");
    assert_int_equal(tw_count_files(dir, NULL), 2);

    struct tw_ring ra, rb;
    assert_int_equal(tw_read_ring(p0, &ra), 0);
    assert_int_equal(tw_read_ring(p1, &rb), 0);
    assert_int_equal(ra.h.rec_count, 7);
    assert_int_equal(tw_valid_count(&ra), 7);
    for (uint64_t i = 0; i < 7; i++) {
        assert_int_equal(ra.slots[i].seq, 100 + i);
        assert_int_equal(ra.slots[i].aux, 1000 + i);
        assert_int_equal(ra.slots[i].stage, 0x10);
    }
    assert_int_equal(rb.h.rec_count, 3);
    assert_int_equal(tw_valid_count(&rb), 3);
    for (uint64_t i = 0; i < 3; i++) {
        assert_int_equal(rb.slots[i].seq, 200 + i);
        assert_int_equal(rb.slots[i].aux, 2000 + i);
    }
    /* The header name is the requested name; the file name carries the -1. */
    assert_string_equal(ra.h.name, "dup");
    assert_string_equal(rb.h.name, "dup");
    tw_free_ring(&ra);
    tw_free_ring(&rb);
    tw_rm_rf(dir);
}

static void write_file(const char *path, const char *text)
{
    int fd = open(path, O_CREAT | O_TRUNC | O_WRONLY | O_CLOEXEC, 0644);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
    close(fd);
}

static void assert_file_text(const char *path, const char *text)
{
    char buf[256];
    assert_int_equal(tw_slurp(path, buf, sizeof(buf)), (long)strlen(text));
    assert_string_equal(buf, text);
}

static void test_existing_ring_file_is_never_truncated(void **state)
{
    (void)state;
    char dir[512], p0[600], p1[600];
    tw_tmpdir(dir, sizeof(dir), "keep");
    ring_path(p0, sizeof(p0), dir, "old");
    write_file(p0, "someone else's ring\n");
    latrec_t r;
    assert_int_equal(latrec_open_in(&r, dir, "old", 4), 1);
    latrec_stamp(&r, 1, 0x10, 0, 0);
    latrec_close(&r);
    assert_file_text(p0, "someone else's ring\n");
    ring_path(p1, sizeof(p1), dir, "old-1");
    struct tw_hdr h;
    assert_int_equal(tw_read_hdr(p1, &h), 0);
    assert_int_equal(h.rec_count, 1);
    tw_rm_rf(dir);
}

static void test_symlink_at_part_name_is_never_followed(void **state)
{
    (void)state;
    char dir[512], target[600], link_path[600], dangling[600], final_path[600];
    tw_tmpdir(dir, sizeof(dir), "symlink-part");
    snprintf(target, sizeof(target), "%s/target.txt", dir);
    write_file(target, "precious\n");
    snprintf(link_path, sizeof(link_path), "%s/victim.latrec.part", dir);
    assert_int_equal(symlink(target, link_path), 0);

    latrec_t r;
    assert_int_equal(latrec_open_in(&r, dir, "victim", 4), 1);
    latrec_stamp(&r, 42, 0x10, 0, 0);
    latrec_close(&r);
    assert_file_text(target, "precious\n");
    struct stat st;
    assert_int_equal(lstat(link_path, &st), 0);
    assert_true(S_ISLNK(st.st_mode));
    /* The ring itself is a regular file holding the record. */
    ring_path(final_path, sizeof(final_path), dir, "victim");
    assert_int_equal(lstat(final_path, &st), 0);
    assert_true(S_ISREG(st.st_mode));
    struct tw_ring ring;
    assert_int_equal(tw_read_ring(final_path, &ring), 0);
    assert_int_equal(ring.slots[0].seq, 42);
    tw_free_ring(&ring);

    /* A dangling symlink: its target must not be created. */
    snprintf(dangling, sizeof(dangling), "%s/ghost.latrec.part", dir);
    char ghost_target[600];
    snprintf(ghost_target, sizeof(ghost_target), "%s/ghost-target", dir);
    assert_int_equal(symlink(ghost_target, dangling), 0);
    assert_int_equal(latrec_open_in(&r, dir, "ghost", 4), 1);
    latrec_close(&r);
    assert_int_equal(lstat(ghost_target, &st), -1);
    assert_int_equal(errno, ENOENT);
    tw_rm_rf(dir);
}

static void test_symlink_at_final_name_is_never_followed(void **state)
{
    (void)state;
    char dir[512], target[600], link_path[600], p1[600];
    tw_tmpdir(dir, sizeof(dir), "symlink-final");
    snprintf(target, sizeof(target), "%s/target.txt", dir);
    write_file(target, "precious\n");
    ring_path(link_path, sizeof(link_path), dir, "victim");
    assert_int_equal(symlink(target, link_path), 0);

    latrec_t r;
    assert_int_equal(latrec_open_in(&r, dir, "victim", 4), 1);
    latrec_stamp(&r, 43, 0x10, 0, 0);
    latrec_close(&r);
    assert_file_text(target, "precious\n");
    struct stat st;
    assert_int_equal(lstat(link_path, &st), 0);
    assert_true(S_ISLNK(st.st_mode));
    char buf[600];
    ssize_t n = readlink(link_path, buf, sizeof(buf) - 1);
    assert_true(n > 0);
    buf[n] = '\0';
    assert_string_equal(buf, target);
    ring_path(p1, sizeof(p1), dir, "victim-1");
    struct tw_ring ring;
    assert_int_equal(tw_read_ring(p1, &ring), 0);
    assert_int_equal(ring.slots[0].seq, 43);
    tw_free_ring(&ring);
    tw_rm_rf(dir);
}

struct failed_open_arg {
    const char *dir;
    const char *name;
    unsigned log2;
};

/* Child: a failed open returns -1, leaves the ring closed, and later calls
 * are harmless. Exit code 0 when all of that holds. */
static int failed_open_child(void *p)
{
    const struct failed_open_arg *a = p;
    latrec_t r;
    memset(&r, 0xA5, sizeof(r));
    if (latrec_open_in(&r, a->dir, a->name, a->log2) != -1) return 10;
    if (r.enabled) return 11;
    for (int i = 0; i < 1000; i++) latrec_stamp(&r, (uint64_t)i, 0x10, 1, 2);
    latrec_stamp_at(&r, 1, 0x11, 1, 2, 3);
    latrec_heartbeat(&r);
    latrec_close(&r);
    return 0;
}

static void test_open_in_a_regular_file_fails_with_one_stderr_line(void **state)
{
    (void)state;
    char dir[512], notdir[600];
    tw_tmpdir(dir, sizeof(dir), "failopen");
    snprintf(notdir, sizeof(notdir), "%s/plainfile", dir);
    write_file(notdir, "not a directory\n");

    struct failed_open_arg a = {notdir, "x", 4};
    char err[4096];
    int st = tw_run_child(failed_open_child, &a, err, sizeof(err));
    assert_true(WIFEXITED(st));
    assert_int_equal(WEXITSTATUS(st), 0);
    assert_int_equal(tw_count_lines(err), 1);
    assert_non_null(strstr(err, notdir));
    assert_non_null(strstr(err, "latrec"));
    assert_file_text(notdir, "not a directory\n");
    assert_int_equal(tw_count_files(dir, NULL), 1);

    /* A path below the regular file fails the same way. */
    char below[700];
    snprintf(below, sizeof(below), "%s/sub", notdir);
    a.dir = below;
    st = tw_run_child(failed_open_child, &a, err, sizeof(err));
    assert_true(WIFEXITED(st));
    assert_int_equal(WEXITSTATUS(st), 0);
    assert_int_equal(tw_count_lines(err), 1);
    assert_non_null(strstr(err, notdir));
    tw_rm_rf(dir);
}

static void test_bad_name_or_size_fails_with_one_stderr_line(void **state)
{
    (void)state;
    char dir[512];
    tw_tmpdir(dir, sizeof(dir), "badargs");
    static const char long_name[] =
        "0123456789012345678901234567890123456789012345678901234567890123"; /* 64 */
    const struct failed_open_arg cases[] = {
        {dir, "a/b", 4}, {dir, "", 4}, {dir, long_name, 4}, {dir, "ok", 0}, {dir, "ok", 31},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char err[4096];
        struct failed_open_arg a = cases[i];
        int st = tw_run_child(failed_open_child, &a, err, sizeof(err));
        assert_true(WIFEXITED(st));
        assert_int_equal(WEXITSTATUS(st), 0);
        assert_int_equal(tw_count_lines(err), 1);
    }
    assert_int_equal(tw_count_files(dir, NULL), 0);
    tw_rm_rf(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fresh_ring_header_has_documented_fields),
        cmocka_unit_test(test_catalog_name_follows_latrec_set_catalog),
        cmocka_unit_test(test_records_round_trip_with_exact_fields_and_limits),
        cmocka_unit_test(test_cpu_field_follows_the_thread_across_cpus),
        cmocka_unit_test(test_wrapped_ring_keeps_newest_entries_and_recoverable_count),
        cmocka_unit_test(test_formula_is_exact_for_every_count_of_a_live_ring),
        cmocka_unit_test(test_stamp_at_zero_stores_now_and_explicit_t_exactly),
        cmocka_unit_test(test_heartbeat_refreshes_exact_count_and_t1_pair),
        cmocka_unit_test(test_stamps_after_close_are_noops),
        cmocka_unit_test(test_missing_directories_are_created),
        cmocka_unit_test(test_same_name_twice_gives_dash_1_and_keeps_first_records),
        cmocka_unit_test(test_existing_ring_file_is_never_truncated),
        cmocka_unit_test(test_symlink_at_part_name_is_never_followed),
        cmocka_unit_test(test_symlink_at_final_name_is_never_followed),
        cmocka_unit_test(test_open_in_a_regular_file_fails_with_one_stderr_line),
        cmocka_unit_test(test_bad_name_or_size_fails_with_one_stderr_line),
    };
    return cmocka_run_group_tests_name("writer_ring", tests, NULL, NULL);
}
