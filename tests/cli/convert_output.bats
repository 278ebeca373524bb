#!/usr/bin/env bats
# latrec convert: its output directory (what it creates, refuses, replaces,
# and leaves when a write fails), the chrome trace, --wall, --watch and
# catalogs. The ring writer and the checks are convert_rings.py's
# (convert_common.bash); convert.bats checks the tables themselves.

bats_require_minimum_version 1.5.0
load nobody
load convert_common

# ---------------------------------------------------------------------------
# the output directory

@test "output: a directory name past 4095 bytes is refused, never cut short (convert wrote into its first 4095 bytes)" {
    # DIR of 4094 bytes holding rings: DIR/csv does not fit, and cut short it was DIR/ itself
    d="$("$PY" -c '
import sys
p = sys.argv[1] + "/long"
while len(p) < 4094 - 200: p += "/" + "d" * 199
print(p + "/" + "e" * (4094 - len(p) - 1))' "$BATS_TEST_TMPDIR")"
    [ "${#d}" -eq 4094 ]
    mkdir -p "$d"
    cp "$RINGS/b4_limits"/*.latrec "$d/"
    run --separate-stderr "$LATREC" convert -q "$d"
    [ "$status" -eq 1 ]
    # (its run.json's name is too long to read as well: said on the line before)
    [ "${stderr_lines[-1]}" = "latrec convert: ${d:0:200}...: the output directory's name is longer than 4095 bytes; use -o" ]
    [ "$(ls -A "$d" | grep -vc '\.latrec$')" -eq 0 ] # nothing written beside the rings
    run --separate-stderr "$LATREC" convert -q -o "$d/xy" "$RINGS/b4_limits"
    [ "$status" -eq 2 ]
    [ "${stderr_lines[0]}" = "latrec convert: -o: a directory name of 4097 bytes (at most 4095)" ]
    [ "$(ls -A "$d" | grep -vc '\.latrec$')" -eq 0 ]
}

@test "output: default directory is <DIR>/csv; a summary line unless -q" {
    d="$(scenario_copy b4_limits)"
    run --separate-stderr "$LATREC" convert "$d"
    [ "$status" -eq 0 ]
    [ -z "$output" ]
    [ "${stderr_lines[0]}" = "latrec convert: 3 rings (0 skipped), 27 records -> $d/csv" ]
    [ -s "$d/csv/rings.csv" ] && [ -s "$d/csv/records.csv" ] && [ -s "$d/csv/libe3.csv" ]
    # its source leg instances start E3 paths that go no further: paths.csv
    [ -s "$d/csv/paths.csv" ]
    [ "$(ls "$d/csv" | wc -l)" -eq 4 ]
}

@test "output: a default <DIR>/csv that is a symbolic link is not followed: one line, exit 1, nothing written where it points" {
    # (the run directory may be anyone's; convert wrote the tables and its
    # marker into whatever directory a link there named)
    d="$(scenario_copy b4_limits)"
    mkdir "$BATS_TEST_TMPDIR/elsewhere"
    ln -s "$BATS_TEST_TMPDIR/elsewhere" "$d/csv"
    run --separate-stderr "$LATREC" convert "$d"
    [ "$status" -eq 1 ]
    [ "$stderr" = "latrec convert: $d/csv: a symbolic link, not followed (give -o to write where it points)" ]
    [ -z "$(ls -A "$BATS_TEST_TMPDIR/elsewhere")" ]
    # named with -o, the link is the user's choice
    run --separate-stderr "$LATREC" convert -q -o "$d/csv" "$d"
    [ "$status" -eq 0 ]
    [ -f "$BATS_TEST_TMPDIR/elsewhere/records.csv" ]
}

@test "output: a SIGTERM mid-write leaves no temporary file and no half-written output" {
    command -v strace >/dev/null || skip "strace is not installed (it slows convert's writes down here)"
    d="$(scenario_copy b1_loop_clean)"
    # every write(2) of convert waits 300 ms, so the signal lands mid-file
    strace -f -qq -o /dev/null -e trace=write -e inject=write:delay_enter=300000 \
        "$LATREC" convert -q "$d" -o "$OUT" &
    BG_PID=$!
    for _ in $(seq 1 200); do
        compgen -G "$OUT/.*.??????" >/dev/null && break
        sleep 0.05
    done
    compgen -G "$OUT/.*.??????" >/dev/null || { echo "no temporary file appeared"; false; }
    kill -TERM "$(pgrep -P "$BG_PID")" # the traced latrec, strace's child
    wait "$BG_PID" || true
    BG_PID=
    left="$(cd "$OUT" && ls -A | grep -v '^\.latrec-output$' || true)"
    # what was committed before the signal is whole; nothing else is there
    for f in $left; do
        case "$f" in .*) echo "temporary left: $f"; false ;; esac
    done
    true
}

# A ring whose records.csv is about 44 MB (rows of ~110 bytes: a long ring
# name), for the tests of a full filesystem.
big_ring() {
    mkdir -p "$1"
    "$PY" - "$LR" "$1" <<'PY'
import sys, importlib.util
spec = importlib.util.spec_from_file_location('lr', sys.argv[1]); lr = importlib.util.module_from_spec(spec)
spec.loader.exec_module(lr)
name = 'full.' + 'x' * 52 + '.5'
lr.mkring(sys.argv[2] + '/' + name + '.latrec', 2, name, 1 << 19, 400000,
          [(s, 0x21, 3000000000 + 1000 * s, 3 * s, s & 7) for s in range(1, 400001)])
PY
}

# convert -o into a full filesystem: one line names the file that could not
# be written, exit 1, and nothing half-written is left in the directory.
full_convert() {
    run --separate-stderr "$LATREC" convert -q -o "$MNT/csv" "$BATS_TEST_TMPDIR/big"
    echo "status $status: $stderr"
    [ "$status" -eq 1 ]
    [ "$stderr" = "latrec convert: $MNT/csv/records.csv: No space left on device" ]
    [ -z "$(cd "$MNT/csv" && ls -A | grep -v '^\.latrec-output$')" ]
}

@test "output: a full filesystem (tmpfs: buffered writes) is one line naming records.csv, exit 1, nothing half-written left" {
    [ "$(id -u)" -eq 0 ] || skip "not root: a small full filesystem needs mount -t tmpfs -o size="
    MNT="$BATS_TEST_TMPDIR/mnt"
    mkdir -p "$MNT"
    mount -t tmpfs -o size=24m latrec-test "$MNT" || skip "cannot mount a tmpfs here"
    big_ring "$BATS_TEST_TMPDIR/big"
    full_convert
}

@test "output: a full filesystem (ext4: records.csv past 16 MiB goes out with O_DIRECT) is one line naming it, exit 1" {
    [ "$(id -u)" -eq 0 ] || skip "not root: a small ext4 filesystem needs mount -o loop"
    command -v mkfs.ext4 >/dev/null || skip "mkfs.ext4 is not installed (apt-get install e2fsprogs)"
    LOOP_IMG="$(mktemp /tmp/latrec-convert-ext4.XXXXXX)"
    truncate -s 32m "$LOOP_IMG"
    mkfs.ext4 -q -F "$LOOP_IMG" || skip "mkfs.ext4 failed here"
    MNT="$BATS_TEST_TMPDIR/mnt"
    mkdir -p "$MNT"
    mount -o loop "$LOOP_IMG" "$MNT" || skip "cannot mount an ext4 image here (no loop devices?)"
    big_ring "$BATS_TEST_TMPDIR/big"
    full_convert
    # the same convert into a directory with room: the bytes the O_DIRECT
    # blocks and the buffered tail wrote are records.csv's, row for row
    run "$LATREC" convert -q -o "$BATS_TEST_TMPDIR/csv" "$BATS_TEST_TMPDIR/big"
    [ "$status" -eq 0 ]
    run "$PY" - "$BATS_TEST_TMPDIR/csv/records.csv" <<'PY'
import sys
n = 0
with open(sys.argv[1]) as f:
    assert f.readline().startswith('t_ns,ring,'), 'header'
    for n, line in enumerate(f, 1):
        s = n
        c = line.rstrip('\n').split(',')
        assert (int(c[0]), int(c[5]), int(c[10]), int(c[11])) == (3000000000 + 1000 * s, s, 3 * s, s & 7), line
print(n)
PY
    [ "$output" = 400000 ]
}

# The files of OUT (its marker included) with their sha256, for "left as
# it was" checks.
out_state() {
    (cd "$1" && find . -mindepth 1 -printf '%y %p\n' | sort && find . -type f -exec sha256sum {} + | sort -k2)
}

@test "output: a .latrec-output that is a symbolic link: one line naming it, before anything is written; nothing followed" {
    mkdir -p "$OUT"
    echo keep > "$BATS_TEST_TMPDIR/precious"
    ln -s "$BATS_TEST_TMPDIR/precious" "$OUT/.latrec-output"
    for fmt in csv chrome; do
        run --separate-stderr "$LATREC" convert -q --format "$fmt" -o "$OUT" "$RINGS/b1_loop_clean"
        [ "$status" -eq 1 ]
        want=records.csv
        [ "$fmt" = csv ] || want=trace.json
        [ "$stderr" = "latrec convert: $OUT/.latrec-output: cannot list $want in it: a symbolic link, not followed" ]
        [ "$(ls -A "$OUT")" = .latrec-output ] # no output, no temporary
        [ "$(cat "$BATS_TEST_TMPDIR/precious")" = keep ]
    done
}

@test "output: a .latrec-output convert may not write: one line naming it; nothing placed unlisted, so the next convert replaces all" {
    OPEN_DIR="$(mktemp -d /tmp/latrec-convert-bats.XXXXXX)"
    chmod 755 "$OPEN_DIR"
    lat="$LATREC"
    as=()
    if [ "$(id -u)" -eq 0 ]; then # root writes anything: run as nobody
        nobody_programs "$OPEN_DIR/bin" lat || skip "nobody cannot reach $OPEN_DIR"
        as=(setpriv --reuid=65534 --regid=65534 --clear-groups)
    fi
    # the rings where nobody reads them (a 0700 checkout hides the fixtures)
    mkdir -m 755 "$OPEN_DIR/b1"
    install -m 644 "$RINGS/b1_loop_clean"/*.latrec "$OPEN_DIR/b1/"
    out="$OPEN_DIR/out"
    mkdir "$out"
    : > "$out/.latrec-output"
    chmod 444 "$out/.latrec-output"
    [ "$(id -u)" -ne 0 ] || chown 65534:65534 "$out"
    chmod 755 "$out"
    run --separate-stderr "${as[@]}" "$lat" convert -q -o "$out" "$OPEN_DIR/b1"
    [ "$status" -eq 1 ]
    [ "$stderr" = "latrec convert: $out/.latrec-output: cannot list records.csv in it: Permission denied" ]
    [ "$(ls -A "$out")" = .latrec-output ]
    [ ! -s "$out/.latrec-output" ]
    # writable again: every file is written and listed, and a second convert replaces them
    chmod 644 "$out/.latrec-output"
    [ "$(id -u)" -ne 0 ] || chown 65534:65534 "$out/.latrec-output"
    for _ in 1 2; do
        run --separate-stderr "${as[@]}" "$lat" convert -q -o "$out" "$OPEN_DIR/b1"
        echo "$stderr"
        [ "$status" -eq 0 ]
    done
    [ "$(cd "$out" && ls | sort | tr '\n' ' ')" = "dapp.csv libe3.csv oai.csv paths.csv records.csv rings.csv " ]
    [ "$(grep -v '^#' "$out/.latrec-output" | sort | tr '\n' ' ')" = "dapp.csv libe3.csv oai.csv paths.csv records.csv rings.csv " ]
}

@test "output: one rule on a failure: a name that is not latrec's (dapp.csv) leaves DIR as it was, the earlier conversion's files whole" {
    run "$LATREC" convert -q -o "$OUT" "$RINGS/b4_limits"
    [ "$status" -eq 0 ]
    echo "the user's" > "$OUT/dapp.csv" # b1 has a dapp component; b4 has none
    before="$(out_state "$OUT")"
    run --separate-stderr "$LATREC" convert -q -o "$OUT" "$RINGS/b1_loop_clean"
    [ "$status" -eq 1 ]
    [ "$stderr" = "latrec convert: $OUT/dapp.csv: exists and is not written by latrec (its directory's .latrec-output does not list it): left alone; move it away or write elsewhere" ]
    [ "$(out_state "$OUT")" = "$before" ]
}

@test "output: the tables of an earlier conversion this one does not write stop it (named, nothing placed); -f removes them, never a file latrec did not write" {
    # b1 has dapp, libe3 and oai components; b4 libe3 only: dapp.csv and oai.csv would stay beside b4's tables
    run "$LATREC" convert -q -o "$OUT" "$RINGS/b1_loop_clean"
    [ "$status" -eq 0 ]
    echo "the user's" > "$OUT/notes.csv" # not listed: never latrec's to remove
    before="$(out_state "$OUT")"
    run --separate-stderr "$LATREC" convert -q -o "$OUT" "$RINGS/b4_limits"
    [ "$status" -eq 1 ]
    [ "$stderr" = "latrec convert: $OUT/dapp.csv, oai.csv: written there by latrec before (its .latrec-output lists them), not by this conversion: nothing placed, so that the directory does not mix two runs' tables; give -f to remove them, or write elsewhere" ]
    [ "$(out_state "$OUT")" = "$before" ]
    # again with b1: the same files, nothing stale
    run --separate-stderr "$LATREC" convert -q -o "$OUT" "$RINGS/b1_loop_clean"
    [ "$status" -eq 0 ]
    [ -z "$stderr" ]
    # -f: b4's tables in place, b1's others gone, their names out of the marker; notes.csv kept
    run --separate-stderr "$LATREC" convert -f -o "$OUT" "$RINGS/b4_limits"
    [ "$status" -eq 0 ]
    printf '%s\n' "${stderr_lines[@]}" | grep -Fxq "latrec convert: -f: removed dapp.csv, oai.csv (an earlier conversion's, not written by this one)"
    [ "$(cd "$OUT" && ls | sort | tr '\n' ' ')" = "libe3.csv notes.csv paths.csv records.csv rings.csv " ]
    [ "$(grep -v '^#' "$OUT/.latrec-output" | sort | tr '\n' ' ')" = "libe3.csv paths.csv records.csv rings.csv " ]
    [ "$(cat "$OUT/notes.csv")" = "the user's" ]
    [ "$(tail -n +2 "$OUT/records.csv" | wc -l)" -eq 27 ] # b4's records
    # a dapp.csv made now is the user's: b1 refuses to replace it, as any file latrec did not write
    echo "the user's too" > "$OUT/dapp.csv"
    run --separate-stderr "$LATREC" convert -q -f -o "$OUT" "$RINGS/b1_loop_clean"
    [ "$status" -eq 1 ]
    [ "$stderr" = "latrec convert: $OUT/dapp.csv: exists and is not written by latrec (its directory's .latrec-output does not list it): left alone; move it away or write elsewhere" ]
    rm "$OUT/dapp.csv"
    # a timeline beside the tables is not a table: neither stops the other
    run --separate-stderr "$LATREC" convert -q --format chrome -o "$OUT" "$RINGS/b4_limits"
    [ "$status" -eq 0 ]
    run --separate-stderr "$LATREC" convert -q -o "$OUT" "$RINGS/b4_limits"
    [ "$status" -eq 0 ]
    [ -s "$OUT/trace.json" ]
    # one stale file: "it"
    run "$LATREC" convert -q -o "$OUT" "$RINGS/b1_loop_clean"
    [ "$status" -eq 0 ]
    rm "$OUT/oai.csv"
    run --separate-stderr "$LATREC" convert -q -o "$OUT" "$RINGS/b4_limits"
    [ "$status" -eq 1 ]
    [ "$stderr" = "latrec convert: $OUT/dapp.csv: written there by latrec before (its .latrec-output lists it), not by this conversion: nothing placed, so that the directory does not mix two runs' tables; give -f to remove it, or write elsewhere" ]
}

@test "output: a convert (or report -o) into DIR while another latrec writes there is refused in one line; DIR keeps the other's files" {
    run "$LATREC" convert -q -o "$OUT" "$RINGS/b1_loop_clean"
    [ "$status" -eq 0 ]
    before="$(out_state "$OUT")"
    # the lock held (flock(1) on DIR/.latrec-lock) as a convert running there holds it
    lock_msg="another latrec is writing into it (it holds $OUT/.latrec-lock); wait for it to end, or write elsewhere"
    run --separate-stderr flock -n "$OUT/.latrec-lock" "$LATREC" convert -q -o "$OUT" "$RINGS/b4_limits"
    [ "$status" -eq 1 ]
    [ "$stderr" = "latrec convert: $OUT: $lock_msg" ]
    run --separate-stderr flock -n "$OUT/.latrec-lock" "$LATREC" report -q -o "$OUT/r.txt" "$RINGS/b4_limits"
    [ "$status" -eq 1 ]
    [ "$stderr" = "latrec report: $OUT: $lock_msg" ]
    rm "$OUT/.latrec-lock"
    [ "$(out_state "$OUT")" = "$before" ]
    # let go (a killed holder's empty lock file left): written, the lock file gone
    : > "$OUT/.latrec-lock"
    run --separate-stderr "$LATREC" convert -q -o "$OUT" "$RINGS/b1_loop_clean"
    [ "$status" -eq 0 ]
    [ "$(cd "$OUT" && ls -A | sort | tr '\n' ' ')" = ".latrec-output dapp.csv libe3.csv oai.csv paths.csv records.csv rings.csv " ]
}

@test "output: a second convert while one writes into DIR is refused in one line, not placed over its half; a SIGTERM lets the lock go" {
    command -v strace >/dev/null || skip "strace is not installed (it slows the first convert's writes down here)"
    # (both saw the names free; the second's rename failed 'File exists' and
    # its undo took the first's names out of the marker: the next convert
    # refused every file as not latrec's)
    d="$(scenario_copy b1_loop_clean)"
    strace -f -qq -o /dev/null -e trace=write -e inject=write:delay_enter=300000 \
        "$LATREC" convert -q "$d" -o "$OUT" &
    BG_PID=$!
    for _ in $(seq 1 200); do
        compgen -G "$OUT/.records.csv.??????" >/dev/null && break
        sleep 0.05
    done
    compgen -G "$OUT/.records.csv.??????" >/dev/null || { echo "no temporary file appeared"; false; }
    run --separate-stderr "$LATREC" convert -q -o "$OUT" "$RINGS/b4_limits"
    [ "$status" -eq 1 ]
    [ "$stderr" = "latrec convert: $OUT: another latrec is writing into it (it holds $OUT/.latrec-lock); wait for it to end, or write elsewhere" ]
    kill -TERM "$(pgrep -P "$BG_PID")" # the traced latrec, strace's child
    wait "$BG_PID" || true
    BG_PID=
    [ -z "$(ls -A "$OUT")" ] # its temporaries and its lock file gone with it
    run --separate-stderr "$LATREC" convert -q -o "$OUT" "$RINGS/b4_limits"
    [ "$status" -eq 0 ]
    [ "$(grep -v '^#' "$OUT/.latrec-output" | sort | tr '\n' ' ')" = "libe3.csv paths.csv records.csv rings.csv " ]
}

@test "output: a .latrec-lock that is a link or not latrec's is never followed, written or removed" {
    mkdir -p "$OUT"
    echo precious > "$BATS_TEST_TMPDIR/precious"
    ln -s "$BATS_TEST_TMPDIR/precious" "$OUT/.latrec-lock"
    run --separate-stderr "$LATREC" convert -q -o "$OUT" "$RINGS/b4_limits"
    [ "$status" -eq 1 ]
    [ "$stderr" = "latrec convert: $OUT/.latrec-lock: cannot lock the directory with it: a symbolic link, not followed" ]
    [ "$(ls -A "$OUT")" = .latrec-lock ] && [ -L "$OUT/.latrec-lock" ]
    rm "$OUT/.latrec-lock"
    mkfifo "$OUT/.latrec-lock"
    run --separate-stderr timeout 20 "$LATREC" convert -q -o "$OUT" "$RINGS/b4_limits"
    [ "$status" -eq 1 ]
    [ "$stderr" = "latrec convert: $OUT/.latrec-lock: cannot lock the directory with it: not a regular file" ]
    rm "$OUT/.latrec-lock"
    # a second name of another file: locked through, left as it was
    ln "$BATS_TEST_TMPDIR/precious" "$OUT/.latrec-lock"
    run --separate-stderr "$LATREC" convert -q -o "$OUT" "$RINGS/b4_limits"
    [ "$status" -eq 0 ]
    [ "$(cat "$OUT/.latrec-lock")" = precious ] && [ "$(cat "$BATS_TEST_TMPDIR/precious")" = precious ]
}

@test "output: one rule on a full filesystem: whichever file fails, one line names it, exit 1, and DIR is left as it was" {
    [ "$(id -u)" -eq 0 ] || skip "not root: a small full filesystem needs mount -t tmpfs -o size="
    MNT="$BATS_TEST_TMPDIR/mnt"
    mkdir -p "$MNT"
    mount -t tmpfs -o size=8m latrec-test "$MNT" || skip "cannot mount a tmpfs here"
    # what the whole conversion takes there (tmpfs counts whole pages)
    run "$LATREC" convert -q -o "$MNT/csv" "$RINGS/b1_loop_clean"
    [ "$status" -eq 0 ]
    need=$(du -s -B1 "$MNT/csv" | cut -f1)
    rm -rf "$MNT/csv"
    mkdir "$MNT/csv"
    echo "earlier" > "$MNT/csv/keep.txt"
    before="$(out_state "$MNT/csv")"
    failed=""
    # room for all but a page, half, a tenth of it: the failure lands in different files
    for room in $((need - 4096)) $((need / 2)) $((need / 10)); do
        rm -f "$MNT/fill"
        avail=$(df -B1 --output=avail "$MNT" | tail -1)
        fallocate -l $((avail - room)) "$MNT/fill"
        run --separate-stderr "$LATREC" convert -q -o "$MNT/csv" "$RINGS/b1_loop_clean"
        echo "room $room of $need: status $status: $stderr"
        [ "$status" -eq 1 ]
        # a data file, or the marker (a new one takes a page too)
        [[ "$stderr" =~ ^"latrec convert: $MNT/csv/"[a-z0-9.-]+": "("cannot list "[a-z0-9.]+" in it: ")?"No space left on device"$ ]]
        [ "${#stderr_lines[@]}" -eq 1 ]
        [ "$(out_state "$MNT/csv")" = "$before" ]
        failed+="${stderr#latrec convert: $MNT/csv/} "
    done
    echo "failed: $failed"
}

@test "output: names are escaped in messages (-o with an ESC or a newline) and in a component's file name (a ring role holding one)" {
    d="$BATS_TEST_TMPDIR/rings"
    mkdir -p "$d"
    # a v3 ring whose role holds an ESC, a newline and a '/'
    for s in 1 2 3; do
        t=$((2000000000 + s * 1000000))
        echo "$s 0x20 $t 0 0"
        echo "$s 0x21 $((t + 40)) 0 0"
    done | lr mkring "$d/x.101.latrec" 3 $'x\e[1m\ny/z.101' 16 6 4242 101
    out="$BATS_TEST_TMPDIR/"$'o\e[2m\nut'
    run --separate-stderr "$LATREC" convert -o "$out" "$d"
    [ "$status" -eq 0 ]
    [ "$stderr" = "latrec convert: 1 ring (0 skipped), 6 records -> $BATS_TEST_TMPDIR/o\\x1b[2m\\x0aut" ]
    # the table's name as a message would show the role ('/' as '_'): printable
    [ "$(cd "$out" && ls | sort | tr '\n' ' ')" = 'records.csv rings.csv x\x1b[1m\x0ay_z.csv ' ]
    [ "$(awk -F, 'NR == 2 { print $1 "," $2 "," $3 "," $4 }' "$out"/x*.csv)" = "outbound,4242,1,0" ]
    # an error names the directory the same way
    rm -r "$out"
    mkdir "$out"
    echo "the user's" > "$out/records.csv"
    run --separate-stderr "$LATREC" convert -q -o "$out" "$d"
    [ "$status" -eq 1 ]
    [ "$stderr" = "latrec convert: $BATS_TEST_TMPDIR/o\\x1b[2m\\x0aut/records.csv: exists and is not written by latrec (its directory's .latrec-output does not list it): left alone; move it away or write elsewhere" ]
    # a trace.json's notes too
    run --separate-stderr "$LATREC" convert --format chrome --max-events 1 -o "$out" "$d"
    [ "$status" -eq 0 ]
    [[ "$stderr" == "latrec convert: $BATS_TEST_TMPDIR/o\\x1b[2m\\x0aut/trace.json: stopped at "* ]]
    [[ "$stderr" != *$'\e'* ]]
}

@test "output: the component tables spool in \$TMPDIR; a spool that fails names \$TMPDIR, not only the table" {
    # b1's libe3 component has two legs: its rows are spooled until both are known
    run --separate-stderr env TMPDIR="$BATS_TEST_TMPDIR/none" "$LATREC" convert -q -o "$OUT" "$RINGS/b1_loop_clean"
    [ "$status" -eq 1 ]
    [ "$stderr" = "latrec convert: $BATS_TEST_TMPDIR/none: cannot spool rows there: No such file or directory" ]
    [ ! -e "$OUT/records.csv" ]
    [ "$(id -u)" -eq 0 ] || skip "not root: a full filesystem for \$TMPDIR needs mount -t tmpfs -o size="
    MNT="$BATS_TEST_TMPDIR/mnt"
    mkdir -p "$MNT"
    mount -t tmpfs -o size=4k latrec-test "$MNT" || skip "cannot mount a tmpfs here"
    fallocate -l 4096 "$MNT/fill"
    run --separate-stderr env TMPDIR="$MNT" "$LATREC" convert -q -o "$OUT" "$RINGS/b1_loop_clean"
    [ "$status" -eq 1 ]
    [ "$stderr" = "latrec convert: $OUT/libe3.csv: its rows spooled in $MNT: No space left on device" ]
    [ -z "$(ls -A "$OUT")" ] # the output directory had room: nothing of this conversion placed there
    [ "$(ls -A "$MNT")" = fill ]
}

# ---------------------------------------------------------------------------
# --format chrome

@test "chrome: trace.json of b1 loads; one track per ring; slices as the tables say; flows pair across threads" {
    convert -q "$RINGS/b1_loop_clean"
    [ "$status" -eq 0 ]
    csvdir="$OUT"
    OUT="$BATS_TEST_TMPDIR/chrome"
    convert -q --format chrome "$RINGS/b1_loop_clean"
    [ "$status" -eq 0 ]
    [ "$(ls "$OUT")" = "trace.json" ]
    run lr chrome "$OUT/trace.json" "$csvdir"
    echo "$output"
    [ "$status" -eq 0 ]
}

@test "chrome: a hop across threads of one process gets a flow arrow, same-thread hops none" {
    d="$BATS_TEST_TMPDIR/v3"
    mkdir -p "$d"
    make_cross_thread_rings "$d"
    convert -q --format chrome "$d"
    [ "$status" -eq 0 ]
    run lr chrome "$OUT/trace.json" ""
    echo "$output"
    [ "$status" -eq 0 ]
    [ "$output" = "5 legs, 15 hops, 0 instants, 5 flows" ]
    run "$PY" - "$OUT/trace.json" <<'PY'
import json, sys
ev = json.load(open(sys.argv[1]))['traceEvents']
tn = sorted((e['pid'], e['tid'], e['args']['name']) for e in ev if e['name'] == 'thread_name')
pn = [(e['pid'], e['args']['name']) for e in ev if e['name'] == 'process_name']
print(tn, pn)
# async slices: pair each begin with its end (same id and name)
ends = {(e['id'], e['name']): e['ts'] for e in ev if e['ph'] == 'e'}
def spans(kind):
    return [(e['name'], e['tid'], e['ts'], round(ends[(e['id'], e['name'])] - e['ts'], 3), e['args'])
            for e in ev if e['ph'] == 'b' and e['args']['kind'] == kind]
legs = spans('leg')
for s in range(1, 6):
    # origin = seq 1's EMIT_ENTER; ENQUEUE 40 ns after each EMIT_ENTER
    want = ('libe3/outbound', 101, round((s - 1) * 1000 + 0.040, 3), 4.25, s, True)
    n, tid, ts, dur, a = legs[s - 1]
    got = (n, tid, round(ts, 3), dur, a['seq'], a['complete'])
    assert got == want, (got, want)
flows = sorted((e['ph'], e['tid'], e['name']) for e in ev if e['ph'] in 'sf')
assert flows == [('f', 102, 'ENQUEUE -> DEQUEUE')] * 5 + [('s', 101, 'ENQUEUE -> DEQUEUE')] * 5, flows
hops = sorted({(n, dur) for n, tid, ts, dur, a in spans('hop')})
assert hops == [('DEQUEUE -> ENCODE_E3AP_DONE', 0.25), ('ENCODE_E3AP_DONE -> SEND_DONE', 3.0),
                ('ENQUEUE -> DEQUEUE', 1.0)], hops
# the stamps on the threads that took them
stamps = sorted({(e['name'], e['tid']) for e in ev if e.get('cat') == 'stamp'})
assert stamps == [('DEQUEUE', 102), ('ENCODE_E3AP_DONE', 102), ('ENQUEUE', 101), ('SEND_DONE', 102)], stamps
PY
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = "[(4242, 101, 'oai'), (4242, 102, 'libe3.outbound')] [(4242, 'pid 4242 [libe3, oai]')]" ]
    run "$PY" "$BATS_TEST_DIRNAME/trace_check.py" "$OUT/trace.json"
    echo "$output"
    [ "$status" -eq 0 ]
}

# ---------------------------------------------------------------------------
# --wall, --watch

@test "wall: two directories merge on CLOCK_REALTIME, each stamp mapped by its ring's clock pairs" {
    run --separate-stderr "$LATREC" convert -o "$OUT" "$RINGS/b1_loop_clean" "$RINGS/b2_loop_wrap"
    [ "$status" -eq 0 ]
    [[ "$stderr" == *"2 directories merged on the monotonic clock; use --wall"* ]]
    rm -rf "$OUT"
    convert -q --wall "$RINGS/b1_loop_clean" "$RINGS/b2_loop_wrap"
    [ "$status" -eq 0 ]
    [ "$(head -1 "$OUT/records.csv")" = "t_ns,ring,component,pid,tid,seq,cpu,stage,stage_name,leg,aux,aux2,t_mono_ns" ]
    run lr wall "$OUT" $((6358 + 15259))
    echo "$output"
    [ "$status" -eq 0 ]
    [ "$(($(wc -l < "$OUT/rings.csv") - 1))" -eq 14 ]
}

# two_hosts NAME PID1 PID2: $BATS_TEST_TMPDIR/NAME1 and NAME2, one outbound
# ring each (20 seqs, tid 7), their monotonic clocks 4000 s apart and their
# stamps at the same wall-clock time (host h stamps h x 100 ns late).
two_hosts() {
    local h s t t0 pid
    for h in 1 2; do
        mkdir -p "$BATS_TEST_TMPDIR/$1$h"
        t0=$((h == 1 ? 1000000000000 : 5000000000000))
        pid=$([ "$h" = 1 ] && echo "$2" || echo "$3")
        for s in $(seq 1 20); do
            t=$((t0 + s * 1000000 + h * 100))
            echo "$s 0x21 $t 0 0"
            echo "$s 0x22 $((t + 1000)) 0 0"
            echo "$s 0x23 $((t + 2000)) 0 0"
            echo "$s 0x24 $((t + 3000)) $s 0"
        done | lr mkring "$BATS_TEST_TMPDIR/$1$h/libe3.outbound.7.latrec" 3 libe3.outbound.7 128 80 "$pid" 7 "$t0" 1795950000000000000
    done
}

@test "wall: the component tables and the leg joins run on the wall clock too" {
    # b1 on --wall: every stage stamp in a table is a wall-clock stamp of
    # records.csv with that stage; keys are unchanged and a hop across two
    # rings moves by the difference of their maps (tens of ns at most here)
    mono="$BATS_TEST_TMPDIR/mono"
    run "$LATREC" convert -q -o "$mono" "$RINGS/b1_loop_clean"
    [ "$status" -eq 0 ]
    convert -q --wall "$RINGS/b1_loop_clean"
    [ "$status" -eq 0 ]
    run lr walltables "$OUT" "$mono"
    echo "$output"
    [ "$status" -eq 0 ]
    [ "$(awk -F, '$1 == "source" && $3 == 1 { print $5 }' "$OUT/oai.csv")" = 1795950002888872788 ]

    # two hosts whose monotonic clocks are 4000 s apart, stamping at the
    # same wall-clock time: the legs of each must still join (the builder's
    # 10 s horizon runs on the merge's clock, not on either host's)
    two_hosts host 100 200
    rm -rf "$OUT"
    convert -q --wall "$BATS_TEST_TMPDIR/host1" "$BATS_TEST_TMPDIR/host2"
    [ "$status" -eq 0 ]
    run awk -F, 'NR > 1 { rows[$2]++; done[$2] += $4 } END { for (p in rows) print p, rows[p], done[p] }' "$OUT/libe3.csv"
    [ "$(printf '%s\n' "${lines[@]}" | sort | tr '\n' ' ')" = "100 20 20 200 20 20 " ]
    # and in time order on the wall clock, host 1 then host 2 for each seq
    run awk -F, 'NR > 1 && NR <= 5 { printf "%s/%s ", $4, $8 }' "$OUT/records.csv"
    [ "$output" = "100/33 200/33 100/34 200/34 " ]

    # the same pid on both hosts, directories given with a trailing slash
    # (as shell completion writes them): still two processes, one per host
    two_hosts same 4242 4242
    rm -rf "$OUT"
    convert -q --wall "$BATS_TEST_TMPDIR/same1/" "$BATS_TEST_TMPDIR/same2/"
    [ "$status" -eq 0 ]
    run awk -F, 'NR > 1 { rows++; done += $4 } END { print rows, done }' "$OUT/libe3.csv"
    [ "$output" = "40 40" ]
}

# watched_writer DIR ENTRIES RECORDS SECONDS: ring DIR/w.1.latrec stamped in
# the background, a record every SECONDS (BG_PID, ended by teardown), once
# its writer has begun.
watched_writer() {
    mkdir -p "$1"
    lr mkring "$1/w.1.latrec" 2 w.1 "$2" 0 < /dev/null
    lr append "$1/w.1.latrec" "$3" "$4" "$BATS_TEST_TMPDIR/ready" &
    BG_PID=$!
    while [ ! -e "$BATS_TEST_TMPDIR/ready" ]; do sleep 0.02; done
}

@test "watch: waits until the rings stop changing, then converts everything written" {
    d="$BATS_TEST_TMPDIR/live"
    watched_writer "$d" 64 15 0.1
    start=$(date +%s%N)
    run --separate-stderr "$LATREC" convert --watch --quiet-secs 0.5 --timeout 5 -o "$OUT" "$d"
    end=$(date +%s%N)
    wait "$BG_PID"
    BG_PID=
    [ "$status" -eq 0 ]
    [[ "$stderr" != *"still changing"* ]]
    ms=$(((end - start) / 1000000))
    echo "returned after $ms ms"
    # the writer stamped for 1.4 s more; quiet 0.5 s; timeout not reached
    [ "$ms" -ge 1800 ]
    [ "$ms" -lt 4500 ]
    [ "$(($(wc -l < "$OUT/records.csv") - 1))" -eq 15 ]
    run awk -F, 'NR == 2 { print $7, $8 }' "$OUT/rings.csv"
    [ "$output" = "15 15" ]
}

@test "watch: gives up after --timeout and converts what is there" {
    d="$BATS_TEST_TMPDIR/busy"
    watched_writer "$d" 1024 400 0.05
    start=$(date +%s%N)
    run --separate-stderr "$LATREC" convert --watch --quiet-secs 0.5 --timeout 1.5 -o "$OUT" "$d"
    end=$(date +%s%N)
    [ "$status" -eq 0 ]
    [ "${stderr_lines[0]}" = "latrec convert: rings still changing after 1.5 s; converting anyway" ]
    ms=$(((end - start) / 1000000))
    echo "returned after $ms ms"
    [ "$ms" -ge 1500 ]
    [ "$ms" -lt 3500 ]
    n=$(($(wc -l < "$OUT/records.csv") - 1))
    [ "$n" -ge 20 ] && [ "$n" -lt 400 ]
}

# ---------------------------------------------------------------------------
# catalogs

@test "catalog: a2 with --catalog libe3-early: one outbound leg over the producer and publisher threads" {
    convert -q --catalog "$CATALOGS/libe3-early.catalog" "$RINGS/a2_real_bench_log2_12"
    [ "$status" -eq 0 ]
    run lr early "$OUT" "$REF/a2_real_bench_log2_12/csv/records.csv.gz"
    echo "$output"
    [ "$status" -eq 0 ]
    [ "$output" = "outbound 3198 rows, 1365 complete" ]
    [ "$(head -1 "$OUT/libe3.csv")" = "leg,pid,seq,complete,L0_ENQUEUE_ns,L1_DEQUEUE_ns,L2_ENCODE_DONE_ns,L3_SENT_ns,L9_DROP_ns,L0_ENQUEUE__L1_DEQUEUE_us,L1_DEQUEUE__L2_ENCODE_DONE_us,L2_ENCODE_DONE__L3_SENT_us,outbound_total_us,msg_id,pdu_type,drop_reason" ]
    [ "$(ls "$OUT" | tr '\n' ' ')" = "libe3.csv records.csv rings.csv " ]
}

@test "catalog: a bad catalog file is exit 1 naming FILE:LINE and the reason" {
    printf 'catalog x\nstage 0x30 A\nleg l A NOPE\n' > "$BATS_TEST_TMPDIR/bad.catalog"
    run --separate-stderr "$LATREC" convert -o "$OUT" --catalog "$BATS_TEST_TMPDIR/bad.catalog" "$RINGS/b4_limits"
    [ "$status" -eq 1 ]
    [ "$stderr" = "latrec convert: $BATS_TEST_TMPDIR/bad.catalog:3: leg: unknown stage" ]
}

@test "catalog: --stages with a C header names the stages, legs are discovered per seq" {
    convert -q --stages "$CATALOGS/libe3_early_stages.h" --stage-prefix E3_ "$RINGS/a2_real_bench_log2_12"
    [ "$status" -eq 0 ]
    run lr discovered "$OUT" "$REF/a2_real_bench_log2_12/csv/records.csv.gz"
    echo "$output"
    [ "$status" -eq 0 ]
    run awk -F, 'NR > 1 { n[$9]++ } END { for (k in n) print k, n[k] }' "$OUT/records.csv"
    [ "$(printf '%s\n' "${lines[@]}" | sort | tr '\n' ' ')" = "L0_ENQUEUE 3198 L1_DEQUEUE 1365 L2_ENCODE_DONE 1365 L3_SENT 1366 L9_DROP 9 " ]
    # without the prefix the enumerators keep it
    rm -rf "$OUT"
    convert -q --stages "$CATALOGS/libe3_early_stages.h" "$RINGS/a2_real_bench_log2_12"
    [ "$status" -eq 0 ]
    [ "$(awk -F, 'NR == 2 { print $9 }' "$OUT/records.csv")" = "E3_L0_ENQUEUE" ]
}
