#!/usr/bin/env bats
# User catalogs: where a ring's named catalog is found (the run directory,
# LATREC_CATALOG_PATH, $XDG_CONFIG_HOME/latrec/catalogs, the installed
# share/latrec/catalogs), each ring read under its own catalog, the
# modelling warnings, record --catalog, and README's "Your own pipeline"
# run as written.
#
# Environment (tests/unit/report.cmake): LATREC, GEN (gen_synthetic), SRC
# (the source tree), BUILD (the build tree).
#
# Run M (T0 = 2 s, pid 1000): ten E3 outbound instances on libe3.outbound.101
#   (ENQUEUE 0x21 at T0 + i ms, DEQUEUE +1000, ENCODE_E3AP_DONE +1200,
#   SEND_DONE +1500), and on rx.201 (pid 2000, catalog "pipe") twenty
#   instances of stage 0x21 then 0x22 (+700 ns) at T0 + i ms + 300 us: the
#   same ids as ENQUEUE and DEQUEUE, which catalog "pipe" names RX and TX.

bats_require_minimum_version 1.5.0

setup_file() {
    : "${LATREC:?}" "${GEN:?}" "${SRC:?}" "${BUILD:?}"
    export D="$BATS_FILE_TMPDIR"
    T0=2000000000
    {
        echo "ring libe3.outbound.101 pid=1000"
        echo "ring rx.201 pid=2000 catalog=pipe"
        for i in $(seq 1 10); do
            t=$((T0 + i * 1000000))
            echo "rec libe3.outbound.101 ENQUEUE $i $t"
            echo "rec libe3.outbound.101 DEQUEUE $i $((t + 1000))"
            echo "rec libe3.outbound.101 ENCODE_E3AP_DONE $i $((t + 1200))"
            echo "rec libe3.outbound.101 SEND_DONE $i $((t + 1500))"
        done
        for i in $(seq 1 20); do
            t=$((T0 + i * 1000000 + 300000))
            echo "rec rx.201 0x21 $i $t"
            echo "rec rx.201 0x22 $i $((t + 700))"
        done
    } | "$GEN" "$D/M"
    # W: catalog "pipe" rings where one thread stamps 0x22 before 0x21 in
    # 5 of 8 instances (the chain says RX, TX)
    {
        echo "ring rx.301 pid=3000 catalog=pipe"
        for i in $(seq 1 8); do
            t=$((T0 + i * 1000000))
            if [ "$i" -le 5 ]; then
                echo "rec rx.301 0x22 $i $t"; echo "rec rx.301 0x21 $i $((t + 400))"
            else
                echo "rec rx.301 0x21 $i $t"; echo "rec rx.301 0x22 $i $((t + 400))"
            fi
        done
    } | "$GEN" "$D/W"
    mkcat() { # mkcat FILE LEGNAME: catalog "pipe" with leg LEGNAME = RX TX
        printf 'catalog pipe\nstage 0x21 RX\nstage 0x22 TX\nleg %s RX TX\ncomponent pipe rx\n' "$2" > "$1"
    }
    export -f mkcat
    mkdir -p "$D/cat-src" "$D/envpath" "$D/xdg/latrec/catalogs"
    mkcat "$D/cat-src/pipe.catalog" from_rundir
    mkcat "$D/envpath/pipe.catalog" from_env
    mkcat "$D/xdg/latrec/catalogs/pipe.catalog" from_xdg
}

# Cell of a text table: table header "COMP/LEG  instances:", row, column.
cell() {
    awk -v h="$2  instances:" -v row="$3" -v col="$4" '
        index($0, h) == 1 { p = 1; next }
        p && $1 == "HOP" { for (i = 1; i <= NF; i++) idx[$i] = i; next }
        p && $1 == row { print $(idx[col]); exit }' "$1"
}

