#!/usr/bin/env bats
bats_require_minimum_version 1.5.0
load nobody
# latrec record, end to end: exit statuses, signals, the run directory and
# run.json, the synchronised start, the bundled e3loop workload, attach
# mode, tracefs capture, an uninstrumented program.
#
# Needs: LATREC (the latrec binary) and E3LOOP (tests/workloads/e3loop) in
# the environment (ctest sets both), jq, root for tracefs. Tests that need
# tracefs, a real-time policy or another user are skipped, with the reason,
# where the kernel has no tracefs or the user is not root.

setup_file() {
    : "${LATREC:?set LATREC to the latrec binary}"
    : "${E3LOOP:?set E3LOOP to the e3loop workload}"
    # tracefs mounted for the whole file, so that "the instance is gone"
    # looks at a real directory (the record tests for mounting use their
    # own mount namespace).
    if [ "$(id -u)" -eq 0 ] && grep -qw tracefs /proc/filesystems &&
        ! mountpoint -q /sys/kernel/tracing; then
        mount -t tracefs nodev /sys/kernel/tracing
    fi
    # One e3loop run shared by the tests that read it.
    export E3RUN="$BATS_FILE_TMPDIR/e3"
    ( cd "$BATS_FILE_TMPDIR" &&
        "$LATREC" record -q -o "$E3RUN" -- "$E3LOOP" --duration 2 --threads 2 --rate 1000 \
            >"$BATS_FILE_TMPDIR/e3.out" 2>&1
        echo $? >"$BATS_FILE_TMPDIR/e3.status" )
}

setup() {
    command -v jq >/dev/null || skip "jq is not installed (apt-get install jq)"
    WORK="$(mktemp -d /tmp/latrec-record-bats.XXXXXX)"
    cd "$WORK"
}

teardown() {
    cd /
    # children started by a test (attach mode) never outlive it
    if [ -n "${BG_PID:-}" ]; then kill -KILL "$BG_PID" 2>/dev/null || true; wait "$BG_PID" 2>/dev/null || true; fi
    rm -rf "$WORK"
}

need_tracefs() {
    [ "$(id -u)" -eq 0 ] || skip "not root: tracefs instances need root"
    grep -qw tracefs /proc/filesystems || skip "this kernel has no tracefs"
}

# The run's tracefs instance directory must be gone.
instance_gone() {
    local name
    name="$(jq -r '.tracefs.instance // empty' "$1/run.json")"
    [ -n "$name" ] || return 0
    [ ! -e "/sys/kernel/tracing/instances/$name" ]
}

load record_helpers

# ---- exit statuses -----------------------------------------------------------

@test "the command's exit status: sh -c 'exit 3' gives 3" {
    need_tracefs
    run "$LATREC" record -q -o r -- sh -c 'exit 3'
    [ "$status" -eq 3 ]
    [ "$(jq -r .state r/run.json)" = finished ]
    [ "$(jq -r .exit.code r/run.json)" = 3 ]
    [ "$(jq -r .exit.status r/run.json)" = 3 ]
    [ "$(jq -r .command r/run.json)" = "sh -c 'exit 3'" ]
    instance_gone r
}

@test "a command dying of SIGSEGV gives 139" {
    run "$LATREC" record -q -o r -- sh -c 'kill -SEGV $$'
    [ "$status" -eq 139 ]
    [ "$(jq -r .exit.signal_name r/run.json)" = SIGSEGV ]
}

@test "/nonexistent gives 127 with one line saying why" {
    need_tracefs
    run -127 "$LATREC" record -q -o r -- /nonexistent
    [ "${#lines[@]}" -eq 1 ]
    [[ "${lines[0]}" == *"/nonexistent: No such file or directory"* ]]
    [ "$(jq -r .exit.exec_failed r/run.json)" = true ]
    instance_gone r
}

@test "a command not in PATH gives 127" {
    run -127 "$LATREC" record -q -o r -- latrec-no-such-command-xyz
    [[ "$output" == *"command not found"* ]]
    # an empty name says so (the line began ": command not found")
    run -127 --separate-stderr "$LATREC" record -q -f -o r -- ''
    [ "${stderr_lines[0]}" = "latrec record: an empty command name: command not found" ]
}

