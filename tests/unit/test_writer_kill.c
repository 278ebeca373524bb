/*
 * A writer killed with SIGKILL (no heartbeat, no close, no exit flush): every
 * record it stamped is valid in the file, and the header plus the ring hold
 * enough to compute the exact number it wrote with the documented formula
 * N = smallest n >= rec_count with (n - 1) mod entries == newest slot.
 */
#include <stdarg.h>
#include <setjmp.h>
#include <stddef.h>
#include <cmocka.h>

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <latrec/latrec.h>

#include "test_writer_util.h"

static uint64_t aux_of(uint64_t i) { return i * UINT64_C(0x100000001B3) ^ UINT64_C(0xCBF29CE484222325); }

static int read_full(int fd, void *buf, size_t len)
{
    size_t got = 0;
    while (got < len) {
        ssize_t n = read(fd, (char *)buf + got, len - got);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return -1;
        got += (size_t)n;
    }
    return 0;
}

enum { KIND_EXPLICIT, KIND_TLS };

/* Fork a writer that stamps `count` records (seq = index) into a ring of
 * 2^log2 entries in dir, reports the count it wrote through a pipe, and
 * waits to be killed. Returns the count the child reported. */
static uint64_t stamp_then_kill(const char *dir, int kind, unsigned log2, uint64_t count)
{
    int p[2];
    assert_int_equal(pipe(p), 0);
    fflush(NULL);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        close(p[0]);
        latrec_t ring;
        if (kind == KIND_EXPLICIT) {
            if (latrec_open_in(&ring, dir, "killed", log2) != 1) _exit(70);
        } else {
            char v[16];
            snprintf(v, sizeof(v), "%u", log2);
            setenv("LATREC_ENTRIES_LOG2_KILLED", v, 1);
            latrec_set_output_dir(dir);
            if (!latrec_tls_open_as("killed")) _exit(71);
        }
        uint64_t written = 0;
        for (uint64_t i = 0; i < count; i++) {
            if (kind == KIND_EXPLICIT) latrec_stamp(&ring, i, (uint8_t)i, aux_of(i), ~i);
            else latrec_tstamp(i, (uint8_t)i, aux_of(i), ~i);
            written++;
        }
        if (write(p[1], &written, sizeof(written)) != (ssize_t)sizeof(written)) _exit(72);
        for (;;) pause();
    }
    close(p[1]);
    uint64_t reported = 0;
    assert_int_equal(read_full(p[0], &reported, sizeof(reported)), 0);
    close(p[0]);
    assert_int_equal(kill(pid, SIGKILL), 0);
    int st;
    assert_int_equal(waitpid(pid, &st, 0), pid);
    assert_true(WIFSIGNALED(st));
    assert_int_equal(WTERMSIG(st), SIGKILL);
    return reported;
}

/* The ring in dir: N from the formula equals want, and the ring holds the
 * newest min(want, entries) records with their exact fields. With mid_write,
 * the writer may have died inside the stamp of record `want`: its slot (the
 * oldest record's) may then read as invalid, and only that one. */
static void assert_killed_ring_(const char *dir, uint64_t want, uint64_t entries, int mid_write)
{
    char path[700];
    assert_int_equal(tw_find_file(dir, "killed", ".latrec", path, sizeof(path)), 0);
    struct tw_ring r;
    assert_int_equal(tw_read_ring(path, &r), 0);
    assert_int_equal(r.h.entries, entries);
    assert_int_equal(r.h.flags & TW_F_CLEAN_CLOSE, 0);
    /* never ahead, at most half a capacity behind */
    assert_true(r.h.rec_count <= want);
    assert_true(want - r.h.rec_count <= (entries > 1 ? entries / 2 : 1));
    const uint64_t kept = want < entries ? want : entries;
    const uint64_t valid = tw_valid_count(&r);
    const int torn_slot = mid_write && want >= entries && valid == kept - 1;
    if (!torn_slot) assert_int_equal(valid, kept);
    const long newest = tw_newest_slot(&r);
    assert_true(newest >= 0);
    assert_int_equal(tw_count_formula(r.h.rec_count, entries, (uint64_t)newest), want);
    for (uint64_t i = want - kept; i < want; i++) {
        const struct tw_rec *rec = &r.slots[i & (entries - 1)];
        if (torn_slot && i == want - entries) {
            assert_int_equal(rec->t_ns, 0); /* the slot being overwritten */
            continue;
        }
        assert_true(rec->t_ns != 0);
        assert_int_equal(rec->seq, i & TW_SEQ_MASK);
        assert_int_equal(rec->stage, (unsigned)(i & 0xFF));
        assert_int_equal(rec->aux, aux_of(i));
        assert_int_equal(rec->aux2, ~i);
    }
    tw_free_ring(&r);
}

static void assert_killed_ring(const char *dir, uint64_t want, uint64_t entries)
{
    assert_killed_ring_(dir, want, entries, 0);
}

