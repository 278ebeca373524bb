#!/usr/bin/env bats
# README's "A five-minute tour", as written: its program built with the
# README's cc line against an installed tree, then its record, report, hist
# and convert lines; the figures checked against the records themselves.
#
# Environment (tests/unit/report.cmake): LATREC, SRC (the source tree),
# BUILD (the build tree).

bats_require_minimum_version 1.5.0

@test "README tour, as written: program, record, report, hist, convert" {
    : "${LATREC:?}" "${SRC:?}" "${BUILD:?}"
    command -v cc >/dev/null || skip "no C compiler"
    command -v pkg-config >/dev/null || skip "no pkg-config"
    ! grep -q '^LATREC_SANITIZE:BOOL=ON' "$BUILD/CMakeCache.txt" ||
        skip "sanitizer build: the README's plain cc line cannot link a sanitized library"
    w="$BATS_TEST_TMPDIR/tour"
    mkdir -p "$w/prefix"
    cmake --install "$BUILD" --prefix "$w/prefix" > "$w/install.log" 2>&1
    pc=$(dirname "$(find "$w/prefix" -name latrec.pc -print -quit)")
    grep -q LATREC_ENABLE "$pc/latrec.pc" || skip "library built without LATREC_ENABLE: no rings to read"
    "${PY:-python3}" - "$SRC/README.md" "$w" <<'EOF'
import re, sys
text = open(sys.argv[1]).read()
blocks = re.findall(r"<!-- tour: (\S+) -->\n```[a-z]*\n(.*?)```", text, re.S)
assert sorted(n for n, _ in blocks) == ["prog.c", "run.sh"], blocks
for name, body in blocks:
    open(f"{sys.argv[2]}/{name}", "w").write(body)
EOF
    cd "$w"
    # the README's build line, word for word
    line=$(grep -o 'cc prog.c $(pkg-config --cflags --libs latrec) -o prog' "$SRC/README.md" | head -1)
    [ -n "$line" ]
    PKG_CONFIG_PATH="$pc" bash -euo pipefail -c "$line"
    run env -u LATREC_OUTPUT_DIR PATH="$w/prefix/bin:$PATH" LD_LIBRARY_PATH="$(dirname "$pc")" \
        bash -euo pipefail run.sh
    printf '%s\n' "$output" > "$w/out.txt"
    [ "$status" -eq 0 ]
    # every message the program finished is a complete oai/source instance:
    # as many as ENCODE_E3SM_DONE records (the leg's last stage), each with
    # the program's 64 bytes in aux
    done_n=$(awk -F, '$9 == "ENCODE_E3SM_DONE" && $11 == 64' run1/csv/records.csv | wc -l)
    [ "$done_n" -gt 100 ]
    grep -q "^oai/source  instances: [0-9]*  complete: $done_n\$" "$w/out.txt"
    # build_message sleeps 100 us: that hop's smallest value is above it
    min=$(awk '$1 == "ENCODE_E3SM_BEGIN->ENCODE_E3SM_DONE" { print $3; exit }' "$w/out.txt")
    awk -v m="$min" 'BEGIN { exit !(m >= 100) }'
    grep -q '^# Bucket size: 5 us' "$w/out.txt"
    grep -q 'oai/source:total' "$w/out.txt"
    [ -s run1/csv/rings.csv ] && [ -s run1/csv/oai.csv ] && [ -s run1/csv/paths.csv ]
    "${PY:-python3}" -c 'import json, sys; assert json.load(open(sys.argv[1]))["traceEvents"]' run1/trace.json
}
