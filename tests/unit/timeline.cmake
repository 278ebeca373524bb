# The pictures: the timeline (convert --format chrome, tests/cli/timeline.bats
# with the checker tests/cli/trace_check.py and the npm trace-event model)
# and the HTML report in Chromium (tests/cli/report_html.bats). The npm tools
# (tests/js) are put into the build directory at test time by
# tests/js/install.sh; the two tests take turns at that (RESOURCE_LOCK).
if(TARGET latrec_cli)
  find_program(LATREC_TIMELINE_BATS bats)
  if(LATREC_TIMELINE_BATS)
    add_test(NAME cli_timeline COMMAND ${LATREC_TIMELINE_BATS} ${CMAKE_SOURCE_DIR}/tests/cli/timeline.bats)
    set_tests_properties(cli_timeline PROPERTIES
      ENVIRONMENT "LATREC=$<TARGET_FILE:latrec_cli>;E3LOOP=$<TARGET_FILE:e3loop>;FIXTURES=${CMAKE_SOURCE_DIR}/tests/fixtures;JS_DIR=${CMAKE_BINARY_DIR}/js"
      LABELS cli
      TIMEOUT 600
      RESOURCE_LOCK js_install)
    # The HTML report in a real browser; screenshots into test-artefacts/.
    add_test(NAME cli_report_html COMMAND ${LATREC_TIMELINE_BATS} ${CMAKE_SOURCE_DIR}/tests/cli/report_html.bats)
    set_tests_properties(cli_report_html PROPERTIES
      ENVIRONMENT "LATREC=$<TARGET_FILE:latrec_cli>;E3LOOP=$<TARGET_FILE:e3loop>;GEN=$<TARGET_FILE:gen_synthetic>;JS_DIR=${CMAKE_BINARY_DIR}/js;ARTEFACTS=${CMAKE_BINARY_DIR}/test-artefacts"
      LABELS cli
      TIMEOUT 600
      RESOURCE_LOCK js_install)
  endif()
endif()
