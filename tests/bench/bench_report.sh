#!/usr/bin/env bash
# bench_report.sh - throughput and memory of `latrec report` and `latrec hist`.
#
#   tests/bench/bench_report.sh [BUILD_DIR] [LOG2...]
#
# For each LOG2 (default: 18 20) writes 16 v3 rings of 2^LOG2 records each
# (4 processes x 4 threads, one 4-stage E3 outbound leg per seq whose stages
# run on different threads; tests/bench/gen_rings.c when it is there, else
# the generator below), then runs `latrec report` and `latrec hist` on them
# once cold-ish (page cache warm from writing) and REPEAT (default 3) times,
# and prints per command and size:
#   records/s   records read / wall time of the best run (one core: the
#               analysis is single-threaded)
#   peak RSS    /usr/bin/time -v "Maximum resident set size": includes the
#               pages of the mmap'd ring files that were touched
#   peak anon   peak RssAnon polled from /proc/PID/status every 20 ms: the
#               heap, what the analysis itself holds
# and whether the heap grows with the records (peak anon at the largest size
# against the smallest; the rings' own pages are expected to grow).
#
# Needs /usr/bin/time (Debian package `time`) and a C compiler for the
# generator. Target: >= 50 M records/s on one core.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
build=${1:-$src/build}
shift || true
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(18 20)
repeat=${REPEAT:-3}
latrec=${LATREC:-$build/src/cli/latrec}
work=${BENCH_DIR:-$(mktemp -d "${TMPDIR:-/tmp}/latrec-bench-report.XXXXXX")}
trap 'rm -rf "$work"' EXIT

[ -x "$latrec" ] || { echo "bench_report: no latrec binary at $latrec (build first, or set LATREC)" >&2; exit 1; }
[ -x /usr/bin/time ] || { echo "bench_report: /usr/bin/time missing (apt-get install time)" >&2; exit 1; }
cc=${CC:-cc}

# The generator: the convert benchmark's when present, else this one.
gen=$work/gen_rings
if [ -f "$here/gen_rings.c" ]; then
    "$cc" -O2 -std=gnu11 -I"$src/include" -o "$gen" "$here/gen_rings.c"
    gen_args() { echo "--dir $1 --procs 4 --threads 4 --log2 $2"; }
else
    cat > "$work/gen.c" <<'EOF'
/* 16 v3 rings (4 pids x 4 tids) of 2^L records; seq s of process p stamps
 * ENQUEUE, DEQUEUE, ENCODE_E3AP_DONE, SEND_DONE on threads (s + k) mod 4,
 * every 5 us, hops 2-50 / 1-3 / 3-10 us. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "latrec/format.h"
#include "latrec/stages.h"
int main(int argc, char **argv)
{
    const char *dir = argv[1];
    unsigned l = (unsigned)atoi(argv[2]);
    uint64_t n = 1ull << l;
    static const unsigned st[4] = { LATREC_ENQUEUE, LATREC_DEQUEUE, LATREC_ENCODE_E3AP_DONE, LATREC_SEND_DONE };
    for (unsigned p = 0; p < 4; p++) {
        latrec_rec *r[4];
        uint64_t k[4] = { 0 };
        for (unsigned t = 0; t < 4; t++) r[t] = calloc(n, sizeof(latrec_rec));
        uint64_t t0 = 1000000000ull + p * 777;
        for (uint64_t s = 1; k[0] < n && k[1] < n && k[2] < n && k[3] < n; s++) {
            uint64_t t = t0 + s * 5000, h[4] = { 0, 2000 + (s * 7919) % 48000, 1000 + (s * 31) % 2000, 3000 + (s * 13) % 7000 };
            for (unsigned j = 0; j < 4; j++) {
                t += h[j];
                unsigned th = (unsigned)((s + j) % 4);
                r[th][k[th]].sc = (s & LATREC_SEQ_MASK) | (uint64_t)th << 48 | (uint64_t)st[j] << 56;
                r[th][k[th]].t_ns = t;
                k[th]++;
            }
        }
        for (unsigned t = 0; t < 4; t++) {
            /* each thread's records in time order */
            for (uint64_t i = 1; i < k[t]; i++)
                for (uint64_t j = i; j > 0 && r[t][j - 1].t_ns > r[t][j].t_ns; j--) {
                    latrec_rec x = r[t][j]; r[t][j] = r[t][j - 1]; r[t][j - 1] = x;
                }
            latrec_hdr hd;
            memset(&hd, 0, sizeof(hd));
            hd.magic = LATREC_MAGIC; hd.version = 3; hd.entries = n; hd.rec_count = k[t];
            hd.rec_size = LATREC_REC_SIZE; hd.pid = 7000 + p; hd.tid = 7000 + 100 * p + t;
            hd.t0_mono_ns = t0; hd.clock_id = 1;
            snprintf(hd.name, sizeof(hd.name), "libe3.pipe.%u", hd.tid);
            snprintf(hd.catalog, sizeof(hd.catalog), "e3");
            char path[4096];
            snprintf(path, sizeof(path), "%s/%s.latrec", dir, hd.name);
            FILE *f = fopen(path, "wb");
            if (!f || fwrite(&hd, sizeof(hd), 1, f) != 1 || fwrite(r[t], sizeof(latrec_rec), n, f) != n || fclose(f) != 0) {
                perror(path);
                return 1;
            }
            free(r[t]);
        }
    }
    return 0;
}
EOF
    "$cc" -O2 -std=gnu11 -I"$src/include" -o "$gen" "$work/gen.c"
    gen_args() { echo "$1 $2"; }
