#!/bin/sh
# bench_convert.sh - throughput and memory of `latrec convert` on a large run.
#
#   tests/bench/bench_convert.sh [--latrec PATH] [--work DIR] [--out DIR]
#                                [--procs P] [--threads T] [--log2 L]
#                                [--repeat N] [--regen] [--strict]
#
# 1. builds tests/bench/gen_rings.c and tests/bench/bench_read.c with cc
#    (no CMake needed) into WORK/bin;
# 2. writes P x T full v3 rings of 2^L records into WORK/rings (default
#    4 x 4 x 2^20 = 16 rings, 16.8 M records, 512 MiB; kept between runs
#    while the parameters stay the same, rewritten with --regen): a 4-stage
#    E3 outbound leg per message whose stages run on different threads of
#    each process. Note: the reader maps the rings, and how fast a mapping
#    faults in depends on how the files sit in the page cache: rings just
#    written (as after a run) map several times faster than rings read back
#    from disk after the cache dropped them; --regen gives the first case;
# 3. measures, best of N runs (default 3), with /usr/bin/time -v:
#      cat       the ring files to /dev/null: the page-cache limit, GB/s
#      plain     bench_read: open + validate every ring, visit every
#                record (records/s, peak RSS); also the k-way merge rate
#      convert   `latrec convert -q -o OUT`: rings.csv, records.csv and
#                the component table (records/s over the whole command,
#                peak RSS), output into OUT (default WORK/out; point it
#                at a tmpfs such as /dev/shm/x to leave the disk out)
# 4. prints the figures against the targets (convert >= 5.6 M records/s,
#    peak RSS <= 150 MiB, plain pass >= 100 M records/s). With --strict
#    the exit status is 1 when a target is missed.
#
# LATREC (or --latrec) names the binary; default build-c/src/cli/latrec,
# then build/src/cli/latrec, then latrec in PATH. CC defaults to cc.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
latrec=${LATREC:-}
work=${BENCH_WORK:-$top/build-c/bench-convert}
out=
procs=4
threads=4
log2=20
repeat=3
strict=0
regen=0
while [ $# -gt 0 ]; do
    case $1 in
    --latrec) latrec=$2; shift 2 ;;
    --work) work=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --procs) procs=$2; shift 2 ;;
    --threads) threads=$2; shift 2 ;;
    --log2) log2=$2; shift 2 ;;
    --repeat) repeat=$2; shift 2 ;;
    --strict) strict=1; shift ;;
    --regen) regen=1; shift ;;
    -h|--help) sed -n '2,/^set -eu/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "bench_convert: unknown option $1 (see --help)" >&2; exit 2 ;;
    esac
done
[ -n "$out" ] || out=$work/out
if [ -z "$latrec" ]; then
    for c in "$top/build-c/src/cli/latrec" "$top/build/src/cli/latrec"; do
        if [ -x "$c" ]; then latrec=$c; break; fi
    done
    [ -n "$latrec" ] || latrec=$(command -v latrec || true)
fi
if [ -z "$latrec" ] || [ ! -x "$latrec" ]; then
    echo "bench_convert: no latrec binary (build it, or pass --latrec PATH)" >&2
    exit 2
fi
if [ ! -x /usr/bin/time ]; then
    echo "bench_convert: installing GNU time (/usr/bin/time)" >&2
    apt-get install -y time >/dev/null
fi

