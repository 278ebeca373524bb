# The shared library's ABI: what it exports (against latrec(3) and the
# version script), and loading it with dlopen() from a program that does not
# link it (initial-exec TLS under dlopen, as ctypes and Python load it).
latrec_unit_test(test_writer_dlopen
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_writer_dlopen.c ${CMAKE_CURRENT_LIST_DIR}/test_writer_util.c
  LIBS ${CMAKE_DL_LIBS})
target_compile_definitions(test_writer_dlopen PRIVATE LATREC_TEST_LIB="$<TARGET_FILE:latrec>")
add_dependencies(test_writer_dlopen latrec)

add_test(NAME abi_symbols
  COMMAND bash ${CMAKE_SOURCE_DIR}/tests/abi/check_symbols.sh $<TARGET_FILE:latrec>
          ${CMAKE_SOURCE_DIR}/man/latrec.3 ${CMAKE_SOURCE_DIR}/src/lib/latrec.map)
set_tests_properties(abi_symbols PROPERTIES LABELS unit TIMEOUT 60)
