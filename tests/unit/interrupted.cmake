# Commands that write files, cut short by a file-size limit or a signal
# (tests/cli/interrupted.bats).
if(TARGET latrec_cli)
  find_program(LATREC_INTERRUPTED_BATS bats)
  if(LATREC_INTERRUPTED_BATS)
    add_test(NAME cli_interrupted COMMAND ${LATREC_INTERRUPTED_BATS} ${CMAKE_SOURCE_DIR}/tests/cli/interrupted.bats)
    set_tests_properties(cli_interrupted PROPERTIES
      ENVIRONMENT "LATREC=$<TARGET_FILE:latrec_cli>;E3LOOP=$<TARGET_FILE:e3loop>"
      LABELS cli TIMEOUT 600)
  else()
    message(STATUS "bats not found: cli_interrupted is not registered")
  endif()
endif()
