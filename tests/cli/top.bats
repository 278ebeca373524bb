#!/usr/bin/env bats
bats_require_minimum_version 1.5.0
# latrec top on the bundled E3 loop: blocks with growing counts while the
# run is recorded; JSON Lines that parse, whose per-interval counts add up to
# the since-start counts and whose final counts are `latrec report`'s for
# the same directory (a second reader, after the run); the scheduler split
# of a finished run, report's; a run another latrec
# records, watched to its end; rings that appear late (the final block
# recomputed, report's); a killed record (no instance left waiting for a
# scheduler split); cleanly closed rings without run.json stopped by -d
# (finished: report's counts); the launched record's exit status; the
# in-place redraw on a terminal, driven through tmux.
#
# Needs: LATREC, E3LOOP, GEN (gen_synthetic; ctest sets all three), python3, jq; tmux for the
# terminal test (skipped with the reason without it).

setup_file() {
    : "${LATREC:?set LATREC to the latrec binary}"
    : "${E3LOOP:?set E3LOOP to the e3loop workload}"
    : "${GEN:?set GEN to gen_synthetic}"
    command -v python3 >/dev/null || skip "python3 is not installed: the JSON Lines cannot be checked"
    command -v jq >/dev/null || skip "jq is not installed (apt-get install jq): run.json cannot be checked"
    export D="$BATS_FILE_TMPDIR"
}

# The since-start count of every leg and path row of the last JSON line,
# "NAME HOP COUNT" sorted; and the same from report --format json of DIR.
final_counts() {
    python3 - "$1" <<'EOF'
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
last = lines[-1]
assert last["final"] is True, last
for r in last["legs"]:
    print(r["leg"], r["hop"], r["all"]["count"])
for r in last["paths"]:
    print(r["path"], r["segment"], r["all"]["count"])
EOF
}

report_counts() {
    "$LATREC" report -q --format json "$1" | python3 -c '
import json, sys
r = json.load(sys.stdin)
for l in r["legs"]:
    for h in l["hops"]:
        if h["hop"] == "total":
            print(l["component"] + "/" + l["leg"], "total", h["count"])
for p in r["paths"]:
    for s in p["segments"]:
        if s["segment"] == "total":
            print(p["path"], "total", s["count"])
'
}

# On a mismatch: what top read (records, fed late) against what report read.
read_note() {
    echo "top: $(tail -1 "$1" | jq -c '{records, late, lapped}')"
    echo "report: $("$LATREC" report -q --format json "$2" | jq -c '.header | {records, lost}')"
}

@test "a finished run: one final block whose counts are report's" {
    "$LATREC" record -q --no-sched -o "$D/done" -- "$E3LOOP" --duration 1 --rate 500
    run --separate-stderr "$LATREC" top --format json "$D/done"
    [ "$status" -eq 0 ] || { echo "$stderr"; return 1; }
    [ "${#lines[@]}" -eq 1 ]
    printf '%s\n' "$output" >"$D/done.jsonl"
    top=$(final_counts "$D/done.jsonl" | sort)
    rep=$(report_counts "$D/done" | sort)
    [ -n "$rep" ] && [ "$top" = "$rep" ] || { diff <(echo "$top") <(echo "$rep") || true; return 1; }
    grep -q '^libe3/outbound total [1-9]' <<<"$top"
    grep -q '^e3/loop total [1-9]' <<<"$top"
    # text: one block, its header says final
    run --separate-stderr "$LATREC" top "$D/done"
    [ "$status" -eq 0 ]
    [ "$(grep -c '^latrec top ' <<<"$output")" -eq 1 ]
    grep -q '^latrec top  final ' <<<"$output"
}

