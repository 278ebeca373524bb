#!/usr/bin/env bash
# bench_engine.sh - the analysis against a bare C pass over the same rings.
#
#   tests/bench/bench_engine.sh [BUILD_DIR]
#
# For each shape (RINGS: 1 16 64 rings by default; LOG2S: 16 records per
# ring by default, which keeps `make bench` quick; the issue's table is
# LOG2S="16 20", and LOG2S="16 20 24" or BENCH_LARGE=1 adds 2^24) it writes
# a realistic run with gen_rings (P processes of T threads, one
# process-wide seq counter per process, the E3 outbound leg's four stages
# on different threads, libE3's ring names, and its scheduler data: gen_rings
# --sched), checks that `latrec report` reads it as built (every record,
# one complete outbound instance per seq, and with the scheduler data every
# one of them split), then REPEAT (default 3) times runs, in turn, each
# command after a reference pass:
#   bare         tests/bench/bench_bare.c: map, validate, histogram the
#                consecutive-stage deltas per seq (the reference)
#   hist         latrec hist -q --threads=1 DIR (the legs)
#   hist_paths   latrec hist -q --threads=1 --path e3/loop DIR (paths on: every
#                ended instance goes to the path assemblers)
#   report_legs  latrec report -q --threads=1 --leg outbound DIR (paths off)
#   report       latrec report -q --threads=1 DIR (paths on, as by default)
#   hist_t2      latrec hist -q --threads=2 DIR
#   report_t2    latrec report -q --threads=2 DIR
#   convert      latrec convert -q DIR -o TMP (all CSV outputs)
#   report_sched latrec report -q --threads=1 DIR.sched: the same rings
#                beside sched.latrec, every instance split on the thread
#                of its hop's second stage (hist has no scheduler split:
#                its --runqlat is the scheduler's own histogram)
#   top          latrec top -q DIR: top's reading rate, on the finished
#                run (run.json "finished": shown once, as report reads it)
#   top_sched    latrec top -q DIR.sched: the same with the split on
# so every command runs between two reference passes under the same load
# (COMMANDS picks some, e.g. COMMANDS="hist report"). Last, the same rows
# on a recorded run of the bundled E3 workload (E3_SECONDS, default 4, of
# 4 source threads at 20 kHz; E3=0 leaves it out): see the end.
# gen_rings writes the outbound leg only: with paths on, every instance
# goes through path assembly and none completes a path (the rows show what
# assembling costs, not what a complete path's figures cost). Its
# scheduler data is about 0.2 records per ring record (an e3loop recording
# at 2 kHz has 0.29); DIR.sched holds hard links to DIR's rings (a ring
# that is a symbolic link is refused).
# Prints per shape and command the best records/s on CPU time (user + sys:
# the machines are shared, and CPU time is what a busy neighbour steals
# least of; with two threads it is both threads' time), the same on wall
# time, the CPU-time ratio to the best reference pass of the same shape,
# peak RSS (/usr/bin/time -v, which counts the ring pages mapped as well as
# the heap), that per ring, and peak RSS as a share of the goal 64 MiB +
# 1 MiB per ring (budget <= 1).
#
# Needs /usr/bin/time (Debian package `time`) and a built tree.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
build=$(cd "${1:-$src/build}" && pwd)
repeat=${REPEAT:-3}
rings_list=${RINGS:-"1 16 64"}
log2_list=${LOG2S:-"16"}
[ "${BENCH_LARGE:-0}" = 1 ] && log2_list="$log2_list 24"
commands=${COMMANDS:-"hist hist_paths report_legs report hist_t2 report_t2 convert report_sched top top_sched"}
latrec=${LATREC:-$build/src/cli/latrec}
work=${BENCH_DIR:-$(mktemp -d "${TMPDIR:-/tmp}/latrec-bench-engine.XXXXXX")}
trap 'rm -rf "$work"' EXIT
[ -x "$latrec" ] || { echo "bench_engine: no latrec at $latrec (build first)" >&2; exit 1; }
[ -x /usr/bin/time ] || { echo "bench_engine: /usr/bin/time missing (apt-get install time)" >&2; exit 1; }
cc=${CC:-cc}
"$cc" -O2 -std=gnu11 -I"$src/include" -o "$work/gen_rings" "$here/gen_rings.c"
"$cc" -O2 -std=gnu11 -I"$src/include" -o "$work/bench_bare" "$here/bench_bare.c"

