#!/usr/bin/env bats
bats_require_minimum_version 1.5.0
# Trust in what latrec writes and records: no output follows a symbolic
# link or replaces a file latrec did not write; a run directory in use is
# locked; -f checks everything before deleting anything; rings that could
# not be created are counted; a run latrec could not finish is said so;
# nothing latrec creates outlives the run unreported; every byte of the
# command survives into run.json.
#
# Needs LATREC, E3LOOP (ctest sets both, tests/workloads/CMakeLists.txt)
# and jq; root for the full-filesystem (tmpfs size=) tests, skipped with
# the reason otherwise.

setup_file() {
    : "${LATREC:?set LATREC to the latrec binary}"
    : "${E3LOOP:?set E3LOOP to the e3loop workload}"
    export RUN1="$BATS_FILE_TMPDIR/run1"
    "$LATREC" record -q -o "$RUN1" -- "$E3LOOP" --duration 0.3 --rate 500 >/dev/null 2>&1 || true
}

setup() {
    command -v jq >/dev/null || skip "jq is not installed (apt-get install jq)"
    [ -d "$RUN1/rings" ] || skip "the shared e3loop run could not be recorded"
    WORK="$(mktemp -d /tmp/latrec-trust-bats.XXXXXX)"
    cd "$WORK"
}

teardown() {
    cd /
    if [ -n "${BG_PID:-}" ]; then kill -KILL "$BG_PID" 2>/dev/null || true; wait "$BG_PID" 2>/dev/null || true; fi
    if [ -n "${MNT:-}" ]; then umount "$MNT" 2>/dev/null || true; fi
    rm -rf "$WORK"
}

# ---- outputs: never through a link, never over a file latrec did not write ----

@test "convert -o D: a symbolic link at D/records.csv is not followed, its target keeps its bytes" {
    mkdir D
    echo "precious" >precious.txt
    ln -s "$WORK/precious.txt" D/records.csv
    run "$LATREC" convert -q -o D "$RUN1"
    [ "$status" -eq 1 ]
    [ "$(cat precious.txt)" = precious ]
    [ -L D/records.csv ]
    [ "$output" = "latrec convert: D/records.csv: exists and is a symbolic link: left alone; move it away or write elsewhere" ]
    [ "${#lines[@]}" -eq 1 ]
    # nothing half-written is left beside it
    [ -z "$(find D -name '.records.csv.*')" ]
}

@test "convert -o D: a file latrec did not write is left alone; latrec's own files are replaced" {
    mkdir D
    echo "mine" >D/rings.csv
    run "$LATREC" convert -q -o D "$RUN1"
    [ "$status" -eq 1 ]
    [ "$(cat D/rings.csv)" = mine ]
    [ "$output" = "latrec convert: D/rings.csv: exists and is not written by latrec (its directory's .latrec-output does not list it): left alone; move it away or write elsewhere" ]
    # and no other file of that conversion was placed beside it
    [ "$(ls -A D)" = rings.csv ]
    # a directory convert made: written twice, the second replaces the first
    run "$LATREC" convert -q -o E "$RUN1"
    [ "$status" -eq 0 ]
    grep -qx records.csv E/.latrec-output
    grep -qx rings.csv E/.latrec-output
    local ino
    ino="$(stat -c %i E/records.csv)"
    run "$LATREC" convert -q -o E "$RUN1"
    [ "$status" -eq 0 ]
    [ "$(stat -c %i E/records.csv)" != "$ino" ]
    [ "$(grep -cx records.csv E/.latrec-output)" -eq 1 ]
    # a hard link to latrec's own file keeps the old data (rename, not truncate)
    ln E/rings.csv keep.csv
    local before
    before="$(md5sum <keep.csv)"
    run "$LATREC" convert -q -o E "$RUN1"
    [ "$status" -eq 0 ]
    [ "$(md5sum <keep.csv)" = "$before" ]
}

@test "convert --format chrome: a symbolic link at trace.json is not followed" {
    mkdir D
    echo "precious" >precious.txt
    ln -s "$WORK/precious.txt" D/trace.json
    run "$LATREC" convert -q --format chrome -o D "$RUN1"
    [ "$status" -eq 1 ]
    [ "$(cat precious.txt)" = precious ]
    [ "$output" = "latrec convert: D/trace.json: exists and is a symbolic link: left alone; move it away or write elsewhere" ]
}