@test "a finished run with scheduler data: each leg's split is report's" {
    "$LATREC" record -q -o "$D/sched" -- "$E3LOOP" --duration 1 --rate 500
    [ -e "$D/sched/sched.latrec" ] ||
        skip "no scheduler data: $(jq -r '.collectors.sched.reason // "sched.latrec missing"' "$D/sched/run.json")"
    run --separate-stderr "$LATREC" top --format json "$D/sched"
    [ "$status" -eq 0 ] || { echo "$stderr"; return 1; }
    top=$(jq -c '[.legs[] | {leg, sched: (.sched | {split, on_cpu_us, runq_us, blocked_us, unknown_us, preemptions,
        migrations})}] | sort_by(.leg)' <<<"$output")
    rep=$("$LATREC" report -q --format json "$D/sched" |
        jq -c '[.legs[] | {leg: (.component + "/" + .leg), sched: (.hops[] | select(.hop == "total") | .sched)}] | sort_by(.leg)')
    [ "$top" = "$rep" ] || { echo "top:    $top"; echo "report: $rep"; return 1; }
    jq -e '[.[] | .sched.split] | all(. > 0)' <<<"$top"
    # the text block has the table
    run --separate-stderr "$LATREC" top "$D/sched"
    grep -q '^scheduler, since the start' <<<"$output"
    grep -q '^libe3/outbound *total *[1-9]' <<<"$(sed -n '/^scheduler/,/^RING/p' <<<"$output")"
}

@test "launching with scheduler data: blocks before the end carry each leg's split; the final one is report's" {
    run --separate-stderr "$LATREC" top --format json --interval 300ms -o "$D/ls" -- "$E3LOOP" --duration 3 --rate 500
    [ "$status" -eq 0 ] || { echo "$stderr"; return 1; }
    [ -e "$D/ls/sched.latrec" ] ||
        skip "no scheduler data: $(jq -r '.collectors.sched.reason // "sched.latrec missing"' "$D/ls/run.json")"
    printf '%s\n' "$output" >"$D/ls.jsonl"
    "$LATREC" report -q --format json "$D/ls" >"$D/ls.report.json"
    python3 - "$D/ls.jsonl" "$D/ls.report.json" "$D/ls/run.json" <<'EOF'
import json, sys
blocks = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
report = json.load(open(sys.argv[2]))
sc = json.load(open(sys.argv[3]))["collectors"]["sched"]
late = sc["live"]["late"]
# Scheduler events the collector never had: the kernel did not trace them
# (some kernels trace no switch away from certain system tasks), the ring
# buffer had no room, or they came late for the live ring.
missed = sum(sc["events_not_seen"].values()) + sc["lost"] + late
live = [b for b in blocks if not b["final"] and b["sched"] and b["sched"]["live"]]
assert len(live) >= 4, [b["sched"] for b in blocks]
# Before the end: every leg with instances has them split, from data that
# was there, and the four times add up to the hop (JSON's 10 digits).
for b in live[1:]:
    for r in b["legs"]:
        s = r["sched"]
        if r["all"]["count"] < 20:
            continue
        assert s["split"] > 0 and s["split"] + s["waiting"] <= r["all"]["count"], (b["block"], r)
        for w in (s, s["last"]):
            if not w["split"]:
                continue
            parts = w["on_cpu_us"] + w["runq_us"] + w["blocked_us"] + w["unknown_us"]
            assert abs(parts - w["hop_us"]) <= 1e-6 * w["hop_us"] + 1e-6, (b["block"], r["leg"], w)
            # A missed event leaves the thread's state unknown inside its
            # timeline (unknown_lost, only with events missed); the rest is
            # before a thread's first event: little, e3loop's threads are
            # all born in the run. Events that reach the collector after the
            # mark has passed them are left out of the live ring (counted as
            # late): the states around them may read unknown before it.
            lost = w["unknown_lost_us"]
            assert lost <= w["unknown_us"] + 1e-6 and (lost == 0 or missed > 0), (b["block"], r["leg"], w, sc)
            bound = 0.1 if late == 0 else 0.6
            assert w["unknown_us"] - lost <= bound * w["hop_us"] + 0.01, (b["block"], r["leg"], w, late)
splits = [sum(r["sched"]["split"] for r in b["legs"]) for b in live]
assert splits == sorted(splits) and splits[-1] > splits[0], splits
# The end: the since-start split is report's, from the final sched.latrec,
# for the same instances (exactly the same records when none came late).
final = {r["leg"]: r["sched"] for r in blocks[-1]["legs"] if r["hop"] == "total"}
tol = 1e-6 if late == 0 else 0.05
for l in report["legs"]:
    h = next(h for h in l["hops"] if h["hop"] == "total")
    t = final[l["component"] + "/" + l["leg"]]
    assert t["split"] == h["sched"]["split"] and t["waiting"] == 0, (l["leg"], t, h["sched"])
    for k in ("on_cpu_us", "runq_us", "blocked_us", "unknown_us"):
        assert abs(t[k] - h["sched"][k]) <= tol * max(t["hop_us"], 1), (l["leg"], k, t, h["sched"])
    assert t["preemptions"] == h["sched"]["preemptions"] or late, (l["leg"], t, h["sched"])
EOF
    # text: the scheduler table in a block before the final one, its WAITING column there
    run --separate-stderr "$LATREC" top --interval 300ms -o "$D/lst" -- "$E3LOOP" --duration 2 --rate 500
    [ "$status" -eq 0 ] || { echo "$stderr"; return 1; }
    awk '/^latrec top  recording /{ live = 1 } /^latrec top  final /{ live = 0 }
         live && /^scheduler, since the start/{ found = 1 } END { exit !found }' <<<"$output" || { echo "$output"; return 1; }
    grep -q '^LEG  *HOP  *SPLIT .* WAITING$' <<<"$output"
}

