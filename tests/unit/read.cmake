# Unit tests of the ring reader (src/read).
pkg_check_modules(JANSSON REQUIRED IMPORTED_TARGET jansson)

# One ring (read/ring.h): its header, its records and slots, its wrap and
# loss (shared helpers in read_ring_util.h).
foreach(t header slots wrap)
  latrec_unit_test(test_read_ring_${t}
    SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_read_ring_${t}.c
    LIBS latrec_read)
endforeach()
# A ring opened by the guess (read/ring.h) against the scan, the guess held
# or found wrong (wrapped, torn, killed writer, stamps out of order, live).
latrec_unit_test(test_read_guess
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_read_guess.c ${CMAKE_CURRENT_LIST_DIR}/test_writer_util.c
  LIBS latrec latrec_read)
latrec_unit_test(test_read_fixtures
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_read_fixtures.c
  LIBS latrec_read PkgConfig::JANSSON)
latrec_unit_test(test_read_ringset
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_read_ringset.c
  LIBS latrec_read)
latrec_unit_test(test_read_merge
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_read_merge.c
  LIBS latrec_read)
# Count allocations made while merging: malloc and friends are wrapped in
# this binary (the library is linked statically, so its calls are wrapped).
target_link_options(test_read_merge PRIVATE
  -Wl,--wrap=malloc -Wl,--wrap=calloc -Wl,--wrap=realloc)
latrec_unit_test(test_read_wallclock
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_read_wallclock.c
  LIBS latrec_read)
latrec_unit_test(test_out_escape
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_out_escape.c
  LIBS latrec_read)
# A set of output files all or nothing when a name is taken between the
# last check and the renames: renameat2 wrapped in this binary.
latrec_unit_test(test_outset_race
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_outset_race.c
  LIBS latrec_read)
target_link_options(test_outset_race PRIVATE -Wl,--wrap=renameat2)
# The reader on rings a writer thread is still stamping (torn, lapped).
latrec_unit_test(test_read_live
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_read_live.c ${CMAKE_CURRENT_LIST_DIR}/test_writer_util.c
  LIBS latrec latrec_read)
# A pass's resident ring pages bounded by the ring window.
latrec_unit_test(test_read_window
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_read_window.c
  LIBS latrec_read)