@test "catalogs: each ring is read under its own catalog (e3 and a user catalog in one run)" {
    rm -rf "$D/M/catalogs"
    mkdir -p "$D/M/catalogs"
    cp "$D/cat-src/pipe.catalog" "$D/M/catalogs/"
    run --separate-stderr env -u LATREC_CATALOG_PATH XDG_CONFIG_HOME="$D/none" "$LATREC" report "$D/M" --unit ns
    [ "$status" -eq 0 ]
    printf '%s\n' "${lines[@]}" > "$D/m.txt"
    grep -qx "# catalog: e3 (built in); pipe (from $D/M/catalogs/pipe.catalog)" "$D/m.txt"
    # the e3 rings keep their legs, ids 0x21/0x22 mean ENQUEUE/DEQUEUE there
    grep -q '^libe3/outbound  instances: 10  complete: 10' "$D/m.txt"
    [ "$(cell "$D/m.txt" libe3/outbound total MAX_ns)" = 1500 ]
    # and RX/TX on the pipe rings
    grep -q '^pipe/from_rundir  instances: 20  complete: 20' "$D/m.txt"
    [ "$(cell "$D/m.txt" pipe/from_rundir RX-\>TX MIN_ns)" = 700 ]
    [ "$(cell "$D/m.txt" pipe/from_rundir RX-\>TX MAX_ns)" = 700 ]
    [ -z "$stderr" ]
    # a gate on the user's leg works, both ways
    run "$LATREC" report "$D/M" --fail-over 'pipe/from_rundir:total:p99>600ns' -q
    [ "$status" -eq 4 ]
    run "$LATREC" report "$D/M" --fail-over 'pipe/from_rundir:total:p99>800ns' -q
    [ "$status" -eq 0 ]
    # convert: stage names per ring's catalog in records.csv
    run "$LATREC" convert "$D/M" -q -o "$D/m_csv"
    [ "$status" -eq 0 ]
    grep -q ',ENQUEUE,' "$D/m_csv/records.csv"
    grep -q ',RX,' "$D/m_csv/records.csv"
    [ "$(grep -c ',RX,' "$D/m_csv/records.csv")" = 20 ]
    [ "$(grep -c ',ENQUEUE,' "$D/m_csv/records.csv")" = 10 ]
}

@test "catalogs: found in the run directory, then LATREC_CATALOG_PATH, then XDG_CONFIG_HOME" {
    rm -rf "$D/M/catalogs"
    mkdir -p "$D/M/catalogs"
    cp "$D/cat-src/pipe.catalog" "$D/M/catalogs/"
    run env LATREC_CATALOG_PATH="$D/nowhere:$D/envpath" XDG_CONFIG_HOME="$D/xdg" "$LATREC" report "$D/M" -q
    grep -q '^pipe/from_rundir  instances: 20' <<< "$output"
    rm -rf "$D/M/catalogs"
    run env LATREC_CATALOG_PATH="$D/nowhere:$D/envpath" XDG_CONFIG_HOME="$D/xdg" "$LATREC" report "$D/M" -q
    grep -q '^pipe/from_env  instances: 20' <<< "$output"
    grep -q "pipe (from $D/envpath/pipe.catalog)" <<< "$output"
    run env -u LATREC_CATALOG_PATH XDG_CONFIG_HOME="$D/xdg" "$LATREC" report "$D/M" -q
    grep -q '^pipe/from_xdg  instances: 20' <<< "$output"
    # HOME/.config when XDG_CONFIG_HOME is unset
    mkdir -p "$D/home/.config/latrec"
    cp -r "$D/xdg/latrec/catalogs" "$D/home/.config/latrec/"
    run env -u LATREC_CATALOG_PATH -u XDG_CONFIG_HOME HOME="$D/home" "$LATREC" report "$D/M" -q
    grep -q '^pipe/from_xdg  instances: 20' <<< "$output"
    # nowhere: one line naming where it looked; stages by id, the e3 rings untouched
    run --separate-stderr env -u LATREC_CATALOG_PATH XDG_CONFIG_HOME="$D/none" HOME="$D/none" "$LATREC" report "$D/M"
    [ "$status" -eq 0 ]
    [[ "$stderr" == "latrec report: rings name catalog 'pipe', which is not built in and not found (searched $D/M/catalogs, \$LATREC_CATALOG_PATH (unset), $D/none/latrec/catalogs, "* ]]
    [ "$(grep -c . <<< "$stderr")" = 1 ]
    grep -q '^libe3/outbound  instances: 10  complete: 10' <<< "$output"
    grep -q '^rx/0x21>0x22 (discovered)  instances: 20' <<< "$output"
}

