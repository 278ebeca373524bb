/*
 * Source compatibility with libE3: runs consumer_libe3 (a program written
 * the libE3 way, including only <latrec/latrec.h>) in a fresh process and
 * reads the rings it wrote back, field by field.
 */
#include <stdarg.h>
#include <setjmp.h>
#include <stddef.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "test_writer_util.h"

#ifndef CONSUMER_LIBE3_PATH
#error "CONSUMER_LIBE3_PATH must name the consumer_libe3 executable"
#endif

struct want {
    uint64_t seq;
    unsigned stage;
    uint64_t aux, aux2;
};

static void test_libe3_style_program_writes_the_expected_rings(void **state)
{
    (void)state;
    char dir[512];
    tw_tmpdir(dir, sizeof(dir), "libe3");
    fflush(NULL);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        execl(CONSUMER_LIBE3_PATH, "consumer_libe3", dir, (char *)NULL);
        _exit(127);
    }
    int st;
    assert_int_equal(waitpid(pid, &st, 0), pid);
    assert_true(WIFEXITED(st));
    assert_int_equal(WEXITSTATUS(st), 0);
    assert_int_equal(tw_count_files(dir, NULL), 3);

    /* the main thread's ring, flushed at exit */
    char path[700];
    snprintf(path, sizeof(path), "%s/oai.%d.latrec", dir, (int)pid);
    struct tw_ring r;
    assert_int_equal(tw_read_ring(path, &r), 0);
    assert_int_equal(r.h.version, 3);
    assert_int_equal(r.h.pid, (uint32_t)pid);
    assert_int_equal(r.h.tid, (uint32_t)pid);
    assert_int_equal(r.h.entries, 1u << 18);
    assert_string_equal(r.h.catalog, "e3");
    assert_int_equal(r.h.rec_count, 15);
    assert_int_equal(r.h.flags & TW_F_CLEAN_CLOSE, TW_F_CLEAN_CLOSE);
    struct want w[15];
    int n = 0;
    for (uint64_t k = 0; k < 4; k++) {
        const uint64_t s = 1 + 2 * k, q = s + 1;
        w[n++] = (struct want){s, 0x10, k, 0};          /* RECORD_BEGIN */
        w[n++] = (struct want){q, 0x20, s, 142};        /* EMIT_ENTER: aux = producer seq */
        w[n++] = (struct want){q, 0x24, 1000 + q, 0};   /* SEND_DONE: aux = message id */
    }
    w[n++] = (struct want){9, 0x2F, 0, 8};  /* DROP, filtered */
    w[n++] = (struct want){10, 0x71, 0, 3}; /* SKIPPED, coalesced */
    w[n++] = (struct want){11, 0x43, 0, 1}; /* ADMITTED, shed (age) */
    assert_int_equal(tw_valid_count(&r), 15);
    for (int i = 0; i < 15; i++) {
        assert_int_equal(r.slots[i].seq, w[i].seq);
        assert_int_equal(r.slots[i].stage, w[i].stage);
        assert_int_equal(r.slots[i].aux, w[i].aux);
        assert_int_equal(r.slots[i].aux2, w[i].aux2);
        if (i) assert_true(r.slots[i].t_ns >= r.slots[i - 1].t_ns);
    }
    assert_true(r.slots[0].t_ns >= r.h.t0_mono);
    tw_free_ring(&r);

    /* the explicit ring: heartbeat then close */
    snprintf(path, sizeof(path), "%s/libe3.pub.latrec", dir);
    assert_int_equal(tw_read_ring(path, &r), 0);
    assert_int_equal(r.h.entries, 4096);
    assert_int_equal(r.h.rec_count, 2);
    assert_string_equal(r.h.name, "libe3.pub");
    assert_int_equal(r.slots[0].stage, 0x29);
    assert_int_equal(r.slots[1].stage, 0x2A);
    assert_int_equal(r.slots[1].aux, 7);
    tw_free_ring(&r);

    /* latrec_open(): the output directory set by latrec_set_output_dir */
    snprintf(path, sizeof(path), "%s/oai.explicit.latrec", dir);
    assert_int_equal(tw_read_ring(path, &r), 0);
    assert_int_equal(r.h.entries, 1024);
    assert_int_equal(r.h.rec_count, 1);
    assert_int_equal(r.slots[0].stage, 0x72);
    assert_int_equal(r.slots[0].seq, 5);
    tw_free_ring(&r);
    tw_rm_rf(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_libe3_style_program_writes_the_expected_rings),
    };
    return cmocka_run_group_tests_name("writer_compat", tests, NULL, NULL);
}
