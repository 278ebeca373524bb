#!/usr/bin/env bash
# bench_top.sh - what `latrec top` costs while a target stamps about 1 M
# records/s.
#
#   tests/bench/bench_top.sh [BUILD_DIR]
#
# `latrec record` runs stamp_rate (tests/bench/stamp_rate.c: TOP_THREADS
# threads, default 2, stamping the E3 outbound leg at TOP_RATE records/s in
# all, default 1000000, for TOP_SECONDS, default 10) in the background;
# `latrec top --format json` watches its directory to the end of the run
# for each interval in TOP_INTERVALS (default "1s 100ms"), and each of
# TOP_SCHED (default "off on": record with --no-sched, then with the
# scheduler collector, so that top splits every instance from the live
# sched.latrec; "on" is skipped with the reason when BPF cannot load), under
# /usr/bin/time. top launches nothing itself there, so its user + sys time is
# its own. Prints per interval and mode:
#   - top's CPU share: (user + sys) / wall of the top process;
#   - the records it read against those stamp_rate stamped, and the lost
#     and lapped ones (the reader fell behind the writer);
#   - with the split on: the instances split, those left waiting or unsplit
#     at the end, and the scheduler records in the run;
#   - the reference, measured right after on the same finished run: a bare
#     C pass (tests/bench/bench_bare.c) and `latrec report -q`, CPU
#     seconds, and top's CPU time as a ratio to each (what following the run
#     live costs over reading it once afterwards).
#
# Needs /usr/bin/time (Debian package `time`), jq and a built tree.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
build=$(cd "${1:-$src/build}" && pwd)
latrec=${LATREC:-$build/src/cli/latrec}
stamper=$build/tests/bench/stamp_rate
rate=${TOP_RATE:-1000000}
secs=${TOP_SECONDS:-10}
threads=${TOP_THREADS:-2}
intervals=${TOP_INTERVALS:-"1s 100ms"}
scheds=${TOP_SCHED:-"off on"}
work=$(mktemp -d "${TMPDIR:-/tmp}/latrec-bench-top.XXXXXX")
trap 'rm -rf "$work"' EXIT
for x in "$latrec" "$stamper"; do
    [ -x "$x" ] || { echo "bench_top: no $x (build first)" >&2; exit 1; }
done
[ -x /usr/bin/time ] || { echo "bench_top: /usr/bin/time missing (apt-get install time)" >&2; exit 1; }
command -v jq >/dev/null || { echo "bench_top: jq missing (apt-get install jq)" >&2; exit 1; }
cc=${CC:-cc}
"$cc" -O2 -std=gnu11 -I"$src/include" -o "$work/bench_bare" "$here/bench_bare.c"

cpu() { awk '{ printf "%.3f", $1 + $2 }' "$1"; }

echo "== latrec top while stamp_rate stamps $rate records/s ($threads threads, $secs s)"
for sched in $scheds; do
for iv in $intervals; do
    run="$work/run-$iv"
    if [ "$sched" = on ]; then
        if ! "$latrec" record -q --require-sched -o "$work/probe" -- true 2>"$work/probe.err"; then
            echo "top --interval $iv, split on: skipped ($(head -1 "$work/probe.err"))"
            continue
        fi
        rm -rf "$work/probe"
        sched_opt=--require-sched
    else
        sched_opt=--no-sched
    fi
    # 2^22 slots a ring: the writer never laps a reader that keeps up
    "$latrec" record -q $sched_opt --entries-log2 22 -o "$run" -- \
        "$stamper" --rate "$rate" --seconds "$secs" --threads "$threads" >"$work/stamped" &
    rec=$!
    for _ in $(seq 200); do [ -e "$run/run.json" ] && break; sleep 0.05; done
    /usr/bin/time -f "%U %S %e" -o "$work/time.top" \
        "$latrec" top --format json --interval "$iv" "$run" >"$work/top.jsonl" 2>"$work/top.err"
    wait "$rec"
    stamped=$(cat "$work/stamped")
    read -r u s e <"$work/time.top"
    last=$(tail -1 "$work/top.jsonl")
    read_n=$(jq -r .records <<<"$last")
    lost=$(jq -r .lost <<<"$last")
    lapped=$(jq -r '[.rings[].lapped // 0] | add' <<<"$last")
    blocks=$(wc -l <"$work/top.jsonl")
    split=$(jq -r '[.legs[].sched.split // 0] | add // 0' <<<"$last")
    waiting=$(jq -r '.sched.waiting // 0' <<<"$last")
    unsplit=$(jq -r '.sched.unsplit // 0' <<<"$last")
    /usr/bin/time -f "%U %S %e" -o "$work/time.bare" "$work/bench_bare" "$run/rings" >/dev/null
    /usr/bin/time -f "%U %S %e" -o "$work/time.report" "$latrec" report -q "$run" >/dev/null
    awk -v u="$u" -v s="$s" -v e="$e" -v iv="$iv" -v n="$read_n" -v st="$stamped" -v l="$lost" -v lp="$lapped" \
        -v b="$blocks" -v sc="$sched" -v sp="$split" -v w="$waiting" -v us="$unsplit" \
        -v sr="$(jq -r '.collectors.sched.records // 0' "$run/run.json")" -v bare="$(cpu "$work/time.bare")" -v rep="$(cpu "$work/time.report")" 'BEGIN {
        c = u + s
        printf "top --interval %s, split %s: CPU share %.1f %% (user %.2f s + sys %.2f s over %.2f s wall), %d blocks\n",
            iv, sc, 100 * c / e, u, s, e, b
        printf "  read %d of %d records stamped (lost %d, lapped %d)\n", n, st, l, lp
        if (sc == "on") printf "  instances split %d (waiting at the end %d, unsplit %d), scheduler records %d\n", sp, w, us, sr
        printf "  same run afterwards: bare pass %.2f s CPU, latrec report %.2f s CPU; top / bare %.2f, top / report %.2f\n",
            bare, rep, (bare > 0 ? c / bare : 0), (rep > 0 ? c / rep : 0)
    }'
    rm -rf "$run"
done
done