# measure CMD...: sets SECS (user + sys), WALL and RSS_KB of one run
measure() {
    /usr/bin/time -v -o "$work/time.txt" "$@" > "$work/out.txt" 2> "$work/err.txt" || {
        rc=$?
        # report/hist/convert exit 3 for skipped rings; anything else is a failure
        [ $rc -eq 3 ] || { echo "bench_engine: $* failed ($rc):" >&2; cat "$work/err.txt" >&2; exit 1; }
    }
    WALL=$(awk -F': ' '/Elapsed \(wall clock\)/ { n = split($2, p, ":"); s = 0; for (i = 1; i <= n; i++) s = s * 60 + p[i]; print s }' "$work/time.txt")
    SECS=$(awk -F': ' '/User time|System time/ { s += $2 } END { print s }' "$work/time.txt")
    RSS_KB=$(awk -F': ' '/Maximum resident set size/ { print $2 }' "$work/time.txt")
}

shape() { # RINGS -> "PROCS THREADS"
    case $1 in 1) echo "1 1" ;; 16) echo "4 4" ;; 64) echo "16 4" ;; *) echo "$(( $1 / 4 )) 4" ;; esac
}

# measure_shape D N L RECORDS CMDS: every command of CMDS over run D (and
# D.sched beside it) after a reference pass, REPEAT times; a row each, the
# best of the repeats. N rings, L the shape's log2 (0: a recorded run).
measure_shape() {
    local d=$1 n=$2 l=$3 records=$4 cmds=$5
    declare -A best=() wall=() rss=()
    for _ in $(seq "$repeat"); do
        for cmd in $cmds; do
            for c in bare "$cmd"; do
                case $c in
                    bare) measure "$work/bench_bare" "$d" ;;
                    hist) measure "$latrec" hist -q --threads=1 "$d" ;;
                    hist_paths) measure "$latrec" hist -q --threads=1 --path e3/loop "$d" ;;
                    report_legs) measure "$latrec" report -q --threads=1 --leg outbound "$d" ;;
                    report) measure "$latrec" report -q --threads=1 "$d" ;;
                    hist_t2) measure "$latrec" hist -q --threads=2 "$d" ;;
                    report_t2) measure "$latrec" report -q --threads=2 "$d" ;;
                    convert) rm -rf "$work/csv"; measure "$latrec" convert -q "$d" -o "$work/csv" ;;
                    report_sched) measure "$latrec" report -q --threads=1 "$d.sched" ;;
                    top) measure "$latrec" top -q "$d" ;;
                    top_sched) measure "$latrec" top -q "$d.sched" ;;
                    *) echo "bench_engine: unknown command $c" >&2; exit 2 ;;
                esac
                if [ -z "${best[$c]:-}" ] || awk -v a="$SECS" -v b="${best[$c]}" 'BEGIN { exit !(a < b) }'; then
                    best[$c]=$SECS
                fi
                if [ -z "${wall[$c]:-}" ] || awk -v a="$WALL" -v b="${wall[$c]}" 'BEGIN { exit !(a < b) }'; then
                    wall[$c]=$WALL
                fi
                [ "$RSS_KB" -gt "${rss[$c]:-0}" ] && rss[$c]=$RSS_KB
            done
        done
    done
    for cmd in bare $cmds; do
        awk -v c="$cmd" -v n="$n" -v l="$l" -v r="$records" -v s="${best[$cmd]}" -v w="${wall[$cmd]}" \
            -v b="${best[bare]}" -v k="${rss[$cmd]}" \
            'BEGIN { s = s > 0 ? s : 0.005; b = b > 0 ? b : 0.005; w = w > 0 ? w : 0.005;
                     printf "%-12s %5d %5d %11d %8.2f %11.1fM %11.1fM %7.3f %8.1fMB %7.2fMB %7.2f\n",
                            c, n, l, r, s, r / s / 1e6, r / w / 1e6, b / s, k / 1024, k / 1024 / n,
                            k / 1024 / (64 + n) }'
    done
    unset best wall rss
}

printf '%-12s %5s %5s %11s %8s %12s %12s %7s %10s %9s %7s\n' command rings log2 records cpu_s rec/s_cpu rec/s_wall ratio \
    peak_RSS RSS/ring budget