@test "a file that is not executable gives 126" {
    printf 'echo hi\n' >script
    chmod 644 script
    run "$LATREC" record -q -o r -- ./script
    [ "$status" -eq 126 ]
    [ "${#lines[@]}" -eq 1 ]
    [[ "${lines[0]}" == *"./script: Permission denied"* ]]
}

@test "usage errors exit 125, not a status a command could give" {
    run "$LATREC" record -q -o r
    [ "$status" -eq 125 ]
    run "$LATREC" record -P x:1 -- true
    [ "$status" -eq 125 ]
    [[ "$output" == *"policy must be"* ]]
    run "$LATREC" record -p 1 -- true
    [ "$status" -eq 125 ]
}

# ---- signals -------------------------------------------------------------------

@test "SIGINT to latrec: the command gets SIGINT, run.json is finalised, exit 130" {
    need_tracefs
    "$LATREC" record -o r -- sh -c \
        'trap "echo INT >got; trap - INT; kill -INT \$\$" INT; : >ready; sleep 60 & wait' 2>err &
    local lp=$!
    wait_running r
    wait_ready # its trap is set (on a loaded machine the shell may take a while to get there)
    kill -INT "$lp"
    local st=0
    wait "$lp" || st=$?
    [ "$st" -eq 130 ]
    [ "$(cat got)" = INT ]
    [ "$(jq -r .state r/run.json)" = finished ]
    [ "$(jq -r .exit.signal_name r/run.json)" = SIGINT ]
    [ "$(jq -r .exit.stopped_by r/run.json)" = SIGINT ]
    jq -e '.stop_stamp.mono_ns > .start_stamp.mono_ns' r/run.json
    ! pgrep -f 'sleep 60$' -P "$lp"
    instance_gone r
}

@test "three SIGINTs in quick succession: latrec survives, kills the command, leaves a readable run" {
    need_tracefs
    # a command that ignores SIGINT and SIGTERM: only SIGKILL ends it
    "$LATREC" record -o r -- sh -c 'trap "" INT TERM; : >ready; sleep 97.25; exit 0' 2>err &
    local lp=$!
    wait_running r
    wait_ready
    kill -INT "$lp"; kill -INT "$lp"; kill -INT "$lp"
    local st=0
    wait "$lp" || st=$?
    [ "$st" -eq 137 ]
    ! pgrep -f 'sleep 97.25' >/dev/null
    [ "$(jq -r .state r/run.json)" = finished ]
    [ "$(jq -r .exit.status r/run.json)" = 137 ]
    grep -q 'sending SIGKILL' err
    instance_gone r

    # and the same burst before the command has even started
    "$LATREC" record -o r2 -- sh -c 'trap "" INT TERM; sleep 97.5' 2>err2 &
    lp=$!
    # (a signal that lands before latrec has blocked them ends it at once:
    # nothing exists yet to clean up, and the next kills find no process)
    kill -INT "$lp" 2>/dev/null || true
    kill -INT "$lp" 2>/dev/null || true
    kill -INT "$lp" 2>/dev/null || true
    st=0
    wait "$lp" || st=$?
    [ "$st" -ge 128 ] && [ "$st" -le 137 ]
    sleep 0.2
    ! pgrep -f 'sleep 97.5' >/dev/null
    # latrec may have been hit before it made the run directory; if it made
    # one, it finished it
    if [ -e r2/run.json ]; then
        [ "$(jq -r .state r2/run.json)" = finished ]
        instance_gone r2
    fi
}

@test "-d stops the command with SIGINT: a timed stop ends with status 0, the command's own stays in run.json" {
    local t0=$SECONDS
    run "$LATREC" record -q -o r -d 0.5 -- sleep 30
    [ "$status" -eq 0 ]
    [ "$(jq -r .exit.status r/run.json)" = 0 ]
    [ "$(jq -r .exit.signal_name r/run.json)" = SIGINT ]
    [ $((SECONDS - t0)) -lt 10 ]
    [ "$(jq -r .exit.stopped_by r/run.json)" = duration ]
    [ "$(jq -r .options.duration_ns r/run.json)" = 500000000 ]
}

