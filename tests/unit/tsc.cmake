# TSC rings: the reader's conversion (synthetic pairs, whole synthetic
# rings), the writer's TSC rings and their fall back to the clock, and a
# report over TSC and clock rings together (tests/cli/tsc.bats).
latrec_unit_test(test_read_timebase
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_read_timebase.c
  LIBS latrec_read)
latrec_unit_test(test_writer_tsc
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_writer_tsc.c ${CMAKE_CURRENT_LIST_DIR}/test_writer_util.c
  LIBS latrec)

add_executable(tsc_mixed ${CMAKE_SOURCE_DIR}/tests/cli/tsc_mixed.c)
target_link_libraries(tsc_mixed PRIVATE latrec)
if(TARGET latrec_cli)
  find_program(LATREC_TSC_BATS bats)
  if(LATREC_TSC_BATS)
    add_test(NAME cli_tsc COMMAND ${LATREC_TSC_BATS} ${CMAKE_SOURCE_DIR}/tests/cli/tsc.bats)
    set_tests_properties(cli_tsc PROPERTIES
      ENVIRONMENT "LATREC=$<TARGET_FILE:latrec_cli>;GEN=$<TARGET_FILE:gen_synthetic>;MIXED=$<TARGET_FILE:tsc_mixed>;E3LOOP=$<TARGET_FILE:e3loop>"
      LABELS cli TIMEOUT 300)
  else()
    message(STATUS "bats not found: cli_tsc is not registered")
  endif()
endif()