@test "launching: one block per interval, the counts growing, record's status" {
    run --separate-stderr "$LATREC" top --interval 300ms -o "$D/l1" --no-sched -- "$E3LOOP" --duration 3 --rate 500
    [ "$status" -eq 0 ] || { echo "$stderr"; return 1; }
    n=$(grep -c '^latrec top ' <<<"$output")
    [ "$n" -ge 4 ] || { echo "$output"; return 1; }
    # libe3/outbound's ALL_COUNT (column 8) block by block: never down, up overall
    counts=$(awk '$1 == "libe3/outbound" && $2 == "total" { print $8 }' <<<"$output")
    echo "$counts" | awk 'NR > 1 && $1 < prev { bad = 1 } { prev = $1 } END { exit bad }'
    first=$(head -1 <<<"$counts") last=$(tail -1 <<<"$counts")
    [ "$last" -gt "$first" ] || { echo "counts: $counts"; return 1; }
    # the directory is record's, finished
    jq -e '.state == "finished"' "$D/l1/run.json"
}

@test "--format json: JSON Lines that parse; the intervals add up; the final counts are report's" {
    run --separate-stderr "$LATREC" top --format json --interval 250ms -o "$D/l2" --no-sched -- \
        "$E3LOOP" --duration 3 --rate 500
    [ "$status" -eq 0 ] || { echo "$stderr"; return 1; }
    printf '%s\n' "$output" >"$D/l2.jsonl"
    python3 - "$D/l2.jsonl" <<'EOF'
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
assert len(lines) >= 4, len(lines)
assert [l["block"] for l in lines] == list(range(len(lines)))
assert [l["final"] for l in lines] == [False] * (len(lines) - 1) + [True]
# every interval's count, summed over the blocks, is the since-start count
for kind, name in (("legs", "leg"), ("paths", "path")):
    sums = {}
    for l in lines:
        for r in l[kind]:
            k = (r[name], r["hop" if kind == "legs" else "segment"])
            sums[k] = sums.get(k, 0) + r["last"]["count"]
    final = {(r[name], r["hop" if kind == "legs" else "segment"]): r["all"]["count"] for r in lines[-1][kind]}
    assert sums == final, (kind, sums, final)
    assert final and all(v > 0 for v in final.values()), final
# the counts grew while the run was recorded
rec = [l["records"] for l in lines]
assert rec == sorted(rec) and rec[0] < rec[-1], rec
EOF
    top=$(final_counts "$D/l2.jsonl" | sort)
    rep=$(report_counts "$D/l2" | sort)
    [ "$top" = "$rep" ] || { diff <(echo "$top") <(echo "$rep") || true; read_note "$D/l2.jsonl" "$D/l2"; return 1; }
}

@test "watching a run another latrec records: followed to its end, the counts report's" {
    "$LATREC" record -q --no-sched -o "$D/w" -- "$E3LOOP" --duration 3 --rate 500 &
    rec=$!
    # the directory appears once record has made it
    for _ in $(seq 100); do [ -e "$D/w/run.json" ] && break; sleep 0.05; done
    run --separate-stderr "$LATREC" top -q --format json --interval 200ms "$D/w"
    wait "$rec"
    [ "$status" -eq 0 ] || { echo "$stderr"; return 1; }
    [ "${#lines[@]}" -eq 1 ] # -q: the final block only
    printf '%s\n' "$output" >"$D/w.jsonl"
    top=$(final_counts "$D/w.jsonl" | sort)
    rep=$(report_counts "$D/w" | sort)
    [ -n "$rep" ] && [ "$top" = "$rep" ] || { diff <(echo "$top") <(echo "$rep") || true; read_note "$D/w.jsonl" "$D/w"; return 1; }
}

