# A ring name that is not UTF-8 in the JSON of top and report
# (tests/cli/json_names.bats).
if(TARGET latrec_cli)
  find_program(LATREC_JSON_NAMES_BATS bats)
  if(LATREC_JSON_NAMES_BATS)
    add_test(NAME cli_json_names COMMAND ${LATREC_JSON_NAMES_BATS} ${CMAKE_SOURCE_DIR}/tests/cli/json_names.bats)
    set_tests_properties(cli_json_names PROPERTIES
      ENVIRONMENT "LATREC=$<TARGET_FILE:latrec_cli>;E3LOOP=$<TARGET_FILE:e3loop>"
      LABELS cli TIMEOUT 600)
  else()
    message(STATUS "bats not found: cli_json_names is not registered")
  endif()
endif()
