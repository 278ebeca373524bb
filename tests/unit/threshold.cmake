# The judge of --stop-above (src/engine/judge.c) on a synthetic ring.
latrec_unit_test(test_judge
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_judge.c
  LIBS latrec_engine)
target_include_directories(test_judge PRIVATE ${CMAKE_SOURCE_DIR}/src ${CMAKE_SOURCE_DIR}/include)
