# Statistics for every latency column: log-linear histogram (loghist),
# running moments (stats), Latte-style outliers. libc + libm only.
# Included by src/analyze/CMakeLists.txt into the latrec_analyze target.
target_sources(latrec_analyze PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/stats.c
  ${CMAKE_CURRENT_LIST_DIR}/loghist.c
  ${CMAKE_CURRENT_LIST_DIR}/outliers.c)
target_link_libraries(latrec_analyze PUBLIC m)
