/*
 * pass_rings.h - where the pass tests (test_pass_split.c,
 * test_pass_restart.c) write their ringgen runs: an oai and a
 * libe3.outbound ring per process (pid 5000 + p, tids 100 + 10 p + k), in a
 * directory of the test's own, said closed cleanly, and their removal. The
 * includer defines PROCS and includes cmocka.h and ringgen.h before it.
 */
#ifndef LATREC_TESTS_PASS_RINGS_H
#define LATREC_TESTS_PASS_RINGS_H

#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

static char dir[512];
static const char *kinds[2] = { "oai", "libe3.outbound" };

/* Process p's ring of kind k (0 oai, 1 libe3.outbound). */
static void ring_path(char *buf, size_t len, int p, int k)
{
    snprintf(buf, len, "%s/%s.%d.latrec", dir, kinds[k], 100 + 10 * p + k);
}

/* The test's directory, LATREC_TEST_TMP/WHAT.PID, made. */
static void rings_dir(const char *what)
{
    snprintf(dir, sizeof(dir), "%s/%s.%d", LATREC_TEST_TMP, what, (int)getpid());
    mkdir(LATREC_TEST_TMP, 0755);
    assert_int_equal(mkdir(dir, 0755), 0);
}

/* Process p's two rings of `entries` slots, empty. */
static void proc_rings_init(ringgen g[2], int p, uint64_t entries)
{
    for (int k = 0; k < 2; k++) {
        char name[64];
        snprintf(name, sizeof(name), "%s.%d", kinds[k], 100 + 10 * p + k);
        assert_int_equal(ringgen_init(&g[k], 3, entries, name), 0);
        ringgen_set_u32(&g[k], RINGGEN_OFF_PID, 5000 + (uint32_t)p);
        ringgen_set_u32(&g[k], RINGGEN_OFF_TID, 100 + 10 * (uint32_t)p + (uint32_t)k);
    }
}

/* Process p's two rings written, rec_count what they hold, closed cleanly
 * (LATREC_F_CLEAN_CLOSE), and freed. */
static void proc_rings_write(ringgen g[2], int p)
{
    for (int k = 0; k < 2; k++) {
        char path[600];
        ringgen_set_u64(&g[k], RINGGEN_OFF_REC_COUNT, g[k].next);
        ringgen_set_u32(&g[k], RINGGEN_OFF_FLAGS, 1);
        ring_path(path, sizeof(path), p, k);
        assert_int_equal(ringgen_write(&g[k], path), 0);
        ringgen_free(&g[k]);
    }
}

static void remove_rings(void)
{
    char path[600];
    for (int p = 0; p < PROCS; p++)
        for (int k = 0; k < 2; k++) {
            ring_path(path, sizeof(path), p, k);
            unlink(path);
        }
    rmdir(dir);
}

#endif