@test "catalogs: --catalog FILE applies to the rings naming its catalog only" {
    run --separate-stderr env -u LATREC_CATALOG_PATH XDG_CONFIG_HOME="$D/none" "$LATREC" report "$D/M" \
        --catalog "$D/envpath/pipe.catalog"
    [ "$status" -eq 0 ]
    grep -q '^libe3/outbound  instances: 10  complete: 10' <<< "$output"
    grep -q '^pipe/from_env  instances: 20  complete: 20' <<< "$output"
    grep -qx "# catalog: e3 (built in); pipe (from $D/envpath/pipe.catalog)" <<< "$output"
    # a FILE no ring names is every ring's catalog (the rings' own names overridden)
    printf 'catalog other\nstage 0x21 A\nstage 0x22 B\nleg ab A B\n' > "$D/other.catalog"
    run --separate-stderr "$LATREC" report "$D/M" --catalog "$D/other.catalog"
    [ "$status" -eq 0 ]
    grep -qx "# catalog: other (from $D/other.catalog)" <<< "$output"
    grep -q '^libe3/ab  instances: 10' <<< "$output"
    grep -q '^rx/ab  instances: 20' <<< "$output"
}

@test "catalogs: modelling mistakes get one warning line each, with counts" {
    mkdir -p "$D/W/catalogs"
    cat > "$D/W/catalogs/pipe.catalog" <<'EOF'
catalog pipe
stage 0x21 RX
stage 0x22 TX
stage 0x21 RECV
stage 0x30 TX
leg ingest RECV TX
leg echo TX
component pipe rx
EOF
    run --separate-stderr "$LATREC" report "$D/W"
    [ "$status" -eq 0 ]
    printf '%s\n' "$stderr" > "$D/w.err"
    grep -qx "latrec report: $D/W/catalogs/pipe.catalog: catalog 'pipe': 1 stage id given two names (first 0x21: RX, then RECV)" "$D/w.err"
    grep -qx "latrec report: $D/W/catalogs/pipe.catalog: catalog 'pipe': 1 stage name given to two ids (first TX: 0x22 and 0x30; the name means the lower id)" "$D/w.err"
    grep -qx "latrec report: catalog 'pipe': stage TX is in the chains of legs ingest and echo: 8 records of it, each given to one leg only" "$D/w.err"
    grep -qx "latrec report: catalog 'pipe': leg ingest: chain stages out of order in 5 of 8 instances (RECV stamped after TX by one thread, the chain says the reverse)" "$D/w.err"
    [ "$(wc -l < "$D/w.err")" = 4 ]
    # out of order: RECV (0x21) after TX by one thread in 5 of 8 instances
    cat > "$D/W/catalogs/pipe.catalog" <<'EOF'
catalog pipe
stage 0x21 RX
stage 0x22 TX
leg ingest RX TX
component pipe rx
EOF
    run --separate-stderr "$LATREC" report "$D/W"
    [ "$status" -eq 0 ]
    [ "$stderr" = "latrec report: catalog 'pipe': leg ingest: chain stages out of order in 5 of 8 instances (RX stamped after TX by one thread, the chain says the reverse)" ]
    # a path whose join matches nothing: ingest's seq 1..8 against OUT.aux 999
    # (OUT.aux2 carries the ingest seq)
    {
        echo "ring rx.401 pid=4000 catalog=pipe"
        for i in $(seq 1 8); do
            t=$((2000000000 + i * 1000000))
            echo "rec rx.401 0x21 $i $t"; echo "rec rx.401 0x22 $i $((t + 400))"
            echo "rec rx.401 0x23 $((100 + i)) $((t + 900)) 999 $i"
        done
    } | "$GEN" "$D/J"
    mkdir -p "$D/J/catalogs"
    cat > "$D/J/catalogs/pipe.catalog" <<'EOF'
catalog pipe
stage 0x21 RX
stage 0x22 TX
stage 0x23 OUT
leg ingest RX TX
leg out OUT
key out id OUT.aux
join ingest.seq out.id
path p ingest out
EOF
    run --separate-stderr "$LATREC" report "$D/J"
    [ "$status" -eq 0 ]
    [ "$stderr" = "latrec report: catalog 'pipe': path p: join ingest.seq = out.id matched nothing (8 path instances stopped there, 8 instances of later legs never joined)" ]
    run --separate-stderr "$LATREC" convert "$D/J" -o "$D/j_csv"
    [[ "$stderr" == *"path p: join ingest.seq = out.id matched nothing (8 path instances stopped there"* ]]
    # with matching keys (OUT.aux2 = the ingest seq): no warning
    sed -i 's/^key out id OUT.aux$/key out id OUT.aux2/' "$D/J/catalogs/pipe.catalog"
    run --separate-stderr "$LATREC" report "$D/J"
    [ "$status" -eq 0 ]
    [ -z "$stderr" ]
    grep -q '^path p  instances: 8  complete: 8' <<< "$output"
    # a run that stamps the first leg only (no OUT at all): nothing the join
    # could match, so no warning, the path's instances counted incomplete
    mkdir -p "$D/J1/catalogs"
    cp "$D/J/catalogs/pipe.catalog" "$D/J1/catalogs/"
    {
        echo "ring rx.401 pid=4000 catalog=pipe"
        for i in $(seq 1 8); do
            t=$((2000000000 + i * 1000000))
            echo "rec rx.401 0x21 $i $t"; echo "rec rx.401 0x22 $i $((t + 400))"
        done
    } | "$GEN" "$D/J1"
    run --separate-stderr "$LATREC" report "$D/J1"
    [ "$status" -eq 0 ]
    [ -z "$stderr" ]
    grep -q '^path p  instances: 8  complete: 0' <<< "$output"
    # the same from hist and convert; -q keeps them quiet
    run --separate-stderr "$LATREC" hist "$D/W"
    [[ "$stderr" == *"leg ingest: chain stages out of order in 5 of 8 instances"* ]]
    run --separate-stderr "$LATREC" convert "$D/W" -o "$D/w_csv"
    [[ "$stderr" == *"leg ingest: chain stages out of order in 5 of 8 instances"* ]]
    run --separate-stderr "$LATREC" report "$D/W" -q
    [ -z "$stderr" ]
    # a correct catalog: no warning
    run --separate-stderr env LATREC_CATALOG_PATH="$D/envpath" "$LATREC" report "$D/M"
    [ "$status" -eq 0 ]
    [ -z "$stderr" ]
}

