#!/usr/bin/env bash
# bench_html.sh - size and time to write `latrec report --format html`.
#
#   tests/bench/bench_html.sh [BUILD_DIR] [LOG2]
#
# Writes 16 v3 rings of 2^LOG2 records (default 20: 16 x 2^20, 512 MiB; 4
# processes x 4 threads, the E3 outbound leg across threads, gen_rings.c),
# then runs, REPEAT (default 3) times in turn, the JSON report (the
# reference: the same passes without charts) and the HTML page of the same
# run, and prints per format the best wall time and CPU time, the ratio
# HTML / JSON measured in the same rounds, and the size of each file. The
# page is drawn from pre-binned data, so its size does not grow with the
# records (compare LOG2 16 and 20).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
build=${1:-$src/build}
log2=${2:-20}
repeat=${REPEAT:-3}
latrec=${LATREC:-$build/src/cli/latrec}
work=${BENCH_DIR:-$(mktemp -d "${TMPDIR:-/tmp}/latrec-bench-html.XXXXXX")}
trap 'rm -rf "$work"' EXIT
[ -x "$latrec" ] || { echo "bench_html: no latrec binary at $latrec (build first, or set LATREC)" >&2; exit 1; }
[ -x /usr/bin/time ] || { echo "bench_html: /usr/bin/time missing (apt-get install time)" >&2; exit 1; }

"${CC:-cc}" -O2 -std=gnu11 -I"$src/include" -o "$work/gen_rings" "$here/gen_rings.c"
records=$("$work/gen_rings" --dir "$work/run" --procs 4 --threads 4 --log2 "$log2")
echo "bench_html: 16 rings x 2^$log2 records ($records records)"

# one run: wall and CPU seconds into the named variables
measure() {
    local fmt=$1 out=$2
    /usr/bin/time -f '%e %U %S' -o "$work/time" "$latrec" report -q "$work/run" --format "$fmt" -o "$out"
    read -r wall user sys < "$work/time"
    echo "$wall $(awk -v u="$user" -v s="$sys" 'BEGIN { print u + s }')"
}

best_json_wall=; best_html_wall=; ratios=()
for ((i = 0; i < repeat; i++)); do
    rm -f "$work/r.json" "$work/r.html"
    read -r jw jc < <(measure json "$work/r.json")
    read -r hw hc < <(measure html "$work/r.html")
    ratios+=("$(awk -v h="$hc" -v j="$jc" 'BEGIN { printf "%.3f", (j > 0 ? h / j : 0) }')")
    if [ -z "$best_json_wall" ] || awk -v a="$jw" -v b="$best_json_wall" 'BEGIN { exit !(a < b) }'; then
        best_json_wall=$jw; best_json_cpu=$jc; fi
    if [ -z "$best_html_wall" ] || awk -v a="$hw" -v b="$best_html_wall" 'BEGIN { exit !(a < b) }'; then
        best_html_wall=$hw; best_html_cpu=$hc; fi
done
printf 'json  best %s s wall, %s s CPU, %s bytes\n' "$best_json_wall" "$best_json_cpu" "$(stat -c %s "$work/r.json")"
printf 'html  best %s s wall, %s s CPU, %s bytes\n' "$best_html_wall" "$best_html_cpu" "$(stat -c %s "$work/r.html")"
printf 'html / json CPU time per round: %s\n' "${ratios[*]}"
