# Convert benchmark: the ring generator, the reader's plain pass, and a
# `bench_convert` target running tests/bench/bench_convert.sh against the
# latrec just built. Include from tests/bench/CMakeLists.txt:
#   include(${CMAKE_CURRENT_SOURCE_DIR}/convert.cmake)
# (bench_convert.sh also builds both programs with cc by itself.)
add_executable(bench_gen_rings ${CMAKE_CURRENT_LIST_DIR}/gen_rings.c)
target_include_directories(bench_gen_rings PRIVATE ${CMAKE_SOURCE_DIR}/include)

add_executable(bench_read ${CMAKE_CURRENT_LIST_DIR}/bench_read.c)
target_link_libraries(bench_read PRIVATE latrec_read)

if(TARGET latrec_cli)
  add_custom_target(bench_convert
    COMMAND ${CMAKE_CURRENT_LIST_DIR}/bench_convert.sh --latrec $<TARGET_FILE:latrec_cli>
            --work ${CMAKE_BINARY_DIR}/bench-convert
    DEPENDS latrec_cli bench_gen_rings bench_read
    USES_TERMINAL
    COMMENT "bench_convert: latrec convert records/s and peak RSS on 16 rings x 2^20 records")
endif()