# ---- the run directory: locked while in use, -f checks before deleting ----------

load record_helpers

@test "a run directory in use is locked: a second record is refused naming the running one; report says the run is in progress" {
    "$LATREC" record -q -o r -- "$E3LOOP" --duration 30 --rate 200 >/dev/null 2>&1 &
    BG_PID=$!
    wait_running r
    local id
    id="$(jq -r .run_id r/run.json)"
    [ "$(jq -r .state r/run.json)" = recording ]
    [ "$(jq -r .latrec_pid r/run.json)" = "$BG_PID" ]
    run "$LATREC" record -q -o r -- true
    [ "$status" -eq 125 ]
    [ "${#lines[@]}" -eq 1 ]
    [[ "$output" == *"r: in use by a running latrec record (latrec pid $BG_PID, run $id: "*"e3loop --duration 30 --rate 200)"* ]]
    [ ! -e r.old ]
    [ "$(jq -r .run_id r/run.json)" = "$id" ]
    # -f does not take it either
    "$LATREC" record -q -o r2 -- true
    mkdir r.old
    run "$LATREC" record -q -f -o r -- true
    [ "$status" -eq 125 ]
    [[ "$output" == *"in use by a running latrec record"* ]]
    [ -e r/run.json ]
    # report on the live run: in progress, not "recorded without the scheduler collector"
    sleep 0.5
    run "$LATREC" report r
    [[ "$output" == *"r: still being recorded (latrec pid $BG_PID)"* ]]
    [[ "$output" != *"recorded without the scheduler collector"* ]]
    kill -INT "$BG_PID"
    wait "$BG_PID" || true
    BG_PID=
    [ "$(jq -r .state r/run.json)" = finished ]
}

@test "SIGKILL of latrec: the command dies with it; report and the next record say the run never finished" {
    "$LATREC" record -q -o r -- sleep 60 >/dev/null 2>&1 &
    BG_PID=$!
    wait_running r
    local child i
    child="$(jq -r .pid r/run.json)"
    kill -0 "$child"
    kill -KILL "$BG_PID"
    wait "$BG_PID" || true
    BG_PID=
    for i in $(seq 100); do kill -0 "$child" 2>/dev/null || break; sleep 0.05; done
    run kill -0 "$child"
    [ "$status" -ne 0 ]
    [ "$(jq -r .state r/run.json)" = recording ]
    run "$LATREC" report r
    [[ "$output" == *"r: its recording never finished (latrec pid "*" ended without finalising run.json: killed?)"* ]]
    run "$LATREC" record -o r -- true
    [ "$status" -eq 0 ]
    [[ "$output" == *"r: its run never finished"*"its command, pid $child, is gone"* ]]
    [ "$(jq -r .state r.old/run.json)" = recording ]
    # the next run's rings directory is gone after it; the killed run's is named in its run.json
    local tmp
    tmp="$(jq -r .rings_tmp r.old/run.json)"
    [ -n "$tmp" ]
    rm -rf "$tmp"
}

@test "record -f checks names and file types of everything before deleting anything" {
    "$LATREC" record -q -o r -- true
    "$LATREC" record -q -o r -- true
    [ -d r.old ]
    rm -rf r/rings && mkdir -p r/rings/a.latrec r/trace.txt
    touch r/rings/b.latrec r/sched.latrec
    local before
    before="$(find r | sort)"
    run "$LATREC" record -q -f -o r -- true
    [ "$status" -eq 125 ]
    [ "${#lines[@]}" -eq 1 ]
    [[ "$output" == *"-f deleted nothing and leaves r alone"* ]]
    [ "$(find r | sort)" = "$before" ]
    # a symbolic link among the known names is not latrec's either
    rm -rf r/rings/a.latrec r/trace.txt
    ln -s /etc/passwd r/trace.txt
    run "$LATREC" record -q -f -o r -- true
    [ "$status" -eq 125 ]
    [[ "$output" == *"r/trace.txt: a symbolic link"* ]]
    [ -e r/run.json ] && [ -e r/rings/b.latrec ]
}

