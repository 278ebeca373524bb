# latrec report / hist tests.
#   test_report_figures  figures of a column: empty, regressions, percentiles,
#                        skewness, the outlier rule, names and option parsing
#   test_report_pass     one analysis pass over ringgen rings: hop values,
#                        calibration, regressions, warm-up, --hop, inter-arrival
#   cli_report, cli_report_options, cli_report_split, cli_hist, cli_legs, cli_threads,
#   cli_guess_convert_top
#                        tests/cli/{report,report_options,report_split,hist,legs,threads,
#                        guess_convert_top}.bats
#                        against the built latrec,
#   cli_catalogs         tests/cli/catalogs.bats: user catalogs, README's pipeline
#                        on rings that gen_synthetic writes from a text spec
#                        (known hop deltas) and on the libE3 fixtures
#   cli_catalogs_mixed   tests/cli/catalogs_mixed.bats: e3 and user catalogs' paths in one
#                        run (e3loop and README's pipeline recorded together), names
#                        two catalogs share
#   cli_tour             tests/cli/tour.bats: README's five-minute tour as written
latrec_unit_test(test_report_figures
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_report_figures.c
          ${CMAKE_SOURCE_DIR}/src/engine/figures.c
          ${CMAKE_SOURCE_DIR}/src/analyze/stats.c
          ${CMAKE_SOURCE_DIR}/src/analyze/loghist.c
          ${CMAKE_SOURCE_DIR}/src/analyze/outliers.c
          ${CMAKE_SOURCE_DIR}/src/util/number.c
  LIBS m)
target_include_directories(test_report_figures PRIVATE ${CMAKE_SOURCE_DIR}/src ${CMAKE_SOURCE_DIR}/include)

latrec_unit_test(test_report_pass
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_report_pass.c
  LIBS latrec_engine)
target_include_directories(test_report_pass PRIVATE ${CMAKE_SOURCE_DIR}/src ${CMAKE_SOURCE_DIR}/include)

# Writes synthetic rings from a text spec (see its header comment).
add_executable(gen_synthetic ${CMAKE_SOURCE_DIR}/tests/cli/gen_synthetic.c)
target_include_directories(gen_synthetic PRIVATE ${CMAKE_SOURCE_DIR}/include ${CMAKE_SOURCE_DIR}/tests/unit)

if(TARGET latrec_cli)
  find_program(LATREC_REPORT_BATS bats)
  if(LATREC_REPORT_BATS)
    foreach(area report report_options report_split hist legs threads guess_convert_top)
      add_test(NAME cli_${area} COMMAND ${LATREC_REPORT_BATS} ${CMAKE_SOURCE_DIR}/tests/cli/${area}.bats)
      set_tests_properties(cli_${area} PROPERTIES
        ENVIRONMENT "LATREC=$<TARGET_FILE:latrec_cli>;FIXTURES=${CMAKE_SOURCE_DIR}/tests/fixtures;GEN=$<TARGET_FILE:gen_synthetic>"
        LABELS cli
        TIMEOUT 600)
    endforeach()
    add_test(NAME cli_catalogs COMMAND ${LATREC_REPORT_BATS} ${CMAKE_SOURCE_DIR}/tests/cli/catalogs.bats)
    set_tests_properties(cli_catalogs PROPERTIES
      ENVIRONMENT "LATREC=$<TARGET_FILE:latrec_cli>;GEN=$<TARGET_FILE:gen_synthetic>;SRC=${CMAKE_SOURCE_DIR};BUILD=${CMAKE_BINARY_DIR}"
      LABELS cli
      TIMEOUT 600)
    # The bundled E3 workload and README's pipeline in one run (E3LOOP:
    # tests/workloads).
    add_test(NAME cli_catalogs_mixed COMMAND ${LATREC_REPORT_BATS} ${CMAKE_SOURCE_DIR}/tests/cli/catalogs_mixed.bats)
    set_tests_properties(cli_catalogs_mixed PROPERTIES
      ENVIRONMENT "LATREC=$<TARGET_FILE:latrec_cli>;GEN=$<TARGET_FILE:gen_synthetic>;E3LOOP=$<TARGET_FILE:e3loop>;SRC=${CMAKE_SOURCE_DIR};BUILD=${CMAKE_BINARY_DIR}"
      LABELS cli
      TIMEOUT 600)
    add_test(NAME cli_tour COMMAND ${LATREC_REPORT_BATS} ${CMAKE_SOURCE_DIR}/tests/cli/tour.bats)
    set_tests_properties(cli_tour PROPERTIES
      ENVIRONMENT "LATREC=$<TARGET_FILE:latrec_cli>;SRC=${CMAKE_SOURCE_DIR};BUILD=${CMAKE_BINARY_DIR}"
      LABELS cli
      TIMEOUT 600)
  else()
    message(STATUS "bats not found: cli_report, cli_hist, cli_legs, cli_catalogs and cli_tour are not registered")
  endif()
endif()
