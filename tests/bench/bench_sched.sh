#!/usr/bin/env bash
# bench_sched.sh - cost and reach of the BPF scheduler collector of
# `latrec record`, and how its figures compare with runqlat's.
#
#   tests/bench/bench_sched.sh [BUILD_DIR]
#
# 1. Overhead. The bundled e3loop recorded with the collector and without
#    it (--no-sched), the two alternating, REPEAT (default 5) times each:
#      paced     --threads 2 --rate 2000 for DURATION (default 3) s: the
#                indications/s achieved and the end-to-end p99 (latrec
#                report --format csv, libe3/outbound total p99_us);
#      flat      --threads 2 --rate 1000000: the indications/s achieved
#                (complete libe3/outbound instances / DURATION), i.e. the
#                throughput the collector costs, latrec's drain included;
#      pinned    the same with e3loop on the last CPU (-c) and latrec on
#                CPU 0 (taskset): what the in-kernel part costs the
#                pipeline when latrec runs on a housekeeping CPU.
#    The two settings alternate in ABBA order; run directories go to
#    /dev/shm (BENCH_DIR overrides). Prints each run, then the medians and
#    the ratio with/without. Target:
#    <= 3% throughput loss. On a shared machine the run-to-run spread can
#    exceed the effect: read the per-run lines too.
# 2. Reach. A switch-heavy load (perf bench sched pipe; else hackbench;
#    else e3loop flat out) recorded at --sched-buffer 16K 64K 256K 1M 8M:
#    events/s offered (written / run time), delivered (read from the ring
#    buffer), lost, the share lost, and the ceiling the buffer gives
#    (buffer / 40 bytes per event per 50 ms drain).
# 3. runqlat. REPEAT runs of a contended e3loop (one CPU, the dApp
#    spinning) under `latrec record` with libbpf-tools' runqlat -p on the
#    same process for the same run: runqueue waits counted by each, and
#    the log2 buckets of p50 and p99 (the same comparison as the ctest
#    cli_sched_record, repeated here for the figures).
#
# Needs root (BPF), jq, python3; perf or hackbench and runqlat
# (Debian libbpf-tools) for parts 2 and 3, which are skipped without them.
# Environment: LATREC, E3LOOP (default: the build's), REPEAT, DURATION,
# PARTS (default "1 2 3": which parts to run).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
build=${1:-$src/build}
latrec=${LATREC:-$build/src/cli/latrec}
e3loop=${E3LOOP:-$build/tests/workloads/e3loop}
repeat=${REPEAT:-5}
duration=${DURATION:-3}
parts=" ${PARTS:-1 2 3} "
# run directories on tmpfs when there is one: the rings are then renamed
# into place, not copied to a disk whose writeback would load the next run
if [ -z "${BENCH_DIR:-}" ] && [ -d /dev/shm ] && [ -w /dev/shm ]; then BENCH_DIR=/dev/shm; fi
work=$(mktemp -d "${BENCH_DIR:-${TMPDIR:-/tmp}}/latrec-bench-sched.XXXXXX")
bg=""
cleanup() {
    for p in $bg; do kill -TERM "$p" 2>/dev/null || true; done
    rm -rf "$work"
}
trap cleanup EXIT

die() { echo "bench_sched: $*" >&2; exit 1; }
[ -x "$latrec" ] || die "no latrec binary at $latrec (build first, or set LATREC)"
[ -x "$e3loop" ] || die "no e3loop at $e3loop (build first, or set E3LOOP)"
command -v jq >/dev/null || die "jq missing (apt-get install jq)"
command -v python3 >/dev/null || die "python3 missing"
[ "$(id -u)" -eq 0 ] || die "needs root (the BPF collector)"
"$latrec" record -q --require-sched -o "$work/probe" -- true 2>"$work/probe.err" ||
    die "no scheduler data: $(head -1 "$work/probe.err")"

