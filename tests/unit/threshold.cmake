# The judge of --stop-above (src/engine/judge.c) on a synthetic ring.
latrec_unit_test(test_judge
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_judge.c
  LIBS latrec_engine)
target_include_directories(test_judge PRIVATE ${CMAKE_SOURCE_DIR}/src ${CMAKE_SOURCE_DIR}/include)

# record --stop-above and --on-threshold end to end (tests/cli/threshold.bats):
# slow_leg stamps libE3's outbound leg fast and once slow; a path on the
# bundled e3loop.
add_executable(slow_leg ${CMAKE_SOURCE_DIR}/tests/cli/slow_leg.c)
target_link_libraries(slow_leg PRIVATE latrec)
if(TARGET latrec_cli)
  find_program(LATREC_THRESHOLD_BATS bats)
  if(LATREC_THRESHOLD_BATS)
    add_test(NAME cli_threshold COMMAND ${LATREC_THRESHOLD_BATS} ${CMAKE_SOURCE_DIR}/tests/cli/threshold.bats)
    set_tests_properties(cli_threshold PROPERTIES
      ENVIRONMENT "LATREC=$<TARGET_FILE:latrec_cli>;SLOW_LEG=$<TARGET_FILE:slow_leg>;E3LOOP=$<TARGET_FILE:e3loop>"
      LABELS cli TIMEOUT 600)
  else()
    message(STATUS "bats not found: cli_threshold is not registered")
  endif()
endif()

# --stop-above on a path that never completes (tests/cli/threshold_names.bats):
# a Python producer of the E3 source leg only.
if(TARGET latrec_cli AND TARGET latrec_python AND LATREC_THRESHOLD_BATS)
  add_test(NAME cli_threshold_names COMMAND ${LATREC_THRESHOLD_BATS} ${CMAKE_SOURCE_DIR}/tests/cli/threshold_names.bats)
  set_tests_properties(cli_threshold_names PROPERTIES
    ENVIRONMENT "LATREC=$<TARGET_FILE:latrec_cli>;PYTHONPATH=${LATREC_PY_BUILD_DIR}"
    LABELS cli TIMEOUT 600)
endif()