@test "record -f replaces a run directory holding what latrec convert wrote into it" {
    "$LATREC" record -q -o r -- "$E3LOOP" --duration 0.2 --rate 200
    "$LATREC" record -q -o r -- "$E3LOOP" --duration 0.2 --rate 200
    run "$LATREC" convert -q r
    [ "$status" -eq 0 ]
    [ -f r/csv/records.csv ]
    run "$LATREC" convert -q -o r r.old
    [ "$status" -eq 0 ]
    [ -f r/rings.csv ]
    touch r.old/keep-me
    run "$LATREC" record -q -f -o r -- true
    [ "$status" -eq 0 ]
    [ ! -e r/csv ] && [ ! -e r/rings.csv ]
    [ -e r.old/keep-me ]
    # a file convert did not list stops -f
    "$LATREC" convert -q r.old -o r/csv
    touch r/csv/notes.txt
    run "$LATREC" record -q -f -o r -- true
    [ "$status" -eq 125 ]
    [[ "$output" == *"r/csv/notes.txt: not written by latrec"* ]]
    [ -e r/csv/records.csv ]
}

# ---- rings that could not be made, moved or finished: counted and said -----------

need_root_tmpfs() {
    [ "$(id -u)" -eq 0 ] || skip "not root: a small full filesystem needs mount -t tmpfs -o size="
    MNT="$WORK/mnt"
    mkdir -p "$MNT"
    mount -t tmpfs -o "size=$1" latrec-test "$MNT" || skip "cannot mount a tmpfs here"
}

@test "--rings-dir on a full filesystem: every ring that failed to open is counted per role in run.json and the summary" {
    need_root_tmpfs 64k
    run --separate-stderr "$LATREC" record -o r --rings-dir "$MNT" -- "$E3LOOP" --duration 0.3 --rate 200
    [ "$status" -eq 0 ]
    # the library's own lines, one per ring it could not create: the independent count
    local want
    want="$(grep -c '^latrec: /.*\.part: cannot allocate .* No space left on device$' <<<"$stderr")"
    [ "$want" -ge 2 ]
    [ "$(jq -r .collectors.rings.failed_to_open r/run.json)" = "$want" ]
    [ "$(jq '[.collectors.rings.failed_to_open_roles[].rings] | add' r/run.json)" = "$want" ]
    jq -e '.collectors.rings.failed_to_open_roles[] | select(.role == "dapp") | .reason | test("No space left on device")' r/run.json
    [[ "$stderr" == *"latrec record: no rings ($want rings could not be created ("*"dapp x1: "*"No space left on device"* ]]
    [[ "$stderr" != *"not instrumented?"* ]]
    [ ! -e r/rings-failed.log ]
    [ -z "$(ls -A "$MNT")" ]
}

@test "ENOSPC while moving the rings: every ring stays where run.json says, report reads them there and says so; the summary tells the command's status apart" {
    # room for run.json, not for the five rings: copied sparse (their
    # empty slots take no room), each takes its header's page and one of
    # records at least
    need_root_tmpfs 32k
    run --separate-stderr "$LATREC" record -o "$MNT/r" -- "$E3LOOP" --duration 0.3 --rate 200
    [ "$status" -eq 125 ]
    [[ "$stderr" == *"No space left on device"* ]]
    [[ "$stderr" == *"the command exited 0; latrec exits 125 (it failed: see above)"* ]]
    [[ "$stderr" != *"the command exited 125"* ]]
    local tmp n
    tmp="$(jq -r .rings_tmp "$MNT/r/run.json")"
    [ "$(jq -r .state "$MNT/r/run.json")" = failed ]
    [ "$(jq -r .rings_dir "$MNT/r/run.json")" = "$tmp" ]
    [ "$(readlink "$MNT/r/rings")" = "$tmp" ]
    n="$(find "$tmp" -name '*.latrec' | wc -l)"
    [ "$n" -ge 2 ]
    [ "$(jq -r .collectors.rings.failed "$MNT/r/run.json")" = "$n" ]
    [ -z "$(find "$MNT/r" -name '.rings.new' -o -name '*.part')" ]
    run --separate-stderr "$LATREC" report --format json "$MNT/r"
    [ "$status" -eq 0 ]
    [[ "$stderr" == *"$MNT/r: rings read from $tmp, where run.json says they are"* ]]
    # the program's rings; sched.latrec is counted apart, as its collector's
    [ "$(jq '.header.rings' <<<"$output")" = "$n" ]
    if [ -e "$MNT/r/sched.latrec" ]; then
        [ "$(jq -r '.header.sched.ring' <<<"$output")" = sched.latrec ]
    fi
    rm -rf "$tmp"
}