@test "record --catalog: copies the catalog and its header; a bad catalog stops before the command runs" {
    command -v cc >/dev/null || skip "no C compiler"
    mkdir -p "$D/rc/inc"
    printf 'enum { APP_RX = 0x21, APP_TX };\n' > "$D/rc/inc/app.h"
    printf 'catalog app # mine\nstages-from inc/app.h APP_ # ids\nleg io RX TX\n' > "$D/rc/app.catalog"
    cd "$D/rc"
    run "$LATREC" record -q --no-sched -o "$D/rc/run" --catalog app.catalog -- true
    [ "$status" -eq 0 ]
    [ -f "$D/rc/run/catalogs/app.catalog" ] && [ ! -L "$D/rc/run/catalogs/app.catalog" ]
    cmp "$D/rc/inc/app.h" "$D/rc/run/catalogs/app.h"
    grep -qx 'stages-from app.h APP_' "$D/rc/run/catalogs/app.catalog"
    grep -qx 'leg io RX TX' "$D/rc/run/catalogs/app.catalog"
    # a run directory with catalogs/ is latrec's: -f replaces it (the third
    # record into one DIR, with DIR.old there)
    run "$LATREC" record -q --no-sched -o "$D/rc/run" --catalog app.catalog -- true
    [ "$status" -eq 0 ]
    run --separate-stderr "$LATREC" record -q --no-sched -f -o "$D/rc/run" --catalog app.catalog -- true
    [ "$status" -eq 0 ]
    [ -f "$D/rc/run/catalogs/app.catalog" ] && [ -f "$D/rc/run.old/catalogs/app.catalog" ]
    # the copy loads on its own, from anywhere
    cd /
    run "$LATREC" report "$D/M" --catalog "$D/rc/run/catalogs/app.catalog" -q
    [ "$status" -eq 0 ]
    grep -q '^rx/io  instances: 20' <<< "$output"
    # a catalog that does not load: exit 125, the command never ran
    printf 'leg x NOSUCH\n' > "$D/rc/bad.catalog"
    run --separate-stderr "$LATREC" record -q --no-sched -o "$D/rc/run2" --catalog "$D/rc/bad.catalog" -- touch "$D/rc/ran"
    [ "$status" -eq 125 ]
    [[ "$stderr" == *"$D/rc/bad.catalog:1: leg: unknown stage"* ]]
    [ ! -e "$D/rc/ran" ]
}

