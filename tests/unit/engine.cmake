# The analysis engine (src/engine):
#   test_engine_live   LATREC_ENGINE_LIVE on rings the writer library is still
#                      stamping: no torn record, lapping counted exactly, the
#                      watermark, rings that appear after the open
#   test_pass_threads  a pass on 1, 2 and 3 threads (engine/pipeline.h): the
#                      same sink calls in the same order, discovered legs too
#   test_pass_split    a pass read by process (engine/pass_split.c): the
#                      figures of the pass in time order, and when it gives up
#   test_pass_paths    its path instances (engine/pass_plog.h): those of the
#                      pass in time order, in its order
#   test_pass_stamps   its first-stage stamps handed over in time order, on
#                      one thread and two (engine/pass_stamps.c)
latrec_unit_test(test_engine_live
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_engine_live.c ${CMAKE_CURRENT_LIST_DIR}/test_writer_util.c
  LIBS latrec latrec_engine)
target_include_directories(test_engine_live PRIVATE ${CMAKE_SOURCE_DIR}/src ${CMAKE_SOURCE_DIR}/include)

latrec_unit_test(test_pass_threads
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_pass_threads.c
  LIBS latrec_engine)
target_include_directories(test_pass_threads PRIVATE ${CMAKE_SOURCE_DIR}/src ${CMAKE_SOURCE_DIR}/include)

latrec_unit_test(test_pass_split
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_pass_split.c
  LIBS latrec_engine)
target_include_directories(test_pass_split PRIVATE ${CMAKE_SOURCE_DIR}/src ${CMAKE_SOURCE_DIR}/include)

latrec_unit_test(test_pass_paths
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_pass_paths.c
  LIBS latrec_engine)
target_include_directories(test_pass_paths PRIVATE ${CMAKE_SOURCE_DIR}/src ${CMAKE_SOURCE_DIR}/include)

latrec_unit_test(test_pass_stamps
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_pass_stamps.c
  LIBS latrec_engine)
target_include_directories(test_pass_stamps PRIVATE ${CMAKE_SOURCE_DIR}/src ${CMAKE_SOURCE_DIR}/include)

# top's queue of instances waiting for live scheduler data (src/cli/top_model.c,
# compiled in) when the live view (engine/sched_view.c) gives up short of the run.
latrec_unit_test(test_top_sched
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_top_sched.c ${CMAKE_SOURCE_DIR}/src/cli/top_model.c
  LIBS latrec_engine latrec_analyze latrec_read)
target_include_directories(test_top_sched PRIVATE ${CMAKE_SOURCE_DIR}/src ${CMAKE_SOURCE_DIR}/include)

# A pass that cannot be read by process (convert's taps, top's sinks stepped)
# over rings opened by the guess: started over when one was wrong, every tap
# call and top's rows those of the rings scanned (top_model.c compiled in).
latrec_unit_test(test_pass_restart
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_pass_restart.c ${CMAKE_SOURCE_DIR}/src/cli/top_model.c
  LIBS latrec_engine latrec_analyze latrec_read)
target_include_directories(test_pass_restart PRIVATE ${CMAKE_SOURCE_DIR}/src ${CMAKE_SOURCE_DIR}/include)