for l in $log2_list; do
    for n in $rings_list; do
        read -r procs threads <<< "$(shape "$n")"
        d=$work/r$n.$l
        rm -rf "$d" "$d.sched"
        # scheduler data up to 2^26 ring records (beyond, it would take GBs)
        cmds=$commands sched=--sched
        if [ $(( n << l )) -gt $(( 1 << 26 )) ]; then
            sched=
            cmds=$(tr ' ' '\n' <<< "$commands" | grep -v '_sched$' | tr '\n' ' ')
            echo "# $n x 2^$l: no scheduler data (more than 2^26 records): no *_sched rows"
        fi
        records=$("$work/gen_rings" --dir "$d" --procs "$procs" --threads "$threads" --log2 "$l" $sched 2> "$work/gen.txt") ||
            { cat "$work/gen.txt" >&2; exit 1; }
        # the same rings beside the scheduler data, each a finished run
        mkdir "$d.sched"
        [ -z "$sched" ] || mv "$d/sched.latrec" "$d.sched/"
        ln "$d"/*.latrec "$d.sched/"
        echo '{"state": "finished"}' | tee "$d/run.json" > "$d.sched/run.json"
        # The analysis must read the rings as built: every record, every seq
        # one complete outbound instance (records / 4 of them), each split.
        json=$("$latrec" report -q --format json "$d")
        got=$(jq '[.legs[]? | select(.leg == "outbound") | .complete // .instances] | add // 0' <<< "$json" 2> /dev/null || echo "?")
        want=$(( records / 4 ))
        if [ "$got" != "$want" ]; then
            echo "bench_engine: report reads $got complete outbound instances in $d, built $want" >&2
            exit 1
        fi
        json=$("$latrec" report -q --format json "$d.sched")
        got=$(jq '[.legs[]? | select(.leg == "outbound") | .hops[] | select(.hop == "total") | .sched.split] | add // 0' \
            <<< "$json" 2> /dev/null || echo "?")
        if [ -n "$sched" ] && [ "$got" != "$want" ]; then
            echo "bench_engine: report splits $got outbound instances in $d.sched, built $want" >&2
            exit 1
        fi
        sed -n 's/^gen_rings: .*: \([0-9]*\) scheduler records$/# sched.latrec beside them: \1 scheduler records/p' "$work/gen.txt"
        measure_shape "$d" "$n" "$l" "$records" "$cmds"
        rm -rf "$d" "$d.sched" "$work/csv"
    done
done

# A recorded run of the bundled E3 workload (E3=0 leaves it out): every leg
# of the e3 catalog, its paths complete end to end, its own scheduler data
# when the collector runs (root), rings of 2^21 records that do not wrap;
# users' runs look like this (several legs: several tables, read by process
# as one). The bare pass files the stages of the outbound chain only
# (its stage table): on these rings its ratio is a yardstick, not the same
# work.
e3loop=$build/tests/workloads/e3loop
if [ "${E3:-1}" = 1 ] && [ -x "$e3loop" ]; then
    rec=$work/e3.run d=$work/e3
    record_e3() {
        rm -rf "$rec"
        LATREC_ENTRIES_LOG2=21 "$latrec" record -q "$1" -o "$rec" -- "$e3loop" --duration "${E3_SECONDS:-4}" \
            --rate 20000 --threads 4 > /dev/null 2> "$work/e3.err"
    }
    record_e3 --require-sched || record_e3 --no-sched || { cat "$work/e3.err" >&2; exit 1; }
    mkdir "$d" "$d.sched"
    ln "$rec"/rings/*.latrec "$d/"
    ln "$rec"/rings/*.latrec "$d.sched/"
    cmds=$commands
    if [ -f "$rec/sched.latrec" ]; then
        ln "$rec/sched.latrec" "$d.sched/"
    else
        cmds=$(tr ' ' '\n' <<< "$commands" | grep -v '_sched$' | tr '\n' ' ')
        echo "# e3loop: no scheduler data ($(head -1 "$work/e3.err")): no *_sched rows"
    fi
    echo '{"state": "finished"}' | tee "$d/run.json" > "$d.sched/run.json"
    summary=$("$latrec" report "$d" | grep '^# rings:')
    records=$(sed -n 's/.*records: \([0-9]*\).*/\1/p' <<< "$summary")
    [[ "$summary" == *" 0 wrapped)"*"lost: 0 "* ]] || { echo "bench_engine: the e3loop run lost records: $summary" >&2; exit 1; }
    echo "# e3loop recorded (4 source threads at 20 kHz, e3 catalog, paths on by default): $summary"
    measure_shape "$d" "$(find "$d" -name '*.latrec' | wc -l)" 21 "$records" "$cmds"
fi
