# guess_specs: rings closed cleanly and the same rings not, for the tests
# of the one scan (hist.bats, report_split.bats), and wrong_names_warning_first.
# Needs D, PY and GEN (and LATREC).
#
# Rings whose writer closed them cleanly (flags=1) are opened without a scan
# and checked as the pass reads them; the same rings with flags=0 are
# scanned at open. Two processes (read by process), clean (C), with a slot
# never published (T: t_ns 0), with two records stamped a second early (M:
# not a single-writer ring, its warning), and M beside C in two directories
# (the warning before the note on the directories, as at open).
guess_specs() {
    "$PY" - "$D" <<'PYEOF'
import sys
D = sys.argv[1]
T0 = 2_000_000_000
for flags in (0, 1):
    for case in "CTM":
        recs = {}
        for p in (1, 2):
            oai, out = f"oai.{p}04", f"libe3.outbound.{p}01"
            recs[oai], recs[out] = [], []
            for i in range(1, 41):
                t = T0 + i * 1_000_000 + p * 1000
                recs[oai].append(("ENQUEUE", p * 1000 + i, t))
                recs[out] += [("DEQUEUE", p * 1000 + i, t + 2000), ("ENCODE_E3AP_DONE", p * 1000 + i, t + 2500),
                              ("SEND_DONE", p * 1000 + i, t + 5000 + i * 100)]
        b = recs["libe3.outbound.201"]
        if case == "T":
            b[32] = (b[32][0], b[32][1], 0)
        if case == "M":
            b[20] = (b[20][0], b[20][1], b[20][2] - 1_000_000_000)
            b[60] = (b[60][0], b[60][1], b[60][2] - 1_000_000_000)
        with open(f"{D}/gspec_{case}{flags}", "w") as f:
            for name in recs:
                pid = 1000 if name.endswith(("104", "101")) else 2000
                f.write(f"ring {name} pid={pid} flags={flags}\n")
            for name, rs in recs.items():
                f.write("".join(f"rec {name} {st} {seq} {t} 0\n" for st, seq, t in rs))
PYEOF
    for c in C T M; do
        for f in 0 1; do
            mkdir -p "$D/g$f/$c"
            "$GEN" "$D/g$f/$c" < "$D/gspec_$c$f"
        done
    done
}

# A wrong name on M: CMD (hist, report) exits 1 with the same lines on the
# rings opened by the guess as on those scanned at open, the two-writer
# warning first. --hop and --path are checked before the pass; --leg and
# --component when it ends (the guessed ring found out of order on the way).
wrong_names_warning_first() {
    local cmd=$1 args f err
    for args in "--hop X:Y" "--path nosuch" "--hop DEQUEUE:SEND_DONE --path e3/nosuch" "--leg nosuch" \
                "--component nosuch"; do
        for f in 0 1; do
            run --separate-stderr "$LATREC" "$cmd" $args "$D/g$f/M"
            eval "status$f=\$status"
            err=${stderr//$D\/g$f/G}
            eval "err$f=\$err"
        done
        [ "$status0" -eq 1 ] && [ "$status1" -eq 1 ] || { echo "$cmd $args: status $status0 $status1"; return 1; }
        [ "$err0" = "$err1" ] || { echo "$cmd $args:"; diff <(echo "$err0") <(echo "$err1"); return 1; }
        [[ "${err1%%$'\n'*}" == "latrec $cmd: G/M/libe3.outbound.201.latrec: not a single-writer ring (2 descents)" ]] ||
            { echo "$cmd $args: $err1"; return 1; }
    done
}

# CMD over M beside C, opened by the guess: the two-writer warning first,
# then the note on the directories, as when the open scans them.
warning_before_dirs_note() {
    run --separate-stderr "$LATREC" "$1" "$D/g1/M" "$D/g1/C"
    [[ "${stderr_lines[0]}" == *"/g1/M/libe3.outbound.201.latrec: not a single-writer ring (2 descents)" ]]
    [[ "${stderr_lines[1]}" == "latrec $1: 2 directories merged"* ]]
}
