#!/usr/bin/env bash
# Every built man page (CMAKE_BINARY_DIR/man): no warning from
# `man --warnings` at 80 columns, and a footer naming this build's version
# and release date (one source: CMakeLists.txt).
#   check.sh MANDIR VERSION DATE
set -u
dir=$1 version=$2 date=$3
if ! command -v man >/dev/null; then
    echo "SKIP: man (man-db) is not installed: the pages' warnings cannot be checked"
    exit 77
fi
fail=0 n=0
for page in "$dir"/*.[135]; do
    [ -e "$page" ] || continue
    n=$((n + 1))
    w=$(MANWIDTH=80 LC_ALL=C.UTF-8 man --warnings -l "$page" 2>&1 >/dev/null)
    if [ -n "$w" ]; then
        echo "$page: $w"
        fail=1
    fi
    th=$(grep -m1 '^\.TH ' "$page")
    case "$th" in
    *" $date \"latrec $version\" "*) ;;
    *)
        echo "$page: footer '$th' does not say $date, latrec $version"
        fail=1
        ;;
    esac
done
if [ "$n" -lt 7 ]; then
    echo "$dir: $n man pages, expected at least 7"
    fail=1
fi
[ "$fail" -eq 0 ] && echo "$n man pages: no warnings, footers $date, latrec $version"
exit "$fail"
