# What latrec reads besides ring records (tests/cli/inputs.bats): run.json,
# catalogs and stage headers bounded and regular, several directories with
# their own start stamps, loss sums, torn slots, clock ids.
if(TARGET latrec_cli)
  find_program(LATREC_INPUTS_BATS bats)
  if(LATREC_INPUTS_BATS)
    add_test(NAME cli_inputs COMMAND ${LATREC_INPUTS_BATS} ${CMAKE_SOURCE_DIR}/tests/cli/inputs.bats)
    set_tests_properties(cli_inputs PROPERTIES
      ENVIRONMENT "LATREC=$<TARGET_FILE:latrec_cli>;FIXTURES=${CMAKE_SOURCE_DIR}/tests/fixtures;GEN=$<TARGET_FILE:gen_synthetic>"
      LABELS cli
      TIMEOUT 600)
  else()
    message(STATUS "bats not found: cli_inputs is not registered")
  endif()
endif()
