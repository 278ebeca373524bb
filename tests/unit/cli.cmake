# CLI tests: tests/cli/*.bats run by bats against the latrec binary just
# built. Included by tests/CMakeLists.txt with the unit areas; the CLI target
# is defined by then (src/ is added before tests/).
if(TARGET latrec_cli)
  find_program(LATREC_BATS bats)
  if(LATREC_BATS)
    add_test(NAME cli_convert COMMAND ${LATREC_BATS} ${CMAKE_SOURCE_DIR}/tests/cli/convert.bats)
    set_tests_properties(cli_convert PROPERTIES
      ENVIRONMENT "LATREC=$<TARGET_FILE:latrec_cli>;FIXTURES=${CMAKE_SOURCE_DIR}/tests/fixtures"
      LABELS cli
      TIMEOUT 600)
  else()
    message(STATUS "bats not found: the CLI tests (tests/cli/*.bats) are not registered")
  endif()
endif()

# tests/cli/options.bats: the option vocabulary (durations, counts, -h,
# unknown names); synthetic rings from gen_synthetic (tests/unit/report.cmake).
if(TARGET latrec_cli AND LATREC_BATS)
  add_test(NAME cli_options COMMAND ${LATREC_BATS} ${CMAKE_SOURCE_DIR}/tests/cli/options.bats)
  set_tests_properties(cli_options PROPERTIES
    ENVIRONMENT "LATREC=$<TARGET_FILE:latrec_cli>;GEN=$<TARGET_FILE:gen_synthetic>"
    LABELS cli
    TIMEOUT 600)
endif()
