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
#
# Then 100 legs x 10,000 instances (one ring, a catalog of 100 two-stage
# legs, lognormal hops; written by the build's gen_synthetic): the page's
# size, the time to write it, and, with Chromium and the test tools of
# tests/js installed (tests/js/install.sh BUILD_DIR/js), the time the
# browser takes to load it.
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

# ---- 100 legs x 10,000 instances
gen=$build/tests/gen_synthetic
if [ ! -x "$gen" ]; then echo "bench_html: no $gen: 100-leg page not measured"; exit 0; fi
python3 - "$work/many" <<'PY'
import random, sys
d = sys.argv[1]
random.seed(1)
with open(d + '.catalog', 'w') as f:
    f.write('catalog many\n')
    for k in range(1, 101):
        f.write('stage 0x%02x S%03dA\nstage 0x%02x S%03dB\n' % (2 * k - 1, k, 2 * k, k))
    for k in range(1, 101):
        f.write('leg leg%03d S%03dA S%03dB\n' % (k, k, k))
    f.write('component app app\n')
with open(d + '.spec', 'w') as f:
    f.write('ring app.1 version=3 pid=1000 tid=1 catalog=many\n')
    t = 2_000_000_000
    for i in range(1, 10001):
        for k in range(1, 101):
            t += 100000
            v = min(int(random.lognormvariate(8, 1)), 90000)
            f.write('rec app.1 %d %d %d\nrec app.1 %d %d %d\n' % (2 * k - 1, i, t, 2 * k, i, t + v))
PY
"$gen" "$work/many" < "$work/many.spec"
/usr/bin/time -f '%e %U %S' -o "$work/time" "$latrec" report -q "$work/many" --catalog "$work/many.catalog" \
    --format html -o "$work/many.html"
read -r wall user sys < "$work/time"
printf '100 legs x 10000 instances: html %s s wall, %s s CPU, %s bytes\n' "$wall" \
    "$(awk -v u="$user" -v s="$sys" 'BEGIN { print u + s }')" "$(stat -c %s "$work/many.html")"
if [ -d "$build/js/node_modules/puppeteer-core" ] && command -v chromium >/dev/null; then
    printf '100 legs in Chromium: %s\n' "$(NODE_PATH="$build/js/node_modules" node "$here/../js/page_load_time.js" "$work/many.html")"
else
    echo "100 legs in Chromium: not measured (no chromium or no $build/js/node_modules: tests/js/install.sh $build/js)"
fi