fi

# Run "$@" under /usr/bin/time -v, polling RssAnon. Sets SECS, RSS_KB, ANON_KB.
measure() {
    local tf=$work/time.txt
    /usr/bin/time -v -o "$tf" "$@" > /dev/null 2> "$work/stderr.txt" &
    local tpid=$! pid="" anon=0
    while kill -0 "$tpid" 2> /dev/null; do
        [ -n "$pid" ] || pid=$(pgrep -P "$tpid" 2> /dev/null | head -1 || true)
        if [ -n "$pid" ] && [ -r "/proc/$pid/status" ]; then
            local a
            a=$(awk '/^RssAnon:/ { print $2 }' "/proc/$pid/status" 2> /dev/null || true)
            [ -n "$a" ] && [ "$a" -gt "$anon" ] && anon=$a
        fi
        sleep 0.02
    done
    wait "$tpid" || { echo "bench_report: $* failed:" >&2; cat "$work/stderr.txt" >&2; exit 1; }
    SECS=$(awk -F': ' '/Elapsed \(wall clock\)/ { n = split($2, p, ":"); s = 0; for (i = 1; i <= n; i++) s = s * 60 + p[i]; print s }' "$tf")
    RSS_KB=$(awk -F': ' '/Maximum resident set size/ { print $2 }' "$tf")
    ANON_KB=$anon
}

printf '%-7s %-6s %12s %9s %12s %11s %11s\n' command rings records seconds "records/s" "peak_RSS" "peak_anon"
declare -A anon_at
for l in "${sizes[@]}"; do
    d=$work/run$l
    mkdir -p "$d"
    # shellcheck disable=SC2046
    "$gen" $(gen_args "$d" "$l") > /dev/null
    records=$(( 16 << l ))
    for cmd in report hist; do
        best=""
        peak_rss=0
        peak_anon=0
        for _ in $(seq "$repeat"); do
            measure "$latrec" "$cmd" -q "$d"
            if [ -z "$best" ] || awk -v a="$SECS" -v b="$best" 'BEGIN { exit !(a < b) }'; then best=$SECS; fi
            [ "$RSS_KB" -gt "$peak_rss" ] && peak_rss=$RSS_KB
            [ "$ANON_KB" -gt "$peak_anon" ] && peak_anon=$ANON_KB
        done
        rate=$(awk -v n="$records" -v s="$best" 'BEGIN { printf "%.1fM", (s > 0 ? n / s / 1e6 : 0) }')
        printf '%-7s %-6s %12d %9.2f %12s %9.1fMB %9.1fMB\n' "$cmd" 16 "$records" "$best" "$rate" \
            "$(awk -v k="$peak_rss" 'BEGIN { print k / 1024 }')" "$(awk -v k="$peak_anon" 'BEGIN { print k / 1024 }')"
        anon_at[$cmd.$l]=$peak_anon
    done
    rm -rf "$d"
done

if [ ${#sizes[@]} -ge 2 ]; then
    lo=${sizes[0]} hi=${sizes[${#sizes[@]}-1]}
    for cmd in report hist; do
        a=${anon_at[$cmd.$lo]} b=${anon_at[$cmd.$hi]}
        verdict=$(awk -v a="$a" -v b="$b" 'BEGIN { print (b <= a * 1.25 + 8192) ? "flat" : "GROWS" }')
        printf '%s heap: %.1f MB at 2^%s records/ring, %.1f MB at 2^%s: %s\n' "$cmd" \
            "$(awk -v k="$a" 'BEGIN { print k / 1024 }')" "$lo" "$(awk -v k="$b" 'BEGIN { print k / 1024 }')" "$hi" "$verdict"
    done
fi
