# Python module tests: tests/python/test_*.py, one ctest per file (label
# python), run by pytest from the interpreter the module was built for, with
# the module of the build tree on PYTHONPATH and its no-op build (compiled
# without LATREC_ENABLE by src/python for the tests) in LATREC_PY_NOOP. Exit
# 77 is a skip.
if(TARGET latrec_python)
  set(py_env
    "PYTHONPATH=${LATREC_PY_BUILD_DIR}"
    "LATREC_PY_NOOP=${CMAKE_BINARY_DIR}/tests/python/noop"
    "LATREC_PYTHON=${LATREC_PY_EXE}"
    "LATREC_BUILD_DIR=${CMAKE_BINARY_DIR}"
    "CMAKE=${CMAKE_COMMAND}"
    "PYTHONDONTWRITEBYTECODE=1")
  if(TARGET latrec_cli)
    list(APPEND py_env "LATREC=$<TARGET_FILE:latrec_cli>")
  endif()
  if(LATREC_SANITIZE)
    # An ASan-built module loads into an uninstrumented interpreter only
    # with the runtime preloaded; the interpreter's own leaks are not ours.
    execute_process(COMMAND ${CMAKE_C_COMPILER} -print-file-name=libasan.so
      OUTPUT_VARIABLE asan_rt OUTPUT_STRIP_TRAILING_WHITESPACE)
    list(APPEND py_env "LD_PRELOAD=${asan_rt}" "ASAN_OPTIONS=detect_leaks=0")
  endif()
  file(GLOB py_tests ${CMAKE_SOURCE_DIR}/tests/python/test_*.py)
  foreach(t ${py_tests})
    get_filename_component(n ${t} NAME_WE)
    string(REGEX REPLACE "^test_" "python_" n ${n})
    add_test(NAME ${n} COMMAND ${LATREC_PY_EXE} ${CMAKE_SOURCE_DIR}/tests/python/run_pytest.py ${t}
             --basetemp=${CMAKE_BINARY_DIR}/test-tmp/${n})
    set_tests_properties(${n} PROPERTIES ENVIRONMENT "${py_env}" LABELS python
                         SKIP_RETURN_CODE 77 TIMEOUT 600)
  endforeach()
else()
  add_test(NAME python_module COMMAND sh -c "echo 'skipped: ${LATREC_PY_MISSING}'; exit 77")
  set_tests_properties(python_module PROPERTIES LABELS python SKIP_RETURN_CODE 77)
endif()