@test "-d escalates to SIGTERM, then SIGKILL, after the grace period" {
    # env ignores the signals as it starts (a shell's trap, set once the
    # shell has started, can come after the 0.3 s on a loaded machine)
    run "$LATREC" record -o r -d 0.3 --grace 0.3 -- env --ignore-signal=INT sleep 30
    [ "$status" -eq 0 ]
    [[ "$output" == *"sending SIGTERM"* ]]
    [[ "$output" == *"the command died of SIGTERM (stopped at the end of -d: exit 0)"* ]]
    [ "$(jq -r .exit.signal_name r/run.json)" = SIGTERM ]
    run "$LATREC" record -o r2 -d 0.3 --grace 0.3 -- env --ignore-signal=INT,TERM sleep 30
    [ "$status" -eq 0 ]
    [[ "$output" == *"sending SIGKILL"* ]]
    [ "$(jq -r .exit.signal_name r2/run.json)" = SIGKILL ]
}

# ---- the run directory -----------------------------------------------------------

@test "an existing run directory is kept as DIR.old, DIR.old is never deleted, -f replaces DIR" {
    run "$LATREC" record -q -o r -- true
    [ "$status" -eq 0 ]
    local first
    first="$(jq -r .run_id r/run.json)"
    run "$LATREC" record -o r -- true
    [ "$status" -eq 0 ]
    [[ "$output" == *"kept the previous r as r.old"* ]]
    [ "$(jq -r .run_id r.old/run.json)" = "$first" ]
    touch r.old/keep-me
    run "$LATREC" record -q -o r -- true
    [ "$status" -eq 125 ]
    [[ "$output" == *"r.old exists"* ]]
    [ -e r.old/keep-me ]
    run "$LATREC" record -q -o r -f -- true
    [ "$status" -eq 0 ]
    [ -e r.old/keep-me ]
    [ "$(jq -r .run_id r.old/run.json)" = "$first" ]
    # -f replaces only a run directory
    mkdir notarun && touch notarun/precious && mkdir notarun.old
    run "$LATREC" record -q -o notarun -f -- true
    [ "$status" -eq 125 ]
    [ -e notarun/precious ]
}

@test "a run directory's name is escaped in every message: an ESC or a newline in -o stays one line of text" {
    run --separate-stderr "$LATREC" record -o $'r\e[31mX' -- true
    [ "$status" -eq 0 ]
    [ -f $'r\e[31mX/run.json' ] # the name itself as given
    [[ "$stderr" == *'; run in r\x1b[31mX; the command exited 0'* ]]
    [[ "$stderr" != *$'\e'* ]]
    run --separate-stderr "$LATREC" record -o $'r\e[31mX' -- true
    [ "$status" -eq 0 ]
    [[ "$stderr" == *'latrec record: kept the previous r\x1b[31mX as r\x1b[31mX.old'* ]]
    [[ "$stderr" != *$'\e'* ]]
    run --separate-stderr "$LATREC" record -o $'n\nl' -- true
    [ "$status" -eq 0 ]
    [ -f $'n\nl/run.json' ]
    [ "${stderr_lines[-1]}" = 'latrec record: no rings (the command wrote none: not instrumented?); run in n\x0al; the command exited 0' ]
    # a failure names it the same way
    touch f
    # (--no-sched: a normal user's note that there is no scheduler data would come first)
    run --separate-stderr "$LATREC" record --no-sched -o $'f/\e' -- touch ran
    [ "$status" -eq 125 ]
    [ "$stderr" = 'latrec record: f/\x1b: Not a directory' ]
    [ ! -e ran ]
}

