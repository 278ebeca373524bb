# Scheduler model unit tests (src/analyze/sched_model.c, sched_query.c, sched_forget.c, sched_pass.c,
# sched_waits.c). The sources are
# compiled straight into each test, so these tests do not depend on the rest
# of latrec_analyze or on latrec_read (ring.h's iteration is inline; the
# ring window, read/ring_window.c, is compiled in too).
foreach(t model threads instead random pass bench)
  latrec_unit_test(test_sched_${t}
    SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_sched_${t}.c ${CMAKE_SOURCE_DIR}/src/analyze/sched_model.c
            ${CMAKE_SOURCE_DIR}/src/analyze/sched_query.c ${CMAKE_SOURCE_DIR}/src/analyze/sched_forget.c
            ${CMAKE_SOURCE_DIR}/src/analyze/sched_pass.c ${CMAKE_SOURCE_DIR}/src/analyze/sched_waits.c
            ${CMAKE_SOURCE_DIR}/src/read/ring_window.c)
  target_include_directories(test_sched_${t} PRIVATE ${CMAKE_SOURCE_DIR}/src ${CMAKE_SOURCE_DIR}/include)
endforeach()
set_tests_properties(test_sched_bench PROPERTIES LABELS "unit;bench")