@test "launching: top exits with record's status (the command's, 127 when not found)" {
    run "$LATREC" top -q -o "$D/st3" --no-sched -- sh -c 'exit 3'
    [ "$status" -eq 3 ]
    run -127 "$LATREC" top -q -o "$D/st127" --no-sched -- /nonexistent/command
    [ "$status" -eq 127 ]
    run "$LATREC" top -q -o "$D/st125" --no-sched --cpus nonsense -- true
    [ "$status" -eq 125 ]
    run "$LATREC" top -o "$D/x" "$D/done"
    [ "$status" -eq 2 ]
}

@test "SIGINT to top alone is passed to the launched record; the final block follows" {
: >"$D/int.jsonl"
    "$LATREC" top --format json --interval 200ms -o "$D/int" --no-sched -- "$E3LOOP" --duration 0 --rate 500 \
        >"$D/int.jsonl" 2>"$D/int.err" &
    pid=$!
    for _ in $(seq 200); do [ "$(wc -l <"$D/int.jsonl")" -ge 3 ] && break; sleep 0.05; done
    kill -INT "$pid"
    rc=0
    wait "$pid" || rc=$?
    # record's status: the command's own, which died of the SIGINT record passed on
    [ "$rc" -eq 130 ] || { echo "rc $rc"; cat "$D/int.err"; return 1; }
    grep -q 'the command died of SIGINT' "$D/int.err"
    tail -1 "$D/int.jsonl" | python3 -c 'import json, sys; assert json.load(sys.stdin)["final"]'
    jq -e '.exit.stopped_by == "SIGINT"' "$D/int/run.json"
    top=$(final_counts "$D/int.jsonl" | sort)
    rep=$(report_counts "$D/int" | sort)
    [ "$top" = "$rep" ] || { diff <(echo "$top") <(echo "$rep") || true; read_note "$D/int.jsonl" "$D/int"; return 1; }
}

@test "-d on a directory of rings without run.json: watched, then stopped after DURATION" {
    mkdir -p "$D/plain"
    cp "$D/done/rings/"*.latrec "$D/plain/"
    run --separate-stderr "$LATREC" top -d 1 --interval 200ms --format json "$D/plain"
    [ "$status" -eq 0 ] || { echo "$stderr"; return 1; }
    [ "${#lines[@]}" -ge 3 ] # watched for 1 s in 200 ms blocks, then the final one
    tail -1 <<<"$output" | python3 -c 'import json, sys; assert json.load(sys.stdin)["final"]'
}

@test "-d on cleanly closed rings without run.json: the input is finished, the final counts report's (1500)" {
    # 1500 outbound instances, each complete at its SEND_DONE and then in
    # grace (the leg has extras) until a grace period of stream time passes
    python3 - "$D/closed.spec" <<'EOF'
import sys
with open(sys.argv[1], "w") as f:
    f.write("ring libe3.outbound.1 flags=1\n")
    t = 1000000000
    for seq in range(1, 1501):
        for st in ("ENQUEUE", "DEQUEUE", "ENCODE_E3AP_DONE", "SEND_DONE"):
            f.write(f"rec libe3.outbound.1 {st} {seq} {t} 0\n")
            t += 1000
        t += 10000
EOF
    mkdir -p "$D/closed"
    "$GEN" "$D/closed" <"$D/closed.spec"
    [ "$(report_counts "$D/closed")" = "libe3/outbound total 1500" ]
    for q in -q ""; do
        run --separate-stderr "$LATREC" top $q -d 1 --interval 300ms --format json "$D/closed"
        [ "$status" -eq 0 ] || { echo "$stderr"; return 1; }
        printf '%s\n' "$output" >"$D/closed.jsonl"
        [ "$(final_counts "$D/closed.jsonl")" = "libe3/outbound total 1500" ] || { final_counts "$D/closed.jsonl"; return 1; }
    done
}

