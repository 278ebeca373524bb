# The option grammar (src/util): durations, counts, plain numbers, choices.
#   test_util_options  every form the grammar takes or refuses, exact ns
#                      values computed by hand, ranges inclusive at both ends
latrec_unit_test(test_util_options
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_util_options.c
  LIBS latrec_util)
target_include_directories(test_util_options PRIVATE ${CMAKE_SOURCE_DIR}/src)
