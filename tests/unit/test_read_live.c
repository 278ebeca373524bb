/*
 * The ring reader (latrec_ring_next) on rings still written by the writer
 * library: a writer thread stamps while the reader opens and reads the ring
 * over and over, and no record it returns carries a payload of another
 * stamp (every field is a function of t_ns); a writer that laps the reader
 * on purpose, between two reads of one pass, gets exactly the slots it
 * rewrote ahead of the reader counted as lapped, and nothing else; a
 * header's rec_count past the records the open found is not followed.
 */
#include <stdarg.h>
#include <setjmp.h>
#include <stddef.h>
#include <cmocka.h>

#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>

#include <latrec/latrec.h>

#include "read/ring.h"
#include "test_writer_util.h"

#define RUN_NS UINT64_C(500000000) /* the concurrent part: about 0.5 s */

/* Every payload field is a function of the timestamp. */
static uint64_t aux_of(uint64_t t) { return (t * UINT64_C(0x9E3779B97F4A7C15)) ^ (t >> 29); }
static uint64_t seq_of(uint64_t t) { return (t >> 3) & TW_SEQ_MASK; }
static uint8_t stage_of(uint64_t t) { return (uint8_t)(t ^ (t >> 8)); }

static void stamp(latrec_t *ring, uint64_t t)
{
    const uint64_t aux = aux_of(t);
    latrec_stamp_at(ring, seq_of(t), stage_of(t), aux, ~aux, t);
}

static int consistent(const latrec_rec *rec)
{
    return rec->aux == aux_of(rec->t_ns) && rec->aux2 == ~aux_of(rec->t_ns) &&
           latrec_rec_seq(rec->sc) == seq_of(rec->t_ns) && latrec_rec_stage(rec->sc) == stage_of(rec->t_ns);
}

struct shared {
    latrec_t ring;
    int stop, started;
    uint64_t stamps;
};

static void *writer_main(void *p)
{
    struct shared *s = p;
    uint64_t n = 0;
    __atomic_store_n(&s->started, 1, __ATOMIC_RELEASE);
    while (!__atomic_load_n(&s->stop, __ATOMIC_ACQUIRE)) {
        for (int k = 0; k < 256; k++) stamp(&s->ring, latrec_tnow());
        n += 256;
    }
    s->stamps = n;
    return NULL;
}

static void test_live_reader_counts_no_torn_record(void **state)
{
    (void)state;
    char dir[512], path[600];
    tw_tmpdir(dir, sizeof(dir), "live");
    static struct shared s;
    memset(&s, 0, sizeof(s));
    assert_int_equal(latrec_open_in(&s.ring, dir, "live", 10), 1);
    snprintf(path, sizeof(path), "%s/live.latrec", dir);
    for (int i = 0; i < 1024; i++) stamp(&s.ring, latrec_tnow()); /* full before the first open */

    pthread_t w;
    assert_int_equal(pthread_create(&w, NULL, writer_main, &s), 0);
    while (!__atomic_load_n(&s.started, __ATOMIC_ACQUIRE)) sched_yield();
    uint64_t passes = 0, records = 0, lapped = 0, bad = 0, first_bad_t = 0;
    const uint64_t end = tw_mono_ns() + RUN_NS;
    while (tw_mono_ns() < end) {
        latrec_ring r;
        if (latrec_ring_open(&r, path) == 0) {
            latrec_cursor c;
            latrec_rec rec;
            latrec_ring_cursor_init(&c);
            while (latrec_ring_next(&r, &c, &rec)) {
                records++;
                if (!consistent(&rec) && bad++ == 0) first_bad_t = rec.t_ns;
            }
            lapped += c.lapped;
            passes++;
        }
        latrec_ring_close(&r);
    }
    __atomic_store_n(&s.stop, 1, __ATOMIC_RELEASE);
    pthread_join(w, NULL);
    latrec_close(&s.ring);
    print_message("%llu passes while %llu stamps: %llu records read, %llu lapped, %llu torn\n",
                  (unsigned long long)passes, (unsigned long long)s.stamps, (unsigned long long)records,
                  (unsigned long long)lapped, (unsigned long long)bad);
    if (bad) print_error("first torn record: t_ns %llu\n", (unsigned long long)first_bad_t);
    assert_true(passes > 0);
    assert_true(records > 0);
    assert_int_equal(bad, 0);
    tw_rm_rf(dir);
}

/* A 16-slot ring filled with 16 stamps, opened; the reader takes `k`
 * records, the writer then stamps `m` more, the reader finishes the pass.
 * The writer's m stamps land in the m oldest slots, write-order positions
 * 0..m-1 (m - 16 of them twice when m > 16): those at k and after were
 * rewritten ahead of the reader. */