@test "README 'Your own pipeline', as written: header, program, catalog, record, report" {
    command -v cc >/dev/null || skip "no C compiler"
    command -v pkg-config >/dev/null || skip "no pkg-config"
    ! grep -q '^LATREC_SANITIZE:BOOL=ON' "$BUILD/CMakeCache.txt" ||
        skip "sanitizer build: the README's plain cc line cannot link a sanitized library"
    w="$D/readme"
    rm -rf "$w"
    mkdir -p "$w/prefix"
    cmake --install "$BUILD" --prefix "$w/prefix" > "$w/install.log" 2>&1
    pc=$(dirname "$(find "$w/prefix" -name latrec.pc -print -quit)")
    grep -q LATREC_ENABLE "$pc/latrec.pc" || skip "library built without LATREC_ENABLE: no rings to read"
    [ -d "$w/prefix/share/latrec/catalogs" ]
    # the README's files, byte for byte
    "${PY:-python3}" - "$SRC/README.md" "$w" <<'EOF'
import re, sys
text = open(sys.argv[1]).read()
blocks = re.findall(r"<!-- pipeline: (\S+) -->\n```[a-z]*\n(.*?)```", text, re.S)
assert sorted(n for n, _ in blocks) == ["pipe.c", "pipe.catalog", "pipe_stages.h", "run.sh"], blocks
for name, body in blocks:
    open(f"{sys.argv[2]}/{name}", "w").write(body)
EOF
    cd "$w"
    run env -u LATREC_OUTPUT_DIR -u LATREC_CATALOG_PATH PATH="$w/prefix/bin:$PATH" PKG_CONFIG_PATH="$pc" \
        LD_LIBRARY_PATH="$(dirname "$pc")" bash -euo pipefail run.sh
    printf '%s\n' "$output" > "$w/out.txt"
    [ "$status" -eq 0 ]
    grep -qx "# catalog: pipe (from piperun/catalogs/pipe.catalog)" "$w/out.txt"
    grep -q '^pipe/ingest  instances: 2000  complete: 2000' "$w/out.txt"
    grep -q '^pipe/answer  instances: 2000  complete: 2000' "$w/out.txt"
    # the catalog's path joins the two legs of every request
    grep -q '^path request  instances: 2000  complete: 2000' "$w/out.txt"
    grep -q '^PARSED->DECIDE  *ingest->answer  *2000 ' "$w/out.txt"
    # the parse sleeps 100 us, the decision 20 us: each leg's minimum is above its sleep
    min_ingest=$(cell "$w/out.txt" pipe/ingest RX-\>PARSED MIN_us)
    min_answer=$(cell "$w/out.txt" pipe/answer DECIDE-\>TX MIN_us)
    awk -v a="$min_ingest" -v b="$min_answer" 'BEGIN { exit !(a >= 100 && b >= 20) }'
    # the gate on the user's leg trips when crossed
    run env LD_LIBRARY_PATH="$w/prefix/lib" "$w/prefix/bin/latrec" report piperun -q \
        --fail-over 'pipe/answer:total:min>1us'
    [ "$status" -eq 4 ]
    # found from the installed share/latrec/catalogs too
    mkdir -p "$w/other"
    cp -r piperun/rings piperun/run.json "$w/other/"
    cp piperun/catalogs/* "$w/prefix/share/latrec/catalogs/"
    run env -u LATREC_CATALOG_PATH XDG_CONFIG_HOME="$w/none" "$w/prefix/bin/latrec" report "$w/other" -q
    grep -q '^pipe/ingest  instances: 2000  complete: 2000' <<< "$output"
    grep -q "pipe (from $w/prefix/bin/../share/latrec/catalogs/pipe.catalog)" <<< "$output"
}

@test "catalogs: a catalog name of the header field's whole 32 bytes is one catalog, named whole" {
    # (two rings of it were two catalogs of a name cut to 31 bytes, each
    # table with half the instances)
    n=pipe_with_a_name_of_32_bytes_xyz
    [ "${#n}" = 32 ]
    d="$BATS_TEST_TMPDIR/long"
    {
        echo "ring rx.501 pid=5000 catalog=x"
        echo "ring rx.502 pid=5001 catalog=x"
        for i in 1 2 3; do
            t=$((2000000000 + i * 1000000))
            echo "rec rx.501 0x21 $i $t"; echo "rec rx.501 0x22 $i $((t + 700))"
            echo "rec rx.502 0x21 $i $((t + 10))"; echo "rec rx.502 0x22 $i $((t + 910))"
        done
    } | "$GEN" "$d"
    # the whole field, no NUL (gen_synthetic, like liblatrec, keeps one): a
    # third-party writer's right (latrec-format(5): NUL-padded)
    for f in "$d"/*.latrec; do
        python3 -c 'import sys; f = open(sys.argv[1], "r+b"); f.seek(224); f.write(sys.argv[2].encode())' "$f" "$n"
    done
    run --separate-stderr "$LATREC" report "$d" --unit ns
    [ "$status" -eq 0 ]
    # one line on stderr: a catalog file's NAME has 31 bytes at most, so none is looked for
    [ "$stderr" = "latrec report: rings name catalog '$n', which is not built in and not found (searched nowhere: not a file name): stages shown by id, legs discovered (use --catalog FILE, or record --catalog FILE)" ]
    printf '%s\n' "${lines[@]}" > "$d/out.txt"
    grep -qx "# catalog: $n (named by the rings, not found: stages by id, legs discovered; use --catalog or record --catalog)" "$d/out.txt"
    grep -q '^rx/0x21>0x22 (discovered)  instances: 6  complete: 6' "$d/out.txt"
    [ "$(grep -c 'instances:' "$d/out.txt")" = 1 ]
}

@test "catalogs: a catalog name of control bytes and bytes that are not UTF-8 is shown escaped, the line one line" {
    # (an ESC sequence and a newline went to the terminal as they were, and
    # JSON's header lost its catalog key: jansson refuses bytes not UTF-8)
    d="$BATS_TEST_TMPDIR/bytes"
    {
        echo "ring rx.601 pid=6000 catalog=x"
        for i in 1 2 3; do
            t=$((2000000000 + i * 1000000))
            echo "rec rx.601 0x21 $i $t"; echo "rec rx.601 0x22 $i $((t + 700))"
        done
    } | "$GEN" "$d"
    python3 -c 'import sys; f = open(sys.argv[1], "r+b"); f.seek(224); f.write(b"a\x1b[2J\nb\xff\0")' "$d/rx.601.latrec"
    run --separate-stderr "$LATREC" report "$d" --unit ns
    [ "$status" -eq 0 ]
    [ "$stderr" = "latrec report: rings name catalog 'a\\x1b[2J\\x0ab\\xff', which is not built in and not found (searched nowhere: not a file name): stages shown by id, legs discovered (use --catalog FILE, or record --catalog FILE)" ]
    grep -qx '# catalog: a\\x1b\[2J\\x0ab\\xff (named by the rings, not found: stages by id, legs discovered; use --catalog or record --catalog)' <<< "$output"
    run --separate-stderr "$LATREC" report "$d" --format json
    [ "$status" -eq 0 ]
    python3 -c 'import json, sys; h = json.loads(sys.argv[1])["header"]; assert h["catalog"].startswith("a\\x1b[2J\\x0ab\\xff (named"), h' "$output"
}

@test "catalogs: a control character in a catalog file is one line naming the file and line, exit 1" {
    # (an ESC in a catalog, stage or leg name went to the terminal as it was)
    local f="$BATS_TEST_TMPDIR/esc.catalog"
    printf 'catalog pipe\nstage 0x21 R\033[2JX\nstage 0x22 TX\n' > "$f"
    run --separate-stderr "$LATREC" report "$D/M" --catalog "$f"
    [ "$status" -eq 1 ]
    [ "$stderr" = "latrec report: $f:2: a control character (0x1b) in a word" ]
    [ -z "$output" ]
}