@test "rings that appear late for the watermark: the final block is recomputed, its counts report's" {
    "$LATREC" record -q -o "$D/lr" -- "$E3LOOP" --duration 2
    mkdir -p "$D/late" "$D/hold"
    cp "$D/lr/rings/"*.latrec "$D/late/"
    mv "$D/late/"libe3.outbound.* "$D/hold/"
    # outbound's ring joins 1.5 s into the watch: its records are fed late
    (sleep 1.5; mv "$D/hold/"* "$D/late/") &
    run --separate-stderr "$LATREC" top -d 3 --interval 500ms --format json "$D/late"
    wait
    [ "$status" -eq 0 ] || { echo "$stderr"; return 1; }
    printf '%s\n' "$output" >"$D/late.jsonl"
    top=$(final_counts "$D/late.jsonl" | sort)
    rep=$(report_counts "$D/late" | sort)
    [ -n "$rep" ] && [ "$top" = "$rep" ] || { diff <(echo "$top") <(echo "$rep") || true; read_note "$D/late.jsonl" "$D/late"; return 1; }
    grep -q '^libe3/outbound total [1-9]' <<<"$top"
    # said so; the blocks before the final one were not recomputed
    tail -1 "$D/late.jsonl" | jq -e '.late > 0 and .recomputed == true'
    [ "$(head -n -1 "$D/late.jsonl" | jq -s 'map(.recomputed) | all(. == false)')" = true ]
    # text: the final block says where its since-start figures come from
    cp "$D/late/"libe3.outbound.* "$D/hold/"
    mkdir -p "$D/late2"
    cp "$D/lr/rings/"*.latrec "$D/late2/"
    rm "$D/late2/"libe3.outbound.*
    (sleep 1.5; mv "$D/hold/"libe3.outbound.* "$D/late2/") &
    run --separate-stderr "$LATREC" top -q -d 3 --interval 500ms "$D/late2"
    wait
    [ "$status" -eq 0 ] || { echo "$stderr"; return 1; }
    grep -q '^since the start: recomputed' <<<"$output" || { echo "$output"; return 1; }
}

@test "a run whose record was killed: the final block leaves no instance waiting for a scheduler split" {
    "$LATREC" record -q -o "$D/killed" -- "$E3LOOP" --duration 8 &
    local rec=$!
    until [ -f "$D/killed/run.json" ] && [ "$(jq -r .latrec_pid "$D/killed/run.json" 2>/dev/null)" = "$rec" ] &&
        [ -e "$D/killed/sched.latrec" ]; do
        kill -0 "$rec" 2>/dev/null || skip "latrec record ended without a live sched.latrec (no scheduler collector here)"
        sleep 0.1
    done
    "$LATREC" top --interval 300ms --format json "$D/killed" >"$D/killed.jsonl" 2>"$D/killed.err" &
    local top=$!
    sleep 2
    kill -KILL "$rec"
    wait "$rec" || true
    local st=0
    wait "$top" || st=$?
    # what the killed record leaves: its command, its rings, its trace instance
    kill -KILL "$(jq -r .pid "$D/killed/run.json")" 2>/dev/null || true
    local rings inst
    rings=$(jq -r '.rings_tmp // empty' "$D/killed/run.json")
    inst=$(jq -r '.tracefs.instance // empty' "$D/killed/run.json")
    [ -n "$rings" ] && rm -rf "$rings"
    [ -n "$inst" ] && rmdir "/sys/kernel/tracing/instances/$inst" 2>/dev/null || true
    [ "$st" -eq 0 ] || { cat "$D/killed.err"; return 1; }
    [ "$(jq -r .state "$D/killed/run.json")" = recording ] # never finished
    last=$(tail -1 "$D/killed.jsonl")
    jq -e '.final and .sched != null' <<<"$last" >/dev/null || skip "no scheduler data in this run: $(cat "$D/killed.err")"
    # settled: none waiting; those past what the collector published are unsplit
    jq -e '.sched.waiting == 0 and ([.legs[].sched.waiting] | all(. == 0))' <<<"$last" || { echo "$last"; return 1; }
    # (how many there are depends on how far the collector got before the
    # kill: none when it published past the rings' end, so each is counted)
    jq -e '.sched.unsplit == ([.legs[] | .all.count - .sched.split] | add) and
        ([.legs[] | .sched.split <= .all.count] | all)' <<<"$last" || { echo "$last"; return 1; }
}