@test "the command's environment: LATREC_OUTPUT_DIR on tmpfs, sizing variables, --lib, the caller's" {
    mkdir lib
    MY_VAR=kept LD_LIBRARY_PATH=/old run "$LATREC" record -q -o r --entries-log2 13 \
        --role-entries libe3.outbound=14 --role-entries dapp=15 --lib lib -- env
    [ "$status" -eq 0 ]
    local tmpdir
    tmpdir="$(jq -r .rings_tmp r/run.json)"
    [[ "$tmpdir" == /dev/shm/latrec-* ]]
    [[ "$output" == *"LATREC_OUTPUT_DIR=$tmpdir"* ]]
    [[ "$output" == *"LATREC_ENTRIES_LOG2=13"* ]]
    [[ "$output" == *"LATREC_ENTRIES_LOG2_LIBE3_OUTBOUND=14"* ]]
    [[ "$output" == *"LATREC_ENTRIES_LOG2_DAPP=15"* ]]
    [[ "$output" == *"LD_LIBRARY_PATH=$WORK/lib:/old"* ]]
    [[ "$output" == *"MY_VAR=kept"* ]]
    # the tmpfs directory is gone, the rings (none here) are a directory
    [ ! -e "$tmpdir" ]
    [ -d r/rings ] && [ ! -L r/rings ]
    [ "$(jq -r .rings_dir r/run.json)" = rings ]
}

@test "rings live on tmpfs during the run (DIR/rings links there) and are moved at the end" {
    need_tracefs
    # it runs until told (a run bounded by --duration may be over before
    # its threads are counted on a loaded machine)
    "$LATREC" record -q -o r -- "$E3LOOP" --duration 60 --rate 500 &
    local lp=$!
    wait_running r
    [ -L r/rings ]
    local tmpdir
    tmpdir="$(readlink r/rings)"
    [[ "$tmpdir" == /dev/shm/latrec-* ]]
    [ "$(jq -r .state r/run.json)" = recording ]
    [ "$(jq -r .rings_dir r/run.json)" = "$tmpdir" ]
    [ "$(stat -f -c %T "$tmpdir")" = tmpfs ]
    # every thread of both processes: count them while they run, once the
    # five that stamp have their rings
    local ran dapp i ran_threads dapp_threads
    ran="$(jq -r .pid r/run.json)"
    for i in $(seq 200); do
        dapp="$(pgrep -P "$ran" || true)"
        [ -n "$dapp" ] && [ "$(ls "$tmpdir" | grep -c '\.latrec$')" -ge 5 ] && break
        sleep 0.05
    done
    ran_threads="$(ls "/proc/$ran/task" | wc -l)"
    dapp_threads="$(ls "/proc/$dapp/task" | wc -l)"
    kill -INT "$lp"
    wait "$lp" || true
    [ "$(jq -r .exit.stopped_by r/run.json)" = SIGINT ]
    [ -d r/rings ] && [ ! -L r/rings ]
    [ ! -e "$tmpdir" ]
    [ "$(ls r/rings/*.latrec | wc -l)" -eq 5 ]
    [ "$(jq -r .collectors.rings.copied r/run.json)" -eq 5 ]
    [ "$(jq --argjson p "$ran" '[.collectors.rings.files[] | select(.pid == $p)] | length' r/run.json)" -eq "$ran_threads" ]
    [ "$(jq --argjson p "$dapp" '[.collectors.rings.files[] | select(.pid == $p)] | length' r/run.json)" -eq "$dapp_threads" ]
}

