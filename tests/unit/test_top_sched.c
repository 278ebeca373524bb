/*
 * test_top_sched.c - top's queue of instances waiting for live scheduler
 * data (cli/top_model.c) and the live view it waits on (engine/sched_view.c)
 * when the view gives up before the run's end (its file unreadable, its
 * model out of memory): the waiting instances are counted unsplit, not
 * held as waiting for good, and the incomplete model is asked nothing
 * more. The view is set by hand as latrec_sched_view_follow leaves it; the
 * model is built from typed-in records.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "analyze/sched_catalog.h"
#include "cli/top_model.h"
#include "engine/sched_view.h"
#include "sched_stream.h"

/* tid 7 on CPU 0 from 1000 ns, preempted at 5000 ns; settled at 4000 ns. */
static latrec_sched_model *settled_model(void)
{
    latrec_sched_model *m = latrec_sched_model_new();
    assert_non_null(m);
    const latrec_rec in = R(1000, 0, LATREC_K_SWITCH_IN, 7, 1, 120);
    assert_int_equal(latrec_sched_feed(m, &in), 0);
    assert_int_equal(latrec_sched_settle(m, 4000), 0);
    return m;
}

static void test_view_gave_up_splits_nothing(void **state)
{
    (void)state;
    latrec_sched_view v;
    memset(&v, 0, sizeof(v));
    v.live = 1;
    v.attached = 1;
    v.model = settled_model();
    v.covered_ns = 4000;
    latrec_sched_acc acc;
    memset(&acc, 0, sizeof(acc));
    assert_false(latrec_sched_view_gave_up(&v));
    assert_int_equal(latrec_sched_view_add(&v, &acc, 7, 2000, 3000), 0);
    assert_int_equal(acc.n, 1);
    assert_int_equal(acc.on_cpu, 1000);
    /* follow failed: ended short of the run, the model kept for its figures */
    v.ended = 1;
    assert_true(latrec_sched_view_gave_up(&v));
    assert_int_equal(latrec_sched_view_add(&v, &acc, 7, 2000, 3000), -1);
    assert_int_equal(acc.n, 1);
    /* a clean end covers everything: not given up */
    v.covered_ns = UINT64_MAX;
    assert_false(latrec_sched_view_gave_up(&v));
    latrec_sched_model_free(v.model);
}

static void test_queue_unsplit_when_view_gave_up(void **state)
{
    (void)state;
    latrec_sched_view v;
    memset(&v, 0, sizeof(v));
    v.live = 1;
    v.covered_ns = 1000; /* no model yet: nothing splits, the queue drains in order */
    latrec_top t;
    memset(&t, 0, sizeof(t));
    t.sv = &v;
    t.rows = calloc(2, sizeof(*t.rows));
    assert_non_null(t.rows);
    t.n_rows = t.cap_rows = 2;
    t.wait = calloc(3, sizeof(*t.wait));
    assert_non_null(t.wait);
    t.wait_cap = 3;
    const latrec_top_wait w[3] = { { 0, 7, 100, 500 }, { 1, 7, 600, 1500 }, { 0, 8, 700, 2000 } };
    memcpy(t.wait, w, sizeof(w));
    t.wait_n = 3;
    t.rows[0].pending = 2;
    t.rows[1].pending = 1;

    latrec_top_sched_flush(&t, v.covered_ns);
    assert_int_equal(latrec_top_waiting(&t), 2);
    assert_int_equal(t.rows[0].pending, 1);
    assert_int_equal(t.unsplit, 0);

    v.ended = 1; /* the view gave up at 1000 ns */
    latrec_top_sched_flush(&t, v.covered_ns);
    assert_int_equal(latrec_top_waiting(&t), 0);
    assert_int_equal(t.rows[0].pending, 0);
    assert_int_equal(t.rows[1].pending, 0);
    assert_int_equal(t.unsplit, 2);
    latrec_top_free(&t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_view_gave_up_splits_nothing),
        cmocka_unit_test(test_queue_unsplit_when_view_gave_up),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
