# Statistics unit tests (src/analyze/{stats,loghist,outliers}.c). The three
# sources are compiled straight into each test, so these tests do not depend
# on the rest of latrec_analyze.
set(LATREC_STATS_SOURCES
  ${CMAKE_SOURCE_DIR}/src/analyze/stats.c
  ${CMAKE_SOURCE_DIR}/src/analyze/loghist.c
  ${CMAKE_SOURCE_DIR}/src/analyze/outliers.c)
foreach(t loghist accum exact outliers bench)
  latrec_unit_test(test_stats_${t}
    SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_stats_${t}.c ${LATREC_STATS_SOURCES}
    LIBS m)
  target_include_directories(test_stats_${t} PRIVATE ${CMAKE_SOURCE_DIR}/src)
endforeach()
set_tests_properties(test_stats_bench PROPERTIES LABELS "unit;bench")