mkdir -p "$work/bin"
cc=${CC:-cc}
set -- -O2 -std=gnu11 -D_GNU_SOURCE -Wall -Wextra -I"$top/include" -I"$top/src"
$cc "$@" -o "$work/bin/gen_rings" "$here/gen_rings.c"
$cc "$@" -o "$work/bin/bench_read" "$here/bench_read.c" "$top"/src/read/*.c

rings=$work/rings
params="$procs $threads $log2"
if [ "$regen" = 1 ] || [ ! -f "$rings/.params" ] || [ "$(cat "$rings/.params")" != "$params" ]; then
    rm -rf "$rings"
    mkdir -p "$rings"
    echo "generating $procs x $threads rings of 2^$log2 records in $rings" >&2
    "$work/bin/gen_rings" --dir "$rings" --procs "$procs" --threads "$threads" --log2 "$log2" >/dev/null
    echo "$params" > "$rings/.params"
fi
records=$((procs * threads * (1 << log2)))
bytes=$(cat "$rings"/*.latrec | wc -c)

# field NAME FILE: the value of a /usr/bin/time -v line
field() { sed -n "s/^[[:space:]]*$1: //p" "$2"; }
# wall-clock seconds of a /usr/bin/time -v report (h:mm:ss or m:ss.ss)
elapsed() {
    field 'Elapsed (wall clock) time (h:mm:ss or m:ss)' "$1" |
        awk -F: '{ s = 0; for (i = 1; i <= NF; i++) s = s * 60 + $i; print s }'
}
tv=$work/time.txt
best() { sort -g | head -1; } # the smallest of the numbers on stdin

cat "$rings"/*.latrec > /dev/null # warm the page cache
cat_s=$(for _ in $(seq "$repeat"); do
    /usr/bin/time -v -o "$tv" cat "$rings"/*.latrec > /dev/null
    elapsed "$tv"
done | best)

plain_rss=
for _ in $(seq "$repeat"); do
    /usr/bin/time -v -o "$tv" "$work/bin/bench_read" --merge "$rings" > "$work/read.txt" 2>/dev/null
    rss=$(field 'Maximum resident set size (kbytes)' "$tv")
    if [ -z "$plain_rss" ] || [ "$rss" -gt "$plain_rss" ]; then plain_rss=$rss; fi
    cat "$work/read.txt" >> "$work/read.all"
done
plain_rate=$(sed -n 's/^plain: .*, \([0-9.]*\) M records\/s$/\1/p' "$work/read.all" | sort -g | tail -1)
merge_rate=$(sed -n 's/^merge: .*, \([0-9.]*\) M records\/s$/\1/p' "$work/read.all" | sort -g | tail -1)
rm -f "$work/read.all"

conv_s=
conv_rss=
conv_cpu=
for _ in $(seq "$repeat"); do
    rm -rf "$out"
    /usr/bin/time -v -o "$tv" "$latrec" convert -q -o "$out" "$rings"
    s=$(elapsed "$tv")
    u=$(field 'User time (seconds)' "$tv")
    k=$(field 'System time (seconds)' "$tv")
    rss=$(field 'Maximum resident set size (kbytes)' "$tv")
    if [ -z "$conv_s" ] || [ "$(awk "BEGIN { print ($s < $conv_s) }")" = 1 ]; then
        conv_s=$s
        conv_cpu=$(awk "BEGIN { print $u + $k }")
    fi
    if [ -z "$conv_rss" ] || [ "$rss" -gt "$conv_rss" ]; then conv_rss=$rss; fi
done
out_bytes=$(cat "$out"/*.csv | wc -c)
out_rows=$(($(wc -l < "$out/records.csv") - 1))
if [ "$out_rows" -ne "$records" ]; then
    echo "bench_convert: records.csv has $out_rows rows, expected $records" >&2
    exit 1
fi

nproc_=$(nproc 2>/dev/null || echo '?')
load=$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo '?')
awk -v rec="$records" -v nrings="$((procs * threads))" -v bytes="$bytes" -v cat_s="$cat_s" -v plain="$plain_rate" -v merge="$merge_rate" \
    -v prss="$plain_rss" -v cs="$conv_s" -v ccpu="$conv_cpu" -v crss="$conv_rss" -v ob="$out_bytes" \
    -v np="$nproc_" -v load="$load" -v strict="$strict" -v outdir="$out" '
function verdict(ok) { if (!ok) missed++; return ok ? "ok" : "MISSED" }
BEGIN {
    conv = rec / cs / 1e6
    printf "latrec convert benchmark: %d records in %d rings (%.0f MiB), %s CPUs, load %s\n",
           rec, nrings, bytes / 1048576, np, load
    printf "  %-34s %10.2f GB/s  (%.3f s)\n", "cat rings > /dev/null", bytes / cat_s / 1e9, cat_s
    printf "  %-34s %10.1f M records/s   target >= 100   %s\n", "plain pass (open+validate+visit)", plain,
           verdict(plain >= 100)
    printf "  %-34s %10.1f M records/s\n", "k-way merge by time", merge
    printf "  %-34s %10.0f MiB           (rings are mapped)\n", "plain pass peak RSS", prss / 1024
    printf "  %-34s %10.2f M records/s   target >= 5.6   %s\n", "convert (csv: all outputs)", conv,
           verdict(conv >= 5.6)
    printf "  %-34s %10.3f s wall, %.2f s CPU, %.0f MiB written to %s\n", "", cs, ccpu, ob / 1048576, outdir
    printf "  %-34s %10.0f MiB           target <= 150   %s\n", "convert peak RSS", crss / 1024,
           verdict(crss / 1024 <= 150)
    exit strict && missed ? 1 : 0
}'