median() { python3 -c 'import sys, statistics; print(statistics.median(float(x) for x in sys.argv[1:]))' "$@"; }

# ---- 1. overhead ----------------------------------------------------------------------------

# one_run MODE SCHED: prints "indications_per_s p99_us sched_events sched_lost"
ncpu=$(nproc)
one_run() {
    local mode=$1 sched=$2 rate args=() pre=()
    [ "$mode" = paced ] && rate=2000 || rate=1000000
    [ "$sched" = on ] || args=(--no-sched)
    if [ "$mode" = pinned ] && [ "$ncpu" -gt 1 ]; then
        pre=(taskset -c 0)
        args+=(-c "$((ncpu - 1))")
    fi
    rm -rf "$work/run"
    "${pre[@]}" "$latrec" record -q -o "$work/run" --entries-log2 20 "${args[@]}" -- \
        "$e3loop" --duration "$duration" --threads 2 --rate "$rate" >/dev/null 2>&1
    local line
    line=$("$latrec" report -q --format csv "$work/run" 2>/dev/null |
        awk -F, '$1 == "libe3" && $2 == "outbound" && $3 == "total" { print $5, $10 }')
    [ -n "$line" ] || die "no libe3/outbound total in the report of $work/run"
    set -- $line
    local ev lost
    ev=$(jq -r '.collectors.sched.events // 0' "$work/run/run.json")
    lost=$(jq -r '.collectors.sched.lost // 0' "$work/run/run.json")
    python3 -c "print(f'{$1 / $duration:.0f} $2 $ev $lost')"
}

[[ "$parts" == *" 1 "* ]] && echo "== 1. overhead: e3loop --threads 2, $duration s, $repeat runs each, alternating with/without the collector"
for mode in paced flat pinned; do
    [[ "$parts" == *" 1 "* ]] || break
    on_tp=() off_tp=() on_p99=() off_p99=()
    for i in $(seq "$repeat"); do
        # ABBA order: neither setting always runs first
        order="on off"
        [ $((i % 2)) -eq 0 ] && order="off on"
        for sched in $order; do
            set -- $(one_run "$mode" "$sched")
            printf '%-6s run %d sched=%-3s  %8s indications/s  p99 %9s us  sched events %8s lost %s\n' \
                "$mode" "$i" "$sched" "$1" "$2" "$3" "$4"
            if [ "$sched" = on ]; then on_tp+=("$1"); on_p99+=("$2"); else off_tp+=("$1"); off_p99+=("$2"); fi
        done
    done
    python3 - "$mode" "${#on_tp[@]}" "${on_tp[@]}" "${off_tp[@]}" "${on_p99[@]}" "${off_p99[@]}" <<'EOF'
import statistics, sys
mode, n = sys.argv[1], int(sys.argv[2]); v = [float(x) for x in sys.argv[3:]]
on_tp, off_tp, on_p, off_p = v[:n], v[n:2 * n], v[2 * n:3 * n], v[3 * n:]
m = statistics.median
print(f"{mode}: median throughput with {m(on_tp):.0f}/s, without {m(off_tp):.0f}/s: "
      f"ratio {m(on_tp) / m(off_tp):.4f} ({100 * (1 - m(on_tp) / m(off_tp)):+.2f}% loss); "
      f"median p99 with {m(on_p):.1f} us, without {m(off_p):.1f} us: ratio {m(on_p) / m(off_p):.3f}")
EOF
done

# ---- 2. reach ----------------------------------------------------------------------------------

if [[ "$parts" == *" 2 "* ]]; then
echo
if command -v perf >/dev/null && perf bench sched pipe -l 1000 >/dev/null 2>&1; then
    load=(perf bench sched pipe -l 400000); what="perf bench sched pipe -l 400000"
elif command -v hackbench >/dev/null; then
    load=(hackbench -g 4 -l 4000); what="hackbench -g 4 -l 4000"
else
    load=("$e3loop" --duration "$duration" --threads 4 --rate 1000000); what="e3loop flat out"
