# Shared by report.bats and report_options.bats (bats `load report_common`):
# the synthetic runs both read, written once per file, and the helpers that
# pick values out of report's CSV and text output.
#
# Environment (set by tests/unit/report.cmake): LATREC = the latrec binary,
# GEN = gen_synthetic, FIXTURES = tests/fixtures.
#
# Synthetic run A (all times ns, T0 = 2 s, one process, pid 1000):
#   outbound, i = 1..100, period 1 ms: ENQUEUE at T0 + i ms on oai.104
#     (clock 30 ns/call), DEQUEUE +2000, ENCODE_E3AP_DONE + d2 (aux = i bytes),
#     SEND_DONE +3000, all three on libe3.outbound.101 (clock 25), with
#     d2 = 500 + (37 i mod 100): a permutation of 500..599, so the three
#     slowest totals are seqs 27, 54, 81 (5599, 5598, 5597 ns).
#   inbound, i = 1..50, period 2 ms: RECV at T0 + 2i ms + 100 us (aux = 100
#     bytes), DECODE_E3AP_DONE +700, on libe3.inbound.102 (clock 40).
#   apply_ctrl, i = 1..10, period 10 ms: APPLY_CONTROL_DONE at
#     T0 + 5 ms + 10i ms, LIVE_ON_AIR +250 us, on oai.104.
# Run B is run A with every delta and period doubled.

setup_file() {
    : "${LATREC:?LATREC must name the latrec binary}" "${GEN:?GEN must name gen_synthetic}"
    : "${FIXTURES:?FIXTURES must name tests/fixtures}"
    export D="$BATS_FILE_TMPDIR"
    # The system interpreter when there is one (a version-manager shim can
    # take a second to start).
    if [ -x /usr/bin/python3 ]; then export PY=/usr/bin/python3; else export PY=python3; fi
    "$PY" - "$D" <<'EOF'
import random, sys
D = sys.argv[1]
T0 = 2_000_000_000

def write(name, rings, recs):
    recs.sort(key=lambda r: r[2])
    with open(f"{D}/spec_{name}", "w") as f:
        for r in rings:
            f.write(f"ring {r}\n")
        f.write("".join(f"rec {ring} {st} {seq} {t} {aux}\n" for ring, st, t, seq, aux in recs))

def run_a(k):
    rings = ["oai.104 clock=30", "libe3.outbound.101 clock=25", "libe3.inbound.102 clock=40"]
    recs = []
    for i in range(1, 101):
        t = T0 + i * 1_000_000 * k
        d2 = (500 + (37 * i) % 100) * k
        recs += [("oai.104", "ENQUEUE", t, i, 0),
                 ("libe3.outbound.101", "DEQUEUE", t + 2000 * k, i, 0),
                 ("libe3.outbound.101", "ENCODE_E3AP_DONE", t + 2000 * k + d2, i, i),
                 ("libe3.outbound.101", "SEND_DONE", t + 2000 * k + d2 + 3000 * k, i, 0)]
    for i in range(1, 51):
        t = T0 + i * 2_000_000 * k + 100_000 * k
        recs += [("libe3.inbound.102", "RECV", t, i, 100),
                 ("libe3.inbound.102", "DECODE_E3AP_DONE", t + 700 * k, i, 0)]
    for i in range(1, 11):
        t = T0 + 5_000_000 * k + i * 10_000_000 * k
        recs += [("oai.104", "APPLY_CONTROL_DONE", t, i, 0), ("oai.104", "LIVE_ON_AIR", t + 250_000 * k, i, 0)]
    return rings, recs

write("A", *run_a(1))
write("B", *run_a(2))

# E: one inbound instance with its first stage only: every column empty.
write("E", ["libe3.inbound.102"], [("libe3.inbound.102", "RECV", T0, 1, 0)])

# R: 10 outbound instances; seqs 3 and 7 have DEQUEUE stamped 500 ns
# before ENQUEUE (another thread's clock): two clock regressions.
recs = []
for i in range(1, 11):
    t = T0 + i * 1_000_000
    if i in (3, 7):
        recs += [("oai.104", "ENQUEUE", t, i, 0), ("libe3.outbound.101", "DEQUEUE", t - 500, i, 0),
                 ("libe3.outbound.101", "ENCODE_E3AP_DONE", t + 1000, i, 0),
                 ("libe3.outbound.101", "SEND_DONE", t + 2000, i, 0)]
    else:
        recs += [("oai.104", "ENQUEUE", t, i, 0), ("libe3.outbound.101", "DEQUEUE", t + 2000, i, 0),
                 ("libe3.outbound.101", "ENCODE_E3AP_DONE", t + 2500, i, 0),
                 ("libe3.outbound.101", "SEND_DONE", t + 5500, i, 0)]
write("R", ["oai.104", "libe3.outbound.101"], recs)

def inbound(name, values, period):
    recs = []
    for i, v in enumerate(values, 1):
        t = T0 + i * period
        recs += [("libe3.inbound.102", "RECV", t, i, 0), ("libe3.inbound.102", "DECODE_E3AP_DONE", t + v, i, 0)]
    write(name, ["libe3.inbound.102"], recs)

rnd = random.Random(1)
u = list(range(1, 100_001)); rnd.shuffle(u)
inbound("U", u, 200_000)                      # uniform 1..100000 ns
p = list(range(1, 2001)); rnd.shuffle(p)
inbound("P", p, 10_000)                       # 2000 distinct values
inbound("S", [1000, 1000, 10000, 1000, 1000], 1_000_000)   # skewness sqrt(5)
spikes = [1500, 7200, 13000, 20500, 26000, 33333, 39000]
o = [50_000 if i in spikes else 1000 + (7919 * i) % 1000 for i in range(1, 40_001)]
inbound("O", o, 100_000)                      # 7 planted spikes of 50 us

# G: 20000 first stages whose gaps are 99968..99999 ns (chunk maxima 99999,
# so the fence is 99999) but for 3 gaps of 100010 ns in distinct chunks:
# the same 64 ns histogram bucket as the fence, so only the exact second
# pass can count them.
recs, t = [], T0
for i in range(1, 20_001):
    if i > 1:
        t += 100_010 if i in (5000, 10000, 15000) else 99_968 + (7 * i) % 32
    recs += [("libe3.inbound.102", "RECV", t, i, 0), ("libe3.inbound.102", "DECODE_E3AP_DONE", t + 700, i, 0)]
write("G", ["libe3.inbound.102"], recs)
EOF
    for s in A B E R U P S O G; do
        "$GEN" "$D/$s" < "$D/spec_$s"
    done
}

# Field `col` (a column name of the CSV header) of the row component,leg,hop
# (names here hold no comma or quote, so plain splitting is enough).
csvval() {
    awk -F, -v c="$2" -v l="$3" -v h="$4" -v k="$5" '
        NR == 1 { for (i = 1; i <= NF; i++) idx[$i] = i; next }
        $1 == c && $2 == l && $3 == h { print $(idx[k]); n++ }
        END { if (n != 1) exit 1 }' "$1"
}

# Lines of one text table: from "COMP/LEG  instances:" to the blank line.
section() {
    # The hop table only: up to the scheduler line (or the blank line).
    awk -v h="$2  instances:" 'index($0, h) == 1 { p = 1 } p && (/^$/ || /^  scheduler/) { exit } p' "$1"
}

# Cell of a text table: row name, column name (from the HOP header line).
textval() {
    awk -v row="$2" -v col="$3" '
        $1 == "HOP" { for (i = 1; i <= NF; i++) idx[$i] = i; next }
        $1 == row { print $(idx[col]); exit }' "$1"
}

