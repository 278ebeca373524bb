# The timeline (convert --format chrome): tests/cli/timeline.bats, with the
# checker tests/cli/trace_check.py and the npm trace-event model that
# tests/js/install.sh puts into the build directory at test time.
if(TARGET latrec_cli)
  find_program(LATREC_TIMELINE_BATS bats)
  if(LATREC_TIMELINE_BATS)
    add_test(NAME cli_timeline COMMAND ${LATREC_TIMELINE_BATS} ${CMAKE_SOURCE_DIR}/tests/cli/timeline.bats)
    set_tests_properties(cli_timeline PROPERTIES
      ENVIRONMENT "LATREC=$<TARGET_FILE:latrec_cli>;E3LOOP=$<TARGET_FILE:e3loop>;FIXTURES=${CMAKE_SOURCE_DIR}/tests/fixtures;JS_DIR=${CMAKE_BINARY_DIR}/js"
      LABELS cli
      TIMEOUT 600)
  endif()
endif()