@test "run.json that cannot be written (a full filesystem): said once, exit 125" {
    need_root_tmpfs 64k
    # (the first write and the rewrites at the end each said the same line)
    dd if=/dev/zero of="$MNT/fill" bs=4k 2>/dev/null || true
    run --separate-stderr "$LATREC" record -q -o "$MNT/r" -- "$E3LOOP" --duration 0.3 --rate 200
    [ "$status" -eq 125 ]
    [ "$(grep -c 'run.json' <<<"$stderr")" = 1 ]
    grep -qx "latrec record: $MNT/r/run.json: No space left on device" <<<"$stderr"
    # no run directory left without its run.json (an empty r/rings was)
    [ ! -e "$MNT/r" ]
    [[ "$stderr" != *"cannot remove"* ]]
}

@test "a full filesystem under the live sched.latrec: record is not killed by SIGBUS, it says why and finishes the run" {
    need_root_tmpfs 512k
    "$LATREC" record -q --require-sched -o probe -- true >/dev/null 2>&1 || skip "no scheduler data here"
    # about 10^5 scheduler events (3 MB in sched.latrec) for a 512 KiB filesystem
    run --separate-stderr "$LATREC" record -o "$MNT/r" -- "$E3LOOP" --duration 1 --threads 4 --rate 4000
    local tmp
    tmp="$(jq -r .rings_tmp "$MNT/r/run.json")"
    [[ "$tmp" == /dev/shm/latrec-* ]] && rm -rf "$tmp"
    [ "$status" -eq 125 ] || { echo "status $status: $stderr"; return 1; }
    [[ "$stderr" == *"collector sched: "*"No space left on device"* ]]
    [[ "$stderr" == *"the command exited 0; latrec exits 125 (it failed: see above)"* ]]
    [ "$(jq -r .state "$MNT/r/run.json")" = failed ]
    jq -e '.collectors.sched.live.reason | test("No space left on device")' "$MNT/r/run.json"
}

@test "the command dies while creating a ring: its partial file is removed and counted, the ring directory is gone" {
    run --separate-stderr "$LATREC" record -o r -- sh -c 'head -c 1048576 /dev/zero >"$LATREC_OUTPUT_DIR/x.1.latrec.part"; kill -KILL $$'
    [ "$status" -eq 137 ]
    local tmp
    tmp="$(jq -r .rings_tmp r/run.json)"
    [ ! -e "$tmp" ]
    [ "$(jq -r .collectors.rings.partial_removed r/run.json)" = 1 ]
    [ "$(jq -r .collectors.rings.partial_removed_bytes r/run.json)" = 1048576 ]
    [[ "$stderr" == *"1 partial ring removed (1.0 MiB: the command died while creating them)"* ]]
    [ -d r/rings ] && [ ! -L r/rings ]
}

@test "a launch that fails after the run directory exists leaves no ring directory and no dangling link" {
    # the first cpu this machine does not have: the child fails setting its affinity
    run "$LATREC" record -q -o r -c "$(nproc --all)" -- true
    [ "$status" -eq 125 ]
    local tmp
    tmp="$(jq -r .rings_tmp r/run.json)"
    [[ "$tmp" == /dev/shm/latrec-* ]]
    [ ! -e "$tmp" ]
    [ -d r/rings ] && [ ! -L r/rings ]
    [ "$(jq -r .rings_dir r/run.json)" = rings ]
    [ ! -e r/rings-failed.log ]
}

# ---- every byte of names and commands kept ------------------------------------------

@test "argv and cwd that are not UTF-8 keep every byte in run.json (escaped, flagged); a long command is not cut" {
    local odd long d
    odd="$(printf 'a\xffb\\c')"
    long="$(head -c 6000 /dev/zero | tr '\0' x)"
    d="$(printf 'cwd\xfe')"
    mkdir "$d" && cd "$d"
    run "$LATREC" record -q -o "$WORK/r" -- true "$odd" "$long"
    [ "$status" -eq 0 ]
    cd "$WORK"
    [ "$(jq -r '.argv[1]' r/run.json)" = 'a\xffb\\c' ]
    [ "$(jq -c .argv_escaped r/run.json)" = "[1]" ]
    [ "$(jq -r .command_escaped r/run.json)" = true ]
    [ "$(jq -r '.argv[2] | length' r/run.json)" = 6000 ]
    [ "$(jq -r '.command | length' r/run.json)" -gt 6000 ]
    [[ "$(jq -r .command r/run.json)" == "true 'a\\xffb\\\\c' x"*x ]]
    [ "$(jq -r .command_cut r/run.json)" = null ]
    [ "$(jq -r .cwd r/run.json)" = "$WORK/cwd\\xfe" ]
    [ "$(jq -r .cwd_escaped r/run.json)" = true ]
    # report's JSON header carries the command (not null)
    cp -r "$RUN1/rings" r/
    run --separate-stderr "$LATREC" report --format json r
    [ "$(jq -r .header.command <<<"$output")" != null ]
}