static void lap(uint64_t k, uint64_t m, uint64_t want_lapped)
{
    char dir[512], path[600];
    tw_tmpdir(dir, sizeof(dir), "lap");
    latrec_t w;
    assert_int_equal(latrec_open_in(&w, dir, "lap", 4), 1);
    snprintf(path, sizeof(path), "%s/lap.latrec", dir);
    const uint64_t base = latrec_tnow();
    for (uint64_t i = 0; i < 16; i++) stamp(&w, base + 1000 * i);

    latrec_ring r;
    assert_int_equal(latrec_ring_open(&r, path), 0);
    assert_int_equal(r.valid, 16);
    latrec_cursor c;
    latrec_rec rec;
    latrec_ring_cursor_init(&c);
    uint64_t got = 0;
    for (; got < k; got++) {
        assert_int_equal(latrec_ring_next(&r, &c, &rec), 1);
        assert_int_equal(rec.t_ns, base + 1000 * got);
    }
    for (uint64_t i = 0; i < m; i++) stamp(&w, base + 1000 * (16 + i));
    uint64_t before = c.pos;
    while (latrec_ring_next(&r, &c, &rec)) {
        assert_true(consistent(&rec));
        /* what is read is the record of its write-order position */
        assert_int_equal(rec.t_ns, base + 1000 * (c.pos - 1));
        got++;
    }
    print_message("read %llu, wrote %llu: %llu lapped, %llu read after (from position %llu)\n",
                  (unsigned long long)k, (unsigned long long)m, (unsigned long long)c.lapped,
                  (unsigned long long)(got - k), (unsigned long long)before);
    assert_int_equal(c.lapped, want_lapped);
    assert_int_equal(got + c.lapped, 16);
    latrec_ring_close(&r);
    latrec_close(&w);
    tw_rm_rf(dir);
}

static void test_lap_ahead_of_reader(void **state)
{
    (void)state;
    lap(5, 9, 4); /* positions 5..8 rewritten before they were read */
}

static void test_lap_whole_ring(void **state)
{
    (void)state;
    lap(5, 20, 11); /* every position from 5 on rewritten */
}

static void test_no_lap_behind_reader(void **state)
{
    (void)state;
    lap(9, 9, 0); /* the writer rewrote only what was already read */
    lap(16, 0, 0);
}

/* A ring of 3 records whose header says 18 (more than a ring, which it
 * never wrapped: a count no writer stored). The open keeps the 3 (and
 * says so); a poll follows the open, not the count: the 15 empty slots
 * were taken for the writer's, the ring for wrapped and a record for
 * lapped (and a ring of 2^32 entries was looked at slot by slot, for
 * minutes, deaf to SIGTERM). */
static void test_poll_rec_count_beyond_the_records(void **state)
{
    (void)state;
    char dir[512], path[600];
    tw_tmpdir(dir, sizeof(dir), "overcount");
    latrec_t w;
    assert_int_equal(latrec_open_in(&w, dir, "over", 4), 1);
    snprintf(path, sizeof(path), "%s/over.latrec", dir);
    const uint64_t base = latrec_tnow();
    for (uint64_t i = 0; i < 3; i++) stamp(&w, base + 1000 * i);
    latrec_close(&w);
    FILE *f = fopen(path, "r+b");
    assert_non_null(f);
    const uint64_t lie = 16 + 2;
    assert_int_equal(fseek(f, 16, SEEK_SET), 0); /* rec_count */
    assert_int_equal(fwrite(&lie, sizeof(lie), 1, f), 1);
    assert_int_equal(fclose(f), 0);

    latrec_ring r;
    assert_int_equal(latrec_ring_open(&r, path), 0);
    assert_int_equal(r.valid, 3);
    assert_int_equal(r.written, 3);
    assert_string_equal(r.warning, "rec_count 18 but the ring holds 3 records and never wrapped");
    latrec_cursor c;
    latrec_rec rec;
    latrec_ring_cursor_init(&c);
    for (uint64_t i = 0; i < 3; i++) {
        assert_int_equal(latrec_ring_next(&r, &c, &rec), 1);
        assert_int_equal(rec.t_ns, base + 1000 * i);
    }
    assert_int_equal(latrec_ring_next(&r, &c, &rec), 0);
    assert_int_equal(latrec_ring_poll(&r, &c), 0);
    assert_int_equal(r.written, 3);
    assert_int_equal(r.wrapped, 0);
    assert_int_equal(c.lapped, 0);
    assert_int_equal(latrec_ring_next(&r, &c, &rec), 0);
    latrec_ring_close(&r);
    tw_rm_rf(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_live_reader_counts_no_torn_record),
        cmocka_unit_test(test_lap_ahead_of_reader),
        cmocka_unit_test(test_lap_whole_ring),
        cmocka_unit_test(test_no_lap_behind_reader),
        cmocka_unit_test(test_poll_rec_count_beyond_the_records),
    };
    return cmocka_run_group_tests_name("read_live", tests, NULL, NULL);
}
