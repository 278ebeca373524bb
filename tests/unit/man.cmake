# man_pages: every built page passes `man --warnings` clean and its footer
# says this build's version and date (tests/man/check.sh; skipped, with the
# reason, where man is not installed).
add_test(NAME man_pages
  COMMAND bash ${CMAKE_SOURCE_DIR}/tests/man/check.sh ${CMAKE_BINARY_DIR}/man
          ${PROJECT_VERSION} ${LATREC_RELEASE_DATE})
set_tests_properties(man_pages PROPERTIES SKIP_RETURN_CODE 77 LABELS man TIMEOUT 120)
