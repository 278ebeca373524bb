# Writer (liblatrec) tests: one cmocka binary per area. Every test reads the
# ring files back with the independent raw reader in test_writer_util.c and
# keeps its files under LATREC_TEST_TMP.
set(WRITER_UNIT ${CMAKE_CURRENT_SOURCE_DIR}/unit)
set(WRITER_UTIL ${WRITER_UNIT}/test_writer_util.c)

foreach(area ring tls env kill concurrent overhead compat)
  latrec_unit_test(test_writer_${area}
    SOURCES ${WRITER_UNIT}/test_writer_${area}.c ${WRITER_UTIL}
    LIBS latrec)
endforeach()

# The compiled-in default directory the library was built with.
target_compile_definitions(test_writer_env PRIVATE
  LATREC_TEST_DEFAULT_DIR="${LATREC_DEFAULT_DIR_EFFECTIVE}")

# libE3 source compatibility: a program that includes only <latrec/latrec.h>,
# built as a libE3 user builds it (strict -std=c11, no feature macros of ours).
add_executable(test_writer_libe3_consumer ${WRITER_UNIT}/consumer_libe3.c)
target_link_libraries(test_writer_libe3_consumer PRIVATE latrec)
set_target_properties(test_writer_libe3_consumer PROPERTIES C_EXTENSIONS OFF)
target_compile_options(test_writer_libe3_consumer PRIVATE -U_GNU_SOURCE)
target_compile_definitions(test_writer_compat PRIVATE
  CONSUMER_LIBE3_PATH="$<TARGET_FILE:test_writer_libe3_consumer>")
add_dependencies(test_writer_compat test_writer_libe3_consumer)

# A consumer built without LATREC_ENABLE: include directory only, no liblatrec.
latrec_unit_test(test_writer_consumer_disabled
  SOURCES ${WRITER_UNIT}/consumer_disabled.c ${WRITER_UTIL})
target_include_directories(test_writer_consumer_disabled PRIVATE ${CMAKE_SOURCE_DIR}/include)

# Install + consumer check (pkg-config and find_package), see tests/install.
if(LATREC_SANITIZE)
  set(WRITER_INSTALL_FLAGS "-fsanitize=address,undefined")
else()
  set(WRITER_INSTALL_FLAGS "")
endif()
add_test(NAME install_consumer
  COMMAND bash ${CMAKE_SOURCE_DIR}/tests/install/check.sh ${CMAKE_BINARY_DIR}
          ${CMAKE_BINARY_DIR}/test-tmp/install_consumer ${CMAKE_C_COMPILER} ${CMAKE_COMMAND}
          "${WRITER_INSTALL_FLAGS}")
set_tests_properties(install_consumer PROPERTIES TIMEOUT 300 LABELS install)
