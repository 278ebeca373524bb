/*
 * read_ring_util.h - what the one-ring reader tests share: a ring built
 * with ringgen.h written under the test's own directory and opened, the
 * rejection check, the seqs in write order, and a 16-entry ring of evenly
 * spaced stamps. The includer defines RING_TEST_DIR (one per test binary:
 * ctest runs them side by side).
 */
#ifndef LATREC_TESTS_READ_RING_UTIL_H
#define LATREC_TESTS_READ_RING_UTIL_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "read/ring.h"
#include "ringgen.h"

#ifndef RING_TEST_DIR
#error "define RING_TEST_DIR before including read_ring_util.h"
#endif
#define MS 1000000ull
#define US 1000ull

static char tmp_path[512];

static inline const char *tmp(const char *name)
{
    snprintf(tmp_path, sizeof tmp_path, RING_TEST_DIR "/%s", name);
    return tmp_path;
}

static inline int setup_dir(void **state)
{
    (void)state;
    mkdir(LATREC_TEST_TMP, 0755);
    mkdir(RING_TEST_DIR, 0755);
    return 0;
}

/* Write g (first len bytes) to RING_TEST_DIR/name and open it into *r. */
static inline int open_len(latrec_ring *r, const ringgen *g, const char *name, size_t len)
{
    const char *p = tmp(name);
    assert_int_equal(ringgen_write_len(g, p, len), 0);
    return latrec_ring_open(r, p);
}

static inline int open_gen(latrec_ring *r, const ringgen *g, const char *name)
{
    return open_len(r, g, name, g->len);
}

/* Expect the ring built by g to be rejected with exactly `reason`. */
static inline void expect_reject_len(const ringgen *g, size_t len, const char *reason)
{
    latrec_ring r;
    assert_int_equal(open_len(&r, g, "reject.latrec", len), -1);
    assert_int_equal(r.status, LATREC_RING_REJECTED);
    assert_string_equal(r.error, reason);
    assert_null(r.recs);
    assert_string_equal(r.basename, "reject.latrec");
    latrec_ring_close(&r);
}

static inline void expect_reject(const ringgen *g, const char *reason)
{
    expect_reject_len(g, g->len, reason);
}

/* Collect the seqs of r in write order. Returns how many. */
static inline size_t seqs(const latrec_ring *r, uint64_t *out, size_t max)
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

/* A 16-entry ring after `n` stamps at t = base + i * step (i = 0..n-1),
 * seq = i + 1, rec_count rc. */
static inline void make_ring(ringgen *g, uint64_t n, uint64_t base, uint64_t step,
                             uint64_t rc)
{
    assert_int_equal(ringgen_init(g, 2, 16, "w.1"), 0);
    for (uint64_t i = 0; i < n; i++)
        ringgen_stamp(g, i + 1, 0, 0x21, base + i * step, i, 0);
    ringgen_set_u64(g, RINGGEN_OFF_REC_COUNT, rc);
}

/* The ring's seqs in write order are first_seq .. first_seq + n - 1. */
static inline void expect_order(const latrec_ring *r, uint64_t first_seq, uint64_t n)
{
    uint64_t s[64];
    assert_int_equal(seqs(r, s, 64), n);
    for (uint64_t i = 0; i < n; i++)
        assert_int_equal(s[i], first_seq + i);
}

#endif