@test "rings copied from tmpfs keep their empty slots as holes: the same records as a dense copy" {
    # WORK is under /tmp, the rings on /dev/shm: copied when they differ
    [ "$(stat -f -c %T /dev/shm)" = tmpfs ] || skip "/dev/shm is not a tmpfs"
    [ "$(stat -c %d /dev/shm)" != "$(stat -c %d "$WORK")" ] || skip "$WORK is on /dev/shm's filesystem: the rings are moved"
    truncate -s 1M hole.probe
    [ "$(stat -c %b hole.probe)" -eq 0 ] || skip "$(stat -f -c %T "$WORK") keeps no holes"
    run "$LATREC" record -q -o r -- "$E3LOOP" --duration 0.5 --rate 200
    [ "$status" -eq 0 ]
    [ "$(jq -r .collectors.rings.copied r/run.json)" -eq 5 ]
    # 2^18 slots of 32 bytes a ring, a few thousand stamped: mostly holes
    local f
    for f in r/rings/*.latrec; do
        [ "$(stat -c %s "$f")" -eq 8392704 ]
        [ $(($(stat -c %b "$f") * 512)) -lt 1048576 ]
    done
    cp -r --sparse=never r dense
    [ "$(du -sk dense/rings | cut -f1)" -gt 40000 ]
    "$LATREC" convert -q -o sparse.csv r
    "$LATREC" convert -q -o dense.csv dense
    diff sparse.csv/records.csv dense.csv/records.csv
    [ "$(wc -l < sparse.csv/records.csv)" -gt 100 ]
    diff <("$LATREC" hist -q r) <("$LATREC" hist -q dense)
}

@test "--rings-dir puts the rings somewhere else during the run" {
    mkdir elsewhere
    run "$LATREC" record -q -o r --rings-dir elsewhere -- "$E3LOOP" --duration 0.5 --rate 200
    [ "$status" -eq 0 ]
    [[ "$(jq -r .rings_tmp r/run.json)" == "$WORK"/elsewhere/latrec-* ]]
    [ "$(ls r/rings/*.latrec | wc -l)" -eq 5 ]
    [ "$(jq -r .collectors.rings.moved r/run.json)" -eq 5 ]
    [ -z "$(ls elsewhere)" ]
}

@test "-c and -P apply to the command" {
    chrt -f 10 true 2>/dev/null || skip "SCHED_FIFO needs root (or CAP_SYS_NICE, RLIMIT_RTPRIO)"
    run "$LATREC" record -q -o r -c 0 -P f:10 -- sh -c 'grep Cpus_allowed_list /proc/self/status; chrt -p $$'
    [ "$status" -eq 0 ]
    [[ "$output" == *"Cpus_allowed_list:"*"0"* ]]
    [[ "$output" == *"SCHED_FIFO"* ]]
    [[ "$output" == *"priority: 10"* ]]
    [ "$(jq -r .options.priority.policy r/run.json)" = fifo ]
    # a deadline task cannot fork: the shell execs chrt, which reads itself
    run "$LATREC" record -q -o r2 -P d:500us:1ms -- sh -c 'exec chrt -p $$'
    [ "$status" -eq 0 ]
    [[ "$output" == *"SCHED_DEADLINE"* ]]
    run "$LATREC" record -q -o r3 -c 0-1,5000 -- true
    [ "$status" -eq 125 ]
}

# ---- the e3loop run --------------------------------------------------------------------

@test "e3loop: rings for every thread of both processes, a start stamp before every record" {
    need_tracefs
    [ "$(cat "$BATS_FILE_TMPDIR/e3.status")" -eq 0 ] || { cat "$BATS_FILE_TMPDIR/e3.out"; false; }
    local r="$E3RUN"
    [ "$(jq -r .state "$r/run.json")" = finished ]
    # RAN: 2 source threads (oai), main = control (oai.ctrl), outbound;
    # dApp: main = inbound, handler (dapp)
    [ "$(ls "$r"/rings/oai.[0-9]*.latrec | wc -l)" -eq 2 ]
    [ "$(ls "$r"/rings/oai.ctrl.*.latrec | wc -l)" -eq 1 ]
    [ "$(ls "$r"/rings/libe3.outbound.*.latrec | wc -l)" -eq 1 ]
    [ "$(ls "$r"/rings/libe3.inbound.*.latrec | wc -l)" -eq 1 ]
    [ "$(ls "$r"/rings/dapp.*.latrec | wc -l)" -eq 1 ]
    # two processes: the RAN is the launched command, the dApp its child
    local ran
    ran="$(jq -r .pid "$r/run.json")"
    [ "$(jq '[.collectors.rings.files[].pid] | unique | length' "$r/run.json")" -eq 2 ]
    [ "$(jq -r '.collectors.rings.files[] | select(.name | startswith("libe3.outbound")) | .pid' "$r/run.json")" = "$ran" ]
    [ "$(jq -r '.collectors.rings.files[] | select(.name | startswith("dapp")) | .pid' "$r/run.json")" != "$ran" ]
    # the start stamp precedes every record: nothing dropped, the earliest
    # record (over all of them, dropped or not) after it
    jq -e '.start_stamp.source == "trace_marker"' "$r/run.json"
    jq -e '.start_stamp.marker == "latrec-start " + .run_id' "$r/run.json"
    jq -e '.collectors.rings.dropped_before_start == 0' "$r/run.json"
    jq -e '.collectors.rings.records > 1000' "$r/run.json"
    jq -e '.collectors.rings.first_record_mono_ns > .start_stamp.mono_ns' "$r/run.json"
    # and through latrec convert, ring by ring (t0 = ring open) and record by record
    # (the target's rings: sched.latrec, catalog kernel, is opened by latrec itself)
    run "$LATREC" convert -q -o "$WORK/csv" "$r"
    [ "$status" -eq 0 ]
    local start
    start="$(jq -r .start_stamp.mono_ns "$r/run.json")"
    awk -F, -v s="$start" 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
        $c["catalog"] == "kernel" { next }
        { n++; if ($c["t0_mono_ns"] + 0 <= s + 0) bad++ }
        END { if (n != 6 || bad) { print n " rings, " bad " opened before the start stamp"; exit 1 } }' "$WORK/csv/rings.csv"
    awk -F, -v s="$start" 'NR == 1 { next } { n++; if ($1 + 0 < s + 0) bad++ }
        END { if (!n || bad) { print n " records, " bad " before the start stamp"; exit 1 } }' "$WORK/csv/records.csv"
    instance_gone "$r"
}

@test "e3loop: latrec report has the source, outbound and inbound legs" {
    need_tracefs
    run "$LATREC" report --format csv "$E3RUN"
    if [ "$status" -eq 2 ] && [[ "$output" == *"not built"* ]]; then
        skip "latrec report is not built in this tree: $output"
    fi
    [ "$status" -eq 0 ]
    [[ "$output" == *$'\n'"oai,source,"* ]]
    [[ "$output" == *$'\n'"libe3,outbound,"* ]]
    [[ "$output" == *$'\n'"libe3,inbound,"* ]]
    [[ "$output" == *$'\n'"dapp,consume,"* ]]
    [[ "$output" == *$'\n'"oai,apply_ctrl,"* ]]
}

@test "e3loop: one message joins across processes (source -> outbound -> dApp inbound) and total = sum of hops" {
    need_tracefs
    run "$LATREC" convert -q -o "$WORK/csv" "$E3RUN"
    [ "$status" -eq 0 ]
    local ran
    ran="$(jq -r .pid "$E3RUN/run.json")"
    # records.csv: t_ns,ring,component,pid,tid,seq,cpu,stage,stage_name,leg,aux,aux2
    run awk -F, -v ran="$ran" '
        NR == 1 { next }
        $4 == ran && $9 == "RECORD_BEGIN"      { src[$6] = $1 }
        $4 == ran && $9 == "ENCODE_E3SM_DONE"  { srcdone[$6] = $1 }
        $4 == ran && $9 == "EMIT_ENTER"        { emit[$6] = $1; origin[$6] = $11 }
        $4 == ran && $9 == "ENQUEUE"           { enq[$6] = $1 }
        $4 == ran && $9 == "DEQUEUE"           { deq[$6] = $1 }
        $4 == ran && $9 == "ENCODE_E3AP_DONE"  { enc[$6] = $1 }
        $4 == ran && $9 == "SEND_DONE"         { out_of[$11] = $6; sent++ }
        $4 != ran && $9 == "RECV"              { recv[$6] = $1 }
        $4 != ran && $9 == "DECODE_E3AP_DONE"  { in_of[$11] = $6 }
        END {
            for (m in out_of) {
                if (!(m in in_of)) continue
                o = out_of[m]; i = in_of[m]; s = origin[o]
                if (!(s in src) || !(s in srcdone) || !(o in deq) || !(i in recv)) continue
                h[1] = srcdone[s] - src[s]; h[2] = emit[o] - srcdone[s]; h[3] = enq[o] - emit[o]
                h[4] = deq[o] - enq[o];     h[5] = enc[o] - deq[o];       h[6] = recv[i] - enc[o]
                dec = 0
                sum = 0
                for (k = 1; k <= 6; k++) { if (h[k] < 0) { print "negative hop " k " for message " m; bad++ }; sum += h[k] }
                total = recv[i] - src[s]
                if (sum != total) { print "message " m ": hops sum to " sum ", total " total; bad++ }
                joined++
                if (shown++ < 3) printf "message %s: source seq %s -> outbound seq %s -> dApp seq %s, %.1f us\n", m, s, o, i, total / 1000
            }
            printf "%d of %d sent messages joined\n", joined, sent
            if (bad || joined < 100 || joined < 0.9 * sent) exit 1
        }' "$WORK/csv/records.csv"
    echo "$output"
    [ "$status" -eq 0 ]
}

# ---- attach mode -------------------------------------------------------------------------

@test "attach (-p): records before the start stamp are dropped and counted; kept + dropped = written" {
    need_tracefs
    mkdir live
    LATREC_OUTPUT_DIR="$WORK/live" LATREC_ENTRIES_LOG2=20 "$E3LOOP" --duration 30 --rate 1000 &
    BG_PID=$!
    local i
    for i in $(seq 100); do [ "$(ls live/*.latrec 2>/dev/null | wc -l)" -eq 5 ] && break; sleep 0.05; done
    sleep 1
    run "$LATREC" record -q -o att -p "$BG_PID" -d 1
    [ "$status" -eq 0 ]
    [ "$(jq -r .mode att/run.json)" = attach ]
    [ "$(jq -r .collectors.rings.source att/run.json)" = "$WORK/live" ]
    [ "$(jq -r .collectors.rings.rings att/run.json)" -eq 5 ]
    jq -e '.collectors.rings.dropped_before_start > 0' att/run.json
    jq -e '.collectors.rings.records > 0' att/run.json
    jq -e '.collectors.rings.lost == 0' att/run.json
    jq -e '.collectors.rings.records + .collectors.rings.dropped_before_start == .collectors.rings.written' att/run.json
    jq -e '[.collectors.rings.files[] | .records + .dropped_before_start == .written] | all' att/run.json
    # the process goes on: attach never signals it
    kill -0 "$BG_PID"
    # the analysis drops and counts the same records
    run "$LATREC" convert -q -o "$WORK/csv" att
    [ "$status" -eq 0 ]
    local want
    want="$(jq -r .collectors.rings.dropped_before_start att/run.json)"
    awk -F, -v want="$want" 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
        { d += $c["dropped_before_start"] } END { if (d != want) { print d " != " want; exit 1 } }' "$WORK/csv/rings.csv"
    instance_gone att
}

# ---- tracefs -------------------------------------------------------------------------------

@test "the tracefs instance is gone after a run, after SIGINT and after a failed exec" {
    need_tracefs
    "$LATREC" record -q -o a -- true
    instance_gone a
    "$LATREC" record -q -o b -- sleep 30 &
    local lp=$!
    wait_running b
    kill -INT "$lp"
    wait "$lp" || true
    instance_gone b
    "$LATREC" record -q -o c -- /nonexistent || true
    instance_gone c
    for d in a b c; do
        jq -e '.tracefs.available and (.tracefs.instance | startswith("latrec-"))' "$d/run.json"
    done
    ! ls /sys/kernel/tracing/instances | grep -q -e "$(jq -r .run_id a/run.json)" \
        -e "$(jq -r .run_id b/run.json)" -e "$(jq -r .run_id c/run.json)"
}

@test "-t keeps the command's sched events between the start and stop stamps in trace.txt" {
    need_tracefs
    run "$LATREC" record -q -o r -t -- "$E3LOOP" --duration 0.5 --rate 500
    [ "$status" -eq 0 ]
    [ -s r/trace.txt ]
    jq -e '.collectors.trace.ran and .collectors.trace.pid_filter' r/run.json
    grep -q ' sched_switch: ' r/trace.txt
    grep -q ' sched_wakeup: ' r/trace.txt
    local start stop
    start="$(jq -r .start_stamp.mono_ns r/run.json)"
    stop="$(jq -r .stop_stamp.mono_ns r/run.json)"
    head -1 r/trace.txt | grep -q "print: latrec-start $(jq -r .run_id r/run.json)"
    awk -v a="$start" -v b="$stop" '{ if ($1 + 0 < a + 0 || $1 + 0 > b + 0) bad++ } END { exit bad != 0 }' r/trace.txt
    [ "$(jq -r .collectors.trace.records r/run.json)" -eq "$(wc -l <r/trace.txt)" ]
    instance_gone r
}

@test "tracefs not mounted: record mounts it, and unmounts it again" {
    need_tracefs
    command -v unshare >/dev/null || skip "unshare (util-linux) is not installed"
    run unshare -m --propagation private sh -c '
        for i in 1 2 3 4; do mountpoint -q /sys/kernel/tracing || break; umount /sys/kernel/tracing; done
        mountpoint -q /sys/kernel/tracing && { echo "cannot unmount tracefs here"; exit 99; }
        "$0" record -o r -- true || exit $?
        mountpoint -q /sys/kernel/tracing && { echo "still mounted"; exit 98; }
        exit 0' "$LATREC"
    [ "$status" -ne 99 ] || skip "tracefs cannot be unmounted in a private mount namespace here"
    [ "$status" -eq 0 ]
    [[ "$output" == *"mounted tracefs at /sys/kernel/tracing"* ]]
    jq -e '.tracefs.mounted_by_latrec and (.start_stamp.mono_ns > 0)' r/run.json
}

@test "without tracefs access (not root): one line, rings without a start stamp; -q leaves it out unless -t asks" {
    local as=()
    if [ "$(id -u)" -eq 0 ]; then
        command -v setpriv >/dev/null || skip "setpriv (util-linux) is not installed"
        chmod 755 "$WORK"
        mkdir -m 777 "$WORK/nobody"
        nobody_programs "$WORK/bin" LATREC E3LOOP ||
            skip "nobody cannot reach $WORK/bin (a temporary directory closed to others)"
        cd "$WORK/nobody"
        as=(setpriv --reuid=65534 --regid=65534 --clear-groups)
    elif [ -w /sys/kernel/tracing/instances ]; then
        skip "this user may create tracefs instances"
    fi
    run --separate-stderr "${as[@]}" "$LATREC" record -o r -- "$E3LOOP" --duration 0.3 --rate 200
    [ "$status" -eq 0 ]
    [ "$(grep -c 'no start stamp' <<<"$stderr")" -eq 1 ]
    # the reason says what would give it (a kernel without tracefs has another)
    ! grep -qw tracefs /proc/filesystems || [[ "$stderr" == *"Permission denied (needs root); recording the rings without one"* ]]
    jq -e '.tracefs.available == false and (.tracefs.reason | length > 0)' r/run.json
    jq -e 'has("start_stamp") | not' r/run.json
    jq -e '.collectors.rings.ran and .collectors.rings.rings == 5' r/run.json
    # -q: a note, left out (run.json keeps the reason); the rings are the same
    run --separate-stderr "${as[@]}" "$LATREC" record -q -o rq -- "$E3LOOP" --duration 0.3 --rate 200
    [ "$status" -eq 0 ]
    [ -z "$stderr" ]
    jq -e '.tracefs.available == false and (.tracefs.reason | length > 0)' rq/run.json
    jq -e '.collectors.rings.rings == 5' rq/run.json
    # -q -t: the instance was asked for, so its absence is said
    run --separate-stderr "${as[@]}" "$LATREC" record -q -t -o rt -- true
    [ "$status" -eq 0 ]
    [ "$(grep -c 'no start stamp' <<<"$stderr")" -eq 1 ]
}

# ---- an uninstrumented program ---------------------------------------------------------------

@test "an uninstrumented program (cyclictest) records cleanly: no rings, its status, report says so" {
    command -v cyclictest >/dev/null || skip "cyclictest (rt-tests) is not installed"
    cyclictest -q -l 1 >/dev/null 2>&1 || skip "cyclictest cannot run here (its real-time priority needs root)"
    # --no-sched: no data at all (scheduler data alone is a report of its own)
    run "$LATREC" record --no-sched -o ct -- cyclictest -D 1 -q
    [ "$status" -eq 0 ]
    [[ "$output" == *"no rings"* ]]
    [ -d ct/rings ]
    [ -z "$(ls ct/rings)" ]
    [ "$(jq -r .exit.code ct/run.json)" = 0 ]
    [ "$(jq -r .collectors.rings.rings ct/run.json)" = 0 ]
    run "$LATREC" report ct
    [ "$status" -eq 1 ]
    [[ "$output" == *"rings"* ]]
}