@test "ring names with control characters or bytes that are not UTF-8: JSON keeps every byte, text output escapes them" {
    mkdir -p w && cp -r "$RUN1/rings" "$RUN1/run.json" w/
    local f
    f="$(ls w/rings/*.latrec | head -1)"
    # the ring header's name (offset 40, 64 bytes): an escape sequence and 0xff before it
    python3 - "$f" <<'PY'
import sys
p = sys.argv[1]
b = bytearray(open(p, 'rb').read())
name = bytes(b[40:104]).split(b'\0')[0]
new = b'e\x1b[31m\xff' + name[:40]
b[40:104] = new + b'\0' * (64 - len(new))
open(p, 'wb').write(b)
PY
    run --separate-stderr "$LATREC" report --top 3 w
    [ "$status" -eq 0 ]
    [[ "$output" == *'e\x1b[31m\xff'* ]]
    [ "$(grep -c $'\x1b' <<<"$output")" -eq 0 ]
    # the --top table's RING cells escaped once (libsmartcols made "\x5cx1b" of them)
    [ "$(grep -c '^ *[0-9]\+ .* e\\x1b\[31m\\xff' <<<"$output")" -ge 3 ]
    [[ "$output" != *'\x5c'* ]]
    run --separate-stderr "$LATREC" report --format json --top 3 w
    [ "$status" -eq 0 ]
    [ "$(jq '[.. | objects | select(.ring_escaped == true) | .ring | startswith("e\u001b[31m\\xff")] | length > 0' <<<"$output")" = true ]
    # and the file name of a ring in run.json
    run "$LATREC" record -q -o r2 -- sh -c 'cp "$0" "$LATREC_OUTPUT_DIR/$(printf "x\001\377").latrec"' "$f"
    [ "$status" -eq 0 ]
    [ "$(jq -r '.collectors.rings.files[0].name_escaped' r2/run.json)" = true ]
    [ "$(jq -r '.collectors.rings.files[0].name' r2/run.json)" = "$(printf 'x\001')\\xff.latrec" ]
    # valid UTF-8 in a ring name: report's and top's tables show its bytes as
    # \xHH and top does not spin for ever measuring them (SIGKILL at 60 s)
    python3 - "$f" <<'PY'
import sys
p = sys.argv[1]
b = bytearray(open(p, 'rb').read())
new = 'w\u00f6rker\u2603.1'.encode()
b[40:104] = new + b'\0' * (64 - len(new))
open(p, 'wb').write(b)
PY
    run --separate-stderr "$LATREC" report --top 1 w
    [ "$status" -eq 0 ]
    [[ "$output" == *' w\xc3\xb6rker\xe2\x98\x83.1 '* ]]
    run --separate-stderr timeout -s KILL 60 "$LATREC" top -d 500ms w
    [ "$status" -eq 0 ] || { echo "top: status $status"; return 1; }
    [[ "$output" == *'w\xc3\xb6rker\xe2\x98\x83.1 '* ]]
}

@test "a ring directory that cannot be made: one line, and no run directory without a run.json is left" {
    touch notadir
    run "$LATREC" record -q -o r --rings-dir notadir/x -- true
    [ "$status" -eq 125 ]
    [ "${#lines[@]}" -eq 1 ]
    [[ "$output" == *"notadir/x: cannot create: Not a directory"* ]]
    [ ! -e r ]
    # a previous run kept as r.old is untouched
    "$LATREC" record -q -o r -- true
    run "$LATREC" record -q -o r --rings-dir notadir/x -- true
    [ "$status" -eq 125 ]
    [ -f r.old/run.json ] && [ ! -e r ]
}
