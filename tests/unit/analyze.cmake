# Unit tests of catalogs and leg instances (src/analyze), and of the CSV
# writer the leg tables go through (src/cli/csv.c, compiled in).
latrec_unit_test(test_catalog
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_catalog.c
  LIBS latrec_analyze latrec_read)
latrec_unit_test(test_legs
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_legs.c
  LIBS latrec_analyze latrec_read)
latrec_unit_test(test_legs_index
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_legs_index.c
  LIBS latrec_analyze latrec_read)
latrec_unit_test(test_legs_lifecycle
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_legs_lifecycle.c
  LIBS latrec_analyze latrec_read)
latrec_unit_test(test_legs_lazy
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_legs_lazy.c
  LIBS latrec_analyze latrec_read)
latrec_unit_test(test_legs_discovery
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_legs_discovery.c
  LIBS latrec_analyze latrec_read)
latrec_unit_test(test_legs_csv
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_legs_csv.c ${CMAKE_SOURCE_DIR}/src/cli/csv.c
  LIBS latrec_analyze latrec_read)
target_include_directories(test_legs_csv PRIVATE ${CMAKE_SOURCE_DIR}/src)
latrec_unit_test(test_csv_format
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_csv_format.c ${CMAKE_SOURCE_DIR}/src/cli/csv.c
  LIBS latrec_read)
target_include_directories(test_csv_format PRIVATE ${CMAKE_SOURCE_DIR}/src)
latrec_unit_test(test_paths
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_paths.c
  LIBS latrec_analyze latrec_read)
target_include_directories(test_paths PRIVATE ${CMAKE_SOURCE_DIR}/src)
latrec_unit_test(test_clock_offset
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_clock_offset.c
  LIBS latrec_analyze latrec_read)

# The limit grammar of report --fail-over and record --stop-above.
latrec_unit_test(test_gate
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_gate.c
  LIBS latrec_analyze)
target_include_directories(test_gate PRIVATE ${CMAKE_SOURCE_DIR}/src)

# The paths of a whole run: numbering, names, one assembler per catalog.
latrec_unit_test(test_path_index
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_path_index.c
  LIBS latrec_analyze latrec_read)
target_include_directories(test_path_index PRIVATE ${CMAKE_SOURCE_DIR}/src)