fi
echo "== 2. reach: $what under latrec record, by --sched-buffer (drained every 50 ms)"
printf '%8s %12s %12s %10s %8s %14s\n' buffer offered/s delivered/s lost lost% "ceiling/s"
for b in 16K 64K 256K 1M 8M; do
    rm -rf "$work/run"
    "$latrec" record -q -o "$work/run" --sched-buffer "$b" -- "${load[@]}" >/dev/null 2>&1
    jq -r '.collectors.sched as $s | ((.stop_stamp.mono_ns - .start_stamp.mono_ns) / 1e9) as $d |
        [$s.buffer_bytes, ($s.written / $d | floor), ($s.events / $d | floor), $s.lost,
         (100 * $s.lost / ($s.written + 0.000001) | . * 10 | round / 10),
         ($s.buffer_bytes / 40 * 20 | floor)] | @tsv' "$work/run/run.json" |
        awk -v b="$b" '{ printf "%8s %12d %12d %10d %7.1f%% %14d\n", b, $2, $3, $4, $5, $6 }'
done
fi

# ---- 3. runqlat -----------------------------------------------------------------------------------

[[ "$parts" == *" 3 "* ]] || exit 0
echo
rq=$(command -v runqlat || dpkg -L libbpf-tools 2>/dev/null | grep -m1 '/runqlat$' || true)
if [ -z "$rq" ]; then
    echo "== 3. runqlat: skipped (runqlat from libbpf-tools is not installed)"
    exit 0
fi
echo "== 3. runqlat -p vs sched.latrec, the same process over the same run (e3loop on CPU 0, dApp spinning 100 us), $repeat runs"
for i in $(seq "$repeat"); do
    d="$work/rq$i"
    mkdir -p "$d"
    "$latrec" record -q -o "$d/r" -c 0 -- sh -c 'i=0; while [ ! -e "$0" ] && [ $i -lt 3000 ]; do sleep 0.01; i=$((i + 1)); done
        exec "$1" --duration 2 --threads 2 --rate 2000 --spin-hop process_done:100us' "$d/go" "$e3loop" >/dev/null 2>&1 &
    lat=$!
    bg="$lat"
    for _ in $(seq 200); do jq -e '.launch.release_to_exec_ns' "$d/r/run.json" >/dev/null 2>&1 && break; sleep 0.05; done
    pid=$(jq -r .pid "$d/r/run.json")
    : >"$d/rq.out"
    stdbuf -oL "$rq" -p "$pid" >"$d/rq.out" 2>&1 &
    rqp=$!
    bg="$lat $rqp"
    for _ in $(seq 300); do grep -q Tracing "$d/rq.out" && break; sleep 0.05; done
    touch "$d/go"
    wait "$lat" || true
    kill -INT "$rqp"
    wait "$rqp" || true
    bg=""
    "$latrec" convert -q -o "$d/csv" "$d/r" >/dev/null
    python3 - "$d/csv/records.csv" "$d/rq.out" "$pid" "$i" "$here/../cli" <<'EOF'
import sys
sys.dont_write_bytecode = True  # nothing written beside the sources
sys.path.insert(0, sys.argv[5])
from runqlat_counts import latrec_waits, runqlat_waits, pct
ours = latrec_waits(sys.argv[1], int(sys.argv[3]))
theirs = runqlat_waits(sys.argv[2])
def b(s): return f"[{2**s if s else 0},{2**(s + 1) - 1}]us"
n1, n2 = sum(ours.values()), sum(theirs.values())
print(f"run {sys.argv[4]}: waits latrec {n1} runqlat {n2} ({100.0 * (n1 - n2) / max(n2, 1):+.2f}%); "
      f"p50 {b(pct(ours, .5))} / {b(pct(theirs, .5))}; p99 {b(pct(ours, .99))} / {b(pct(theirs, .99))}")
EOF
done