static void test_killed_writer_leaves_every_stamped_record_valid(void **state)
{
    (void)state;
    char dir[512];
    tw_tmpdir(dir, sizeof(dir), "kill-plain");
    const uint64_t k = stamp_then_kill(dir, KIND_EXPLICIT, 12, 1000);
    assert_int_equal(k, 1000);
    char path[700];
    assert_int_equal(tw_find_file(dir, "killed", ".latrec", path, sizeof(path)), 0);
    struct tw_ring r;
    assert_int_equal(tw_read_ring(path, &r), 0);
    assert_int_equal(r.h.rec_count, 0); /* never flushed: count unknown */
    tw_free_ring(&r);
    assert_killed_ring(dir, k, 4096);
    tw_rm_rf(dir);
}

static void test_killed_tls_writer_leaves_every_stamped_record_valid(void **state)
{
    (void)state;
    char dir[512];
    tw_tmpdir(dir, sizeof(dir), "kill-tls");
    const uint64_t k = stamp_then_kill(dir, KIND_TLS, 12, 777);
    assert_int_equal(k, 777);
    assert_killed_ring(dir, k, 4096);
    tw_rm_rf(dir);
}

static void test_killed_wrapped_writer_count_is_recoverable_from_header(void **state)
{
    (void)state;
    /* 1007: mid-capacity; 1008/1024: exactly at a boundary; 1009: just past;
     * 5003 with a larger ring. */
    static const struct { unsigned log2; uint64_t n; } cases[] = {
        {4, 1000 + 7}, {4, 1008}, {4, 1024}, {4, 1009}, {4, 17}, {6, 5003}, {12, 4096 * 3 + 1},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char dir[512];
        tw_tmpdir(dir, sizeof(dir), "kill-wrap");
        const uint64_t k = stamp_then_kill(dir, KIND_EXPLICIT, cases[i].log2, cases[i].n);
        assert_int_equal(k, cases[i].n);
        assert_killed_ring(dir, k, UINT64_C(1) << cases[i].log2);
        tw_rm_rf(dir);
    }
}

/* Killed at an arbitrary instant while stamping flat out: whatever the
 * instant (including inside a stamp, between a record's t_ns and the
 * rec_count refresh after it), the valid records are consistent and the
 * formula gives one past the newest record's seq (seq == write index here).
 * Tiny rings put a refresh after every stamp or two, so many kills land in
 * that window. */
static void kill_mid_stream(unsigned log2, int rounds)
{
    const uint64_t entries = UINT64_C(1) << log2;
    volatile uint64_t *progress = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
                                       MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    assert_true(progress != MAP_FAILED);
    uint64_t x = 88172645463325252ull;
    for (int round = 0; round < rounds; round++) {
        char dir[512];
        tw_tmpdir(dir, sizeof(dir), "kill-live");
        *progress = 0;
        fflush(NULL);
        pid_t pid = fork();
        assert_true(pid >= 0);
        if (pid == 0) {
            latrec_t ring;
            if (latrec_open_in(&ring, dir, "killed", log2) != 1) _exit(70);
            for (uint64_t i = 0;; i++) {
                latrec_stamp(&ring, i, (uint8_t)i, aux_of(i), ~i);
                *progress = i + 1;
            }
        }
        while (*progress < 1000) sched_yield();
        x ^= x << 13; x ^= x >> 7; x ^= x << 17;
        for (volatile uint64_t spin = x % 200000; spin; spin--) {}
        assert_int_equal(kill(pid, SIGKILL), 0);
        int st;
        assert_int_equal(waitpid(pid, &st, 0), pid);
        const uint64_t seen = *progress;

        char path[700];
        assert_int_equal(tw_find_file(dir, "killed", ".latrec", path, sizeof(path)), 0);
        struct tw_ring r;
        assert_int_equal(tw_read_ring(path, &r), 0);
        const long newest = tw_newest_slot(&r);
        assert_true(newest >= 0);
        const uint64_t n = tw_count_formula(r.h.rec_count, entries, (uint64_t)newest);
        /* the shared counter lags the ring by at most the record in flight */
        if (!(n == seen || n == seen + 1))
            fail_msg("2^%u ring, round %d: formula gives %llu (rec_count %llu, newest slot %ld), "
                     "writer had finished %llu", log2, round, (unsigned long long)n,
                     (unsigned long long)r.h.rec_count, newest, (unsigned long long)seen);
        assert_int_equal(r.slots[newest].seq, (n - 1) & TW_SEQ_MASK);
        tw_free_ring(&r);
        assert_killed_ring_(dir, n, entries, 1);
        tw_rm_rf(dir);
    }
    munmap((void *)progress, 4096);
}

static void test_writer_killed_mid_stream_leaves_a_consistent_ring(void **state)
{
    (void)state;
    kill_mid_stream(1, 200);
    kill_mid_stream(2, 100);
    kill_mid_stream(5, 60);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_killed_writer_leaves_every_stamped_record_valid),
        cmocka_unit_test(test_killed_tls_writer_leaves_every_stamped_record_valid),
        cmocka_unit_test(test_killed_wrapped_writer_count_is_recoverable_from_header),
        cmocka_unit_test(test_writer_killed_mid_stream_leaves_a_consistent_ring),
    };
    return cmocka_run_group_tests_name("writer_kill", tests, NULL, NULL);
}
