/*
 * A reader reading a live ring while its writer stamps never sees a record
 * whose payload does not belong to its timestamp. The writer derives every
 * field from the timestamp it stores (latrec_tnow() then latrec_stamp_at());
 * the reader maps the FILE read-only, acquire-loads t_ns, reads the payload,
 * and re-reads t_ns after an acquire fence: a record is judged only when
 * t_ns did not change (the slot may be reused by a later write meanwhile, the
 * ring wraps every 16 stamps). Runs about 2 s on each of two ring sizes.
 */
#include <stdarg.h>
#include <setjmp.h>
#include <stddef.h>
#include <cmocka.h>

#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <latrec/latrec.h>

#include "test_writer_util.h"

#if !defined(__BYTE_ORDER__) || __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "the live reader below loads little-endian words natively"
#endif

#define RUN_NS UINT64_C(1000000000) /* per ring size; two sizes: ~2 s total */

/* Every payload field is a function of the timestamp. */
static uint64_t aux_of(uint64_t t) { return (t * UINT64_C(0x9E3779B97F4A7C15)) ^ (t >> 29); }
static uint64_t seq_of(uint64_t t) { return (t >> 3) & TW_SEQ_MASK; }
static uint8_t  stage_of(uint64_t t) { return (uint8_t)(t ^ (t >> 8)); }

struct shared {
    latrec_t  ring;
    volatile int stop;
    volatile int started;
    uint64_t  stamps;
    uint64_t  checks, changed, empty, mismatches;
    uint64_t  first_bad_t, first_bad_aux;
    const char *path;
    uint64_t  entries;
};

static void *writer_main(void *p)
{
    struct shared *s = p;
    uint64_t n = 0;
    __atomic_store_n(&s->started, 1, __ATOMIC_RELEASE);
    while (!__atomic_load_n(&s->stop, __ATOMIC_ACQUIRE)) {
        for (int k = 0; k < 256; k++) {
            const uint64_t t = latrec_tnow();
            const uint64_t aux = aux_of(t);
            latrec_stamp_at(&s->ring, seq_of(t), stage_of(t), aux, ~aux, t);
        }
        n += 256;
    }
    s->stamps = n;
    return NULL;
}

static void *reader_main(void *p)
{
    struct shared *s = p;
    int fd = open(s->path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return NULL;
    const size_t len = TW_HDR_LEN + s->entries * TW_REC_LEN;
    const uint8_t *map = mmap(NULL, len, PROT_READ, MAP_SHARED, fd, 0);
    close(fd);
    if (map == MAP_FAILED) return NULL;
    while (!__atomic_load_n(&s->started, __ATOMIC_ACQUIRE)) sched_yield();
    const uint64_t end = tw_mono_ns() + RUN_NS;
    while (tw_mono_ns() < end) {
        for (uint64_t slot = 0; slot < s->entries; slot++) {
            const uint64_t *w = (const uint64_t *)(map + TW_HDR_LEN + slot * TW_REC_LEN);
            const uint64_t t1 = __atomic_load_n(&w[1], __ATOMIC_ACQUIRE);
            if (t1 == 0) {
                s->empty++;
                continue;
            }
            const uint64_t sc = __atomic_load_n(&w[0], __ATOMIC_RELAXED);
            const uint64_t aux = __atomic_load_n(&w[2], __ATOMIC_RELAXED);
            const uint64_t aux2 = __atomic_load_n(&w[3], __ATOMIC_RELAXED);
            __atomic_thread_fence(__ATOMIC_ACQUIRE);
            const uint64_t t2 = __atomic_load_n(&w[1], __ATOMIC_RELAXED);
            if (t2 != t1) {
                s->changed++;
                continue;
            }
            s->checks++;
            const int ok = aux == aux_of(t1) && aux2 == ~aux_of(t1) &&
                           (sc & TW_SEQ_MASK) == seq_of(t1) && (unsigned)(sc >> 56) == stage_of(t1);
            if (!ok) {
                if (!s->mismatches) {
                    s->first_bad_t = t1;
                    s->first_bad_aux = aux;
                }
                s->mismatches++;
            }
        }
    }
    __atomic_store_n(&s->stop, 1, __ATOMIC_RELEASE);
    munmap((void *)map, len);
    return NULL;
}

static void run(unsigned log2, const char *tag)
{
    char dir[512], path[600];
    tw_tmpdir(dir, sizeof(dir), tag);
    static struct shared s;
    memset(&s, 0, sizeof(s));
    assert_int_equal(latrec_open_in(&s.ring, dir, "live", log2), 1);
    snprintf(path, sizeof(path), "%s/live.latrec", dir);
    s.path = path;
    s.entries = UINT64_C(1) << log2;

    pthread_t w, r;
    assert_int_equal(pthread_create(&r, NULL, reader_main, &s), 0);
    assert_int_equal(pthread_create(&w, NULL, writer_main, &s), 0);
    pthread_join(r, NULL);
    __atomic_store_n(&s.stop, 1, __ATOMIC_RELEASE);
    pthread_join(w, NULL);
    latrec_close(&s.ring);

    print_message("ring 2^%u: %llu stamps (%llu wraps), %llu records checked, %llu changed under the "
                  "reader, %llu mismatches\n",
                  log2, (unsigned long long)s.stamps, (unsigned long long)(s.stamps >> log2),
                  (unsigned long long)s.checks, (unsigned long long)s.changed,
                  (unsigned long long)s.mismatches);
    if (s.mismatches)
        print_error("first mismatch: t_ns %llu carried aux %llx (want %llx)\n",
                    (unsigned long long)s.first_bad_t, (unsigned long long)s.first_bad_aux,
                    (unsigned long long)aux_of(s.first_bad_t));
    assert_true(s.checks > 0);
    assert_true(s.stamps > s.entries * 100); /* it wrapped a lot */
    assert_int_equal(s.mismatches, 0);

    /* After close, the file holds the last `entries` stamps, all consistent. */
    struct tw_ring ring;
    assert_int_equal(tw_read_ring(path, &ring), 0);
    assert_int_equal(ring.h.rec_count, s.stamps);
    assert_int_equal(tw_valid_count(&ring), s.entries);
    for (uint64_t i = 0; i < ring.nslots; i++) {
        const struct tw_rec *rec = &ring.slots[i];
        assert_int_equal(rec->aux, aux_of(rec->t_ns));
        assert_int_equal(rec->aux2, ~aux_of(rec->t_ns));
        assert_int_equal(rec->seq, seq_of(rec->t_ns));
        assert_int_equal(rec->stage, stage_of(rec->t_ns));
    }
    tw_free_ring(&ring);
    tw_rm_rf(dir);
}

static void test_live_reader_never_sees_payload_of_another_timestamp_small_ring(void **state)
{
    (void)state;
    run(4, "live16");
}

static void test_live_reader_never_sees_payload_of_another_timestamp_two_slot_ring(void **state)
{
    (void)state;
    run(1, "live2");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_live_reader_never_sees_payload_of_another_timestamp_small_ring),
        cmocka_unit_test(test_live_reader_never_sees_payload_of_another_timestamp_two_slot_ring),
    };
    return cmocka_run_group_tests_name("writer_concurrent", tests, NULL, NULL);
}
