#!/usr/bin/env bash
# Install check: install the build into a scratch prefix, then build a small
# consumer program against it twice - with pkg-config and with CMake's
# find_package(latrec) - run each with LATREC_OUTPUT_DIR pointing at a scratch
# directory, and check the rings it wrote (ALR1 magic, version, exact record
# counts) with a small C checker compiled here.
#
#   check.sh BUILD_DIR SCRATCH_DIR [CC [CMAKE [EXTRA_CFLAGS]]]
#
# EXTRA_CFLAGS go to the consumer's compile and link (a sanitizer build's
# library needs the consumer linked with the same -fsanitize flags).
# Exit 0 when both consumers pass; 1 with a one-line reason otherwise.
set -euo pipefail

build=${1:?usage: check.sh BUILD_DIR SCRATCH_DIR [CC [CMAKE [EXTRA_CFLAGS]]]}
scratch=${2:?usage: check.sh BUILD_DIR SCRATCH_DIR [CC [CMAKE [EXTRA_CFLAGS]]]}
cc=${3:-cc}
cmake_bin=${4:-cmake}
extra=${5:-}

fail() { echo "install_consumer: $*" >&2; exit 1; }

case $scratch in /*) ;; *) scratch=$PWD/$scratch ;; esac
rm -rf -- "$scratch"
mkdir -p "$scratch"/{prefix,src,pc,cm,rings-pc,rings-cmake}
prefix=$scratch/prefix

"$cmake_bin" --install "$build" --prefix "$prefix" >"$scratch/install.log" 2>&1 ||
  fail "cmake --install failed (see $scratch/install.log)"
[ -f "$prefix/include/latrec/latrec.h" ] || fail "no include/latrec/latrec.h under $prefix"
pcfile=$(find "$prefix" -name latrec.pc -print -quit)
[ -n "$pcfile" ] || fail "no latrec.pc installed under $prefix"
cfgfile=$(find "$prefix" -name latrecConfig.cmake -print -quit)
[ -n "$cfgfile" ] || fail "no latrecConfig.cmake installed under $prefix"

# The installed library carries the documented default ring directory, not
# a directory of the build tree (LATREC_DEFAULT_DIR, CMakeLists.txt).
build_abs=$(cd "$build" && pwd)
want_default=$(sed -n 's/^LATREC_DEFAULT_DIR:STRING=//p' "$build/CMakeCache.txt")
want_default=${want_default:-/tmp/latrec}
for lib in $(find "$prefix" -name 'liblatrec.so*' -type f) $(find "$prefix" -name liblatrec.a -type f); do
  if grep -qaF "$build_abs/latrec" "$lib"; then fail "$lib names the build tree's $build_abs/latrec as its ring directory"; fi
  grep -qaF "$want_default" "$lib" || fail "$lib lacks the default ring directory $want_default"
done

# The consumer: one per-thread ring (10 records) and one explicit ring (5).
cat >"$scratch/src/consumer.c" <<'EOF'
#include <latrec/latrec.h>
int main(void)
{
    if (!latrec_tls_open_as("consumer")) return 1;
    for (uint64_t i = 0; i < 10; i++) latrec_tstamp(latrec_seq_next(), LATREC_ENQUEUE, i, ~i);
    latrec_t e;
    if (latrec_open_in(&e, NULL, "explicit", 4) != 1) return 2;
    for (uint64_t i = 0; i < 5; i++) latrec_stamp(&e, i, LATREC_SEND_DONE, i, 0);
    latrec_close(&e);
    return 0;
}
EOF

# The checker: raw header bytes and record slots, little-endian by hand.
cat >"$scratch/src/ringcheck.c" <<'EOF'
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
static uint64_t le(const unsigned char *p, int n)
{
    uint64_t v = 0;
    for (int i = n - 1; i >= 0; i--) v = v << 8 | p[i];
    return v;
}
int main(int argc, char **argv)
{
    if (argc != 4) return 2;
    FILE *f = fopen(argv[1], "rb");
    unsigned char h[4096], r[32];
    if (!f || fread(h, 1, sizeof(h), f) != sizeof(h)) { printf("%s: short or unreadable\n", argv[1]); return 1; }
    const uint64_t entries = le(h + 8, 8), count = le(h + 16, 8), want = strtoull(argv[2], 0, 10);
    uint64_t valid = 0;
    for (uint64_t i = 0; i < entries && fread(r, 1, 32, f) == 32; i++) valid += le(r + 8, 8) != 0;
    fclose(f);
    printf("%s: magic %.4s version %u entries %llu rec_count %llu valid %llu\n", argv[1], (char *)h,
           (unsigned)le(h + 4, 4), (unsigned long long)entries, (unsigned long long)count,
           (unsigned long long)valid);
    return memcmp(h, "ALR1", 4) || le(h + 4, 4) != 3 || le(h + 104, 4) != 32 || valid != want ||
           count != want || entries != strtoull(argv[3], 0, 10);
}
EOF
"$cc" -O1 -o "$scratch/ringcheck" "$scratch/src/ringcheck.c" || fail "cannot build the ring checker"

# check_rings DIR LABEL: the consumer's two rings are there and exact.
check_rings() {
    local dir=$1 label=$2 tls
    tls=$(find "$dir" -maxdepth 1 -name 'consumer.*.latrec' -print -quit)
    [ -n "$tls" ] || fail "$label: no consumer.<tid>.latrec in $dir"
    [ "$(find "$dir" -maxdepth 1 -name '*.latrec' | wc -l)" -eq 2 ] || fail "$label: expected 2 rings in $dir"
    "$scratch/ringcheck" "$tls" 10 262144 || fail "$label: $tls is not the expected ring"
    "$scratch/ringcheck" "$dir/explicit.latrec" 5 16 || fail "$label: $dir/explicit.latrec is not the expected ring"
}

# 1) pkg-config
export PKG_CONFIG_PATH
PKG_CONFIG_PATH=$(dirname "$pcfile")
pkg=${PKG_CONFIG:-pkg-config}
flags=$("$pkg" --cflags --libs latrec) || fail "pkg-config --cflags --libs latrec failed"
case " $flags " in *" -DLATREC_ENABLE=1 "*) ;; *) fail "latrec.pc Cflags lack -DLATREC_ENABLE=1: $flags" ;; esac
libdir=$("$pkg" --variable=libdir latrec)
# shellcheck disable=SC2086 # word splitting of the flag lists is intended
"$cc" $extra -o "$scratch/pc/consumer" "$scratch/src/consumer.c" $flags -Wl,-rpath,"$libdir" ||
  fail "pkg-config build of the consumer failed ($flags)"
resolved=$(ldd "$scratch/pc/consumer" | awk '/liblatrec/ {print $3}')
case $resolved in "$prefix"/*) ;; *) fail "pkg-config consumer resolves liblatrec to '$resolved', not under $prefix" ;; esac
LATREC_OUTPUT_DIR=$scratch/rings-pc "$scratch/pc/consumer" || fail "pkg-config consumer exited $?"
check_rings "$scratch/rings-pc" pkg-config

# 2) CMake find_package
cat >"$scratch/src/CMakeLists.txt" <<'EOF'
cmake_minimum_required(VERSION 3.18)
project(latrec_consumer C)
find_package(latrec REQUIRED)
add_executable(x consumer.c)
target_link_libraries(x latrec::latrec)
EOF
"$cmake_bin" -S "$scratch/src" -B "$scratch/cm" -DCMAKE_PREFIX_PATH="$prefix" \
  -DCMAKE_C_COMPILER="$cc" -DCMAKE_C_FLAGS="$extra" -DCMAKE_EXE_LINKER_FLAGS="$extra" \
  >"$scratch/cm.log" 2>&1 || fail "find_package(latrec) configure failed (see $scratch/cm.log)"
"$cmake_bin" --build "$scratch/cm" >>"$scratch/cm.log" 2>&1 || fail "CMake build of the consumer failed (see $scratch/cm.log)"
resolved=$(ldd "$scratch/cm/x" | awk '/liblatrec/ {print $3}')
case $resolved in "$prefix"/*) ;; *) fail "CMake consumer resolves liblatrec to '$resolved', not under $prefix" ;; esac
LATREC_OUTPUT_DIR=$scratch/rings-cmake "$scratch/cm/x" || fail "CMake consumer exited $?"
check_rings "$scratch/rings-cmake" find_package

echo "install_consumer: ok (pkg-config and find_package consumers wrote exact rings)"
rm -rf -- "$scratch"