@test "a ring truncated while top reads it: named in report's words, exit status 3" {
    mkdir -p "$D/shrink"
    LATREC_OUTPUT_DIR="$D/shrink" "$E3LOOP" --duration 4 --rate 2000 2>/dev/null &
    local loop=$!
    until compgen -G "$D/shrink/dapp.*.latrec" >/dev/null; do sleep 0.1; done
    "$LATREC" top --format json -d 3 --interval 200ms "$D/shrink" >"$D/shrink.jsonl" 2>"$D/shrink.err" &
    local top=$!
    sleep 1
    # the writer dies of SIGBUS past the new end: its ring stops there
    local ring
    ring=$(compgen -G "$D/shrink/dapp.*.latrec" | head -1)
    truncate -s 8192 "$ring"
    local st=0
    wait "$top" || st=$?
    wait "$loop" || true
    [ "$st" -eq 3 ] || { echo "status $st"; cat "$D/shrink.err"; return 1; }
    grep -Eq "^latrec top: $ring: truncated while read \(now at most [0-9]+ bytes\): the records past that were not read\$" \
        "$D/shrink.err" || { cat "$D/shrink.err"; return 1; }
    [ "$(grep -c 'truncated while read' "$D/shrink.err")" -eq 1 ] # once
}

@test "--help, latrec-top(1): -q is the final block only" {
    run "$LATREC" top --help
    grep -A1 -- '-q, --quiet' <<<"$output" | tr -s ' \n' ' ' | grep -q 'The final block only'
    sed -n '/^\.BR \\-q ", " \\-\\-quiet/,/^\.[TP]P/p' "$BATS_TEST_DIRNAME/../../man/latrec-top.1" | grep -q 'The final block only'
}

@test "--help, latrec-top(1): --threads is taken and top steps on one thread; report's --help reads on N" {
    run "$LATREC" top --help
    grep -A2 -- '--threads=N' <<<"$output" | tr -s ' \n' ' ' | grep -q 'top steps through the run on one thread, whatever N is'
    grep -A2 'threads' "$BATS_TEST_DIRNAME/../../man/latrec-top.1" | tr -s ' \n' ' ' | grep -q 'top steps through the run on one thread, whatever'
    run "$LATREC" report --help
    grep -A1 -- '--threads=N' <<<"$output" | tr -s ' \n' ' ' | grep -q 'Read a finished run on N threads'
}

@test "on a terminal (tmux): redrawn in place, one header, the counts changing; q quits" {
    command -v tmux >/dev/null || skip "tmux is not installed (apt-get install tmux): no terminal to drive"
    local s="latrec-top-$$" rc="$D/tmux.rc"
    tmux -L "$s" new-session -d -s "$s" -x 160 -y 50 \
        "'$LATREC' top --interval 200ms -o '$D/tty' --no-sched -- '$E3LOOP' --duration 0 --rate 500; echo \$? >'$rc'; sleep 30"
    # wait for the first block with counts
    local a="" b=""
    for _ in $(seq 200); do
        a=$(tmux -L "$s" capture-pane -p -t "$s")
        grep -q '^libe3/outbound' <<<"$a" && break
        sleep 0.05
    done
    for _ in $(seq 200); do
        sleep 0.1
        b=$(tmux -L "$s" capture-pane -p -t "$s")
        [ "$(awk '$1 == "libe3/outbound" { print $8 }' <<<"$b")" != "$(awk '$1 == "libe3/outbound" { print $8 }' <<<"$a")" ] && break
    done
    tmux -L "$s" send-keys -t "$s" q
    for _ in $(seq 300); do [ -s "$rc" ] && break; sleep 0.05; done
    tmux -L "$s" kill-server 2>/dev/null || true
    # one screen: one header line in each capture, the counts changed between them
    [ "$(grep -c '^latrec top ' <<<"$a")" -eq 1 ] || { echo "$a"; return 1; }
    [ "$(grep -c '^latrec top ' <<<"$b")" -eq 1 ] || { echo "$b"; return 1; }
    ca=$(awk '$1 == "libe3/outbound" { print $8 }' <<<"$a")
    cb=$(awk '$1 == "libe3/outbound" { print $8 }' <<<"$b")
    [ -n "$ca" ] && [ -n "$cb" ] && [ "$cb" -gt "$ca" ] || { echo "$a"; echo "$b"; return 1; }
    # q stopped the command as ^C does (it died of the SIGINT); top ended with record's status
    [ "$(cat "$rc")" -eq 130 ]
    jq -e '.exit.stopped_by == "SIGINT"' "$D/tty/run.json"
    jq -e '.state == "finished"' "$D/tty/run.json"
}
