/*
 * liblatrec loaded with dlopen() by a program that does not link it (the way
 * ctypes and a Python extension load it): the library's initial-exec TLS
 * (latrec_tls) must work on the thread that loaded it, on a thread that
 * already existed before the load, and on threads started after it. Every
 * call goes through the exported out-of-line functions found with dlsym();
 * the rings are read back with the independent raw reader.
 *
 * LATREC_TEST_LIB is the path of the built liblatrec.so.
 */
#include <stdarg.h>
#include <setjmp.h>
#include <stddef.h>
#include <cmocka.h>

#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "test_writer_util.h"

#ifndef LATREC_TEST_LIB
#error "LATREC_TEST_LIB must name the built liblatrec.so"
#endif

#define STAGE_ENQUEUE 0x21u
#define STAGE_SEND_DONE 0x24u

/* The exported API, as an FFI caller sees it: opaque ring pointers. */
static struct {
    void (*set_output_dir)(const char *);
    void *(*tls_open_as)(const char *);
    void (*tstamp)(uint64_t, uint8_t, uint64_t, uint64_t);
    void (*tstamp_at)(uint64_t, uint8_t, uint64_t, uint64_t, uint64_t);
    uint64_t (*tnow)(void);
    void (*ctx_set)(uint64_t);
    uint64_t (*ctx)(void);
    uint64_t (*seq_next)(void);
    void *(*alloc)(void);
    void (*free_ring)(void *);
    int (*open_in)(void *, const char *, const char *, unsigned);
    void (*stamp)(void *, uint64_t, uint8_t, uint64_t, uint64_t);
} api;

static void *lib;
static char dir[512];

static void *sym(const char *name)
{
    void *p = dlsym(lib, name);
    if (!p) fail_msg("dlsym %s: %s", name, dlerror());
    return p;
}

/* Stamps n records with aux = base + i on the calling thread's ring. */
static pid_t stamp_on_this_thread(const char *role, uint64_t n, uint64_t base)
{
    if (!api.tls_open_as(role)) return -1;
    api.ctx_set(base);
    for (uint64_t i = 0; i < n; i++) {
        const uint64_t t = api.tnow();
        api.tstamp_at(api.seq_next(), STAGE_ENQUEUE, base + i, api.ctx(), t);
    }
    return gettid();
}

struct job {
    const char *role;
    uint64_t n, base;
    pid_t tid;
    pthread_barrier_t *loaded; /* NULL: start stamping at once */
};

static void *job_main(void *p)
{
    struct job *j = p;
    if (j->loaded) pthread_barrier_wait(j->loaded); /* wait for the dlopen */
    j->tid = stamp_on_this_thread(j->role, j->n, j->base);
    return NULL;
}

/* One per-thread ring: n records, seqs distinct and increasing, aux = base + i,
 * aux2 = base (the ctx), times increasing. */
static void check_tls_ring(const char *role, pid_t tid, uint64_t n, uint64_t base)
{
    char path[700];
    snprintf(path, sizeof(path), "%s/%s.%d.latrec", dir, role, (int)tid);
    struct tw_ring r;
    assert_int_equal(tw_read_ring(path, &r), 0);
    assert_int_equal(r.h.rec_count, n);
    assert_true(r.h.flags & TW_F_CLEAN_CLOSE);
    assert_int_equal(tw_valid_count(&r), n);
    for (uint64_t i = 0; i < n; i++) {
        assert_int_equal(r.slots[i].stage, STAGE_ENQUEUE);
        assert_int_equal(r.slots[i].aux, base + i);
        assert_int_equal(r.slots[i].aux2, base);
        if (i) {
            assert_true(r.slots[i].seq > r.slots[i - 1].seq);
            assert_true(r.slots[i].t_ns >= r.slots[i - 1].t_ns);
        }
    }
    tw_free_ring(&r);
}

static void test_dlopened_library_stamps_on_old_new_and_loading_threads(void **state)
{
    (void)state;
    tw_tmpdir(dir, sizeof(dir), "dlopen");
    assert_null(dlsym(RTLD_DEFAULT, "latrec_tls_open_as")); /* not linked in */

    /* A thread that exists before the library is loaded. */
    pthread_barrier_t loaded;
    pthread_barrier_init(&loaded, NULL, 2);
    struct job before = { "ffi_before", 40, 1000, 0, &loaded };
    pthread_t tb;
    assert_int_equal(pthread_create(&tb, NULL, job_main, &before), 0);

    lib = dlopen(LATREC_TEST_LIB, RTLD_NOW | RTLD_LOCAL);
    if (!lib) fail_msg("dlopen %s: %s", LATREC_TEST_LIB, dlerror());
    api.set_output_dir = sym("latrec_set_output_dir");
    api.tls_open_as = sym("latrec_tls_open_as");
    api.tstamp = sym("latrec_tstamp_fn");
    api.tstamp_at = sym("latrec_tstamp_at_fn");
    api.tnow = sym("latrec_tnow_fn");
    api.ctx_set = sym("latrec_ctx_set_fn");
    api.ctx = sym("latrec_ctx_fn");
    api.seq_next = sym("latrec_seq_next");
    api.alloc = sym("latrec_alloc");
    api.free_ring = sym("latrec_free");
    api.open_in = sym("latrec_open_in");
    api.stamp = sym("latrec_stamp_fn");
    api.set_output_dir(dir);
    pthread_barrier_wait(&loaded);

    /* The loading thread, then a thread started after the load. */
    const pid_t main_tid = stamp_on_this_thread("ffi_main", 30, 2000);
    assert_true(main_tid > 0);
    struct job after = { "ffi_after", 50, 3000, 0, NULL };
    pthread_t ta;
    assert_int_equal(pthread_create(&ta, NULL, job_main, &after), 0);
    pthread_join(ta, NULL);
    pthread_join(tb, NULL);
    pthread_barrier_destroy(&loaded);
    assert_true(before.tid > 0);
    assert_true(after.tid > 0);

    /* An explicit ring allocated by the library, for callers that cannot
     * size or align a latrec_t. */
    void *ring = api.alloc();
    assert_non_null(ring);
    assert_int_equal(api.open_in(ring, dir, "ffi_explicit", 4), 1);
    for (uint64_t i = 0; i < 5; i++) api.stamp(ring, i + 1, STAGE_SEND_DONE, i, 7);
    api.free_ring(ring);

    check_tls_ring("ffi_before", before.tid, 40, 1000); /* flushed at thread exit */
    check_tls_ring("ffi_after", after.tid, 50, 3000);

    char path[700];
    snprintf(path, sizeof(path), "%s/ffi_explicit.latrec", dir);
    struct tw_ring r;
    assert_int_equal(tw_read_ring(path, &r), 0);
    assert_int_equal(r.h.rec_count, 5);
    assert_int_equal(tw_valid_count(&r), 5);
    assert_int_equal(r.slots[4].stage, STAGE_SEND_DONE);
    assert_int_equal(r.slots[4].aux, 4);
    assert_int_equal(r.slots[4].aux2, 7);
    tw_free_ring(&r);
    /* The main thread's ring is flushed at exit; its records are already
     * in the mapping. */
    snprintf(path, sizeof(path), "%s/ffi_main.%d.latrec", dir, (int)main_tid);
    assert_int_equal(tw_read_ring(path, &r), 0);
    assert_int_equal(tw_valid_count(&r), 30);
    assert_int_equal(r.slots[29].aux, 2029);
    tw_free_ring(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_dlopened_library_stamps_on_old_new_and_loading_threads),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
