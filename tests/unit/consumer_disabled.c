/*
 * A consumer compiled WITHOUT LATREC_ENABLE: <latrec/latrec.h> turns every
 * call into an inline no-op, and the program builds and links with no
 * liblatrec (its CMake target adds only the include directory). Every API
 * function is called - explicit rings included - with LATREC_OUTPUT_DIR and
 * latrec_set_output_dir pointing at the test's directory, which must stay
 * empty; no liblatrec is loaded in the process.
 */
#include <latrec/latrec.h>

#ifdef LATREC_ENABLE
#error "this translation unit must be compiled without LATREC_ENABLE"
#endif

#include <stdarg.h>
#include <setjmp.h>
#include <stddef.h>
#include <cmocka.h>

#include <link.h>
#include <stdlib.h>
#include <string.h>

#include "test_writer_util.h"

static int find_liblatrec(struct dl_phdr_info *info, size_t size, void *found)
{
    (void)size;
    if (info->dlpi_name && strstr(info->dlpi_name, "liblatrec")) *(int *)found = 1;
    return 0;
}

static void test_disabled_api_writes_nothing_and_needs_no_library(void **state)
{
    (void)state;
    char dir[512];
    tw_tmpdir(dir, sizeof(dir), "disabled");
    setenv("LATREC_OUTPUT_DIR", dir, 1);
    setenv("LATREC_ENTRIES_LOG2", "12", 1);

    latrec_set_output_dir(dir);
    latrec_set_catalog("e3");

    latrec_t r;
    memset(&r, 0, sizeof(r));
    assert_int_equal(latrec_open_in(&r, dir, "disabled", 4), 0);
    assert_int_equal(r.enabled, 0);
    latrec_stamp(&r, 1, LATREC_RECORD_BEGIN, 2, 3);
    latrec_stamp_at(&r, 1, LATREC_ENQUEUE, 2, 3, 0);
    latrec_stamp_at(&r, 1, LATREC_ENQUEUE, 2, 3, 12345);
    latrec_refresh_cpu(&r);
    latrec_heartbeat(&r);
    latrec_close(&r);

    latrec_t r2;
    memset(&r2, 0, sizeof(r2));
    assert_int_equal(latrec_open(&r2, "disabled2", 4), 0);
    assert_int_equal(r2.enabled, 0);
    latrec_stamp(&r2, 1, LATREC_SEND_DONE, 2, 3);
    latrec_close(&r2);

    assert_null(latrec_tls_open_as("disabled"));
    assert_null(latrec_tls_open());
    assert_int_equal(latrec_seq_next(), 0);
    latrec_tstamp(1, LATREC_EMIT_ENTER, 2, 3);
    latrec_tstamp_at(1, LATREC_EMIT_ENTER, 2, 3, 4);
    assert_int_equal(latrec_tnow(), 0);
    latrec_ctx_set(77);
    assert_int_equal(latrec_ctx(), 0);
    /* the clock helpers stay usable */
    assert_true(latrec_now_ns() > 0);
    assert_true(latrec_real_ns() > 0);

    assert_int_equal(tw_count_files(dir, NULL), 0);
    int found = 0;
    dl_iterate_phdr(find_liblatrec, &found);
    assert_int_equal(found, 0);
    unsetenv("LATREC_OUTPUT_DIR");
    unsetenv("LATREC_ENTRIES_LOG2");
    tw_rm_rf(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_disabled_api_writes_nothing_and_needs_no_library),
    };
    return cmocka_run_group_tests_name("writer_consumer_disabled", tests, NULL, NULL);
}
