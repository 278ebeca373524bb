# CLI tests: tests/cli/*.bats run by bats against the latrec binary just
# built. Included by tests/CMakeLists.txt with the unit areas; the CLI target
# is defined by then (src/ is added before tests/).
if(TARGET latrec_cli)
  find_program(LATREC_BATS bats)
  if(LATREC_BATS)
    foreach(t convert convert_output)
      add_test(NAME cli_${t} COMMAND ${LATREC_BATS} ${CMAKE_SOURCE_DIR}/tests/cli/${t}.bats)
      set_tests_properties(cli_${t} PROPERTIES
        ENVIRONMENT "LATREC=$<TARGET_FILE:latrec_cli>;FIXTURES=${CMAKE_SOURCE_DIR}/tests/fixtures"
        LABELS cli
        TIMEOUT 600)
    endforeach()
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

# The shared input of report, hist and convert (src/engine/input.c): a ring
# truncated mid-pass, saturating totals.
latrec_unit_test(test_input
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_input.c
  LIBS latrec_engine)
target_include_directories(test_input PRIVATE ${CMAKE_SOURCE_DIR}/src ${CMAKE_SOURCE_DIR}/include)

# tests/cli/vocabulary.bats: every option of every command in --help, its man
# page and completions/latrec.bash (reads the real files), and -h.
if(TARGET latrec_cli AND LATREC_BATS)
  add_test(NAME cli_vocabulary COMMAND ${LATREC_BATS} ${CMAKE_SOURCE_DIR}/tests/cli/vocabulary.bats)
  set_tests_properties(cli_vocabulary PROPERTIES
    ENVIRONMENT "LATREC=$<TARGET_FILE:latrec_cli>;SRC=${CMAKE_SOURCE_DIR}"
    LABELS cli
    TIMEOUT 600)
endif()

# tests/cli/collectors.bats: each collector counted apart in the header;
# thread labels (ring role, last name, a reused tid a new identity).
if(TARGET latrec_cli AND LATREC_BATS)
  add_test(NAME cli_collectors COMMAND ${LATREC_BATS} ${CMAKE_SOURCE_DIR}/tests/cli/collectors.bats)
  set_tests_properties(cli_collectors PROPERTIES
    ENVIRONMENT "LATREC=$<TARGET_FILE:latrec_cli>;GEN=$<TARGET_FILE:gen_synthetic>"
    LABELS cli
    TIMEOUT 600)
endif()

# tests/cli/top.bats: latrec top on the bundled E3 loop while it is recorded
# (launched, watched, JSON Lines against report's counts, the in-place
# redraw in tmux).
if(TARGET latrec_cli AND LATREC_BATS)
  add_test(NAME cli_top COMMAND ${LATREC_BATS} ${CMAKE_SOURCE_DIR}/tests/cli/top.bats)
  set_tests_properties(cli_top PROPERTIES
    ENVIRONMENT "LATREC=$<TARGET_FILE:latrec_cli>;E3LOOP=$<TARGET_FILE:e3loop>;GEN=$<TARGET_FILE:gen_synthetic>"
    LABELS cli
    TIMEOUT 600)
endif()
