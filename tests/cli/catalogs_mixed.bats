#!/usr/bin/env bats
# Paths of every catalog in one run. A real mixed run: the bundled E3
# workload (rings under the built-in e3 catalog) and README's "Your own
# pipeline" program (rings under its catalog 'pipe', path request) recorded
# by one `latrec record`; report, hist, convert show both catalogs' paths,
# each checked against a second method: the same rings read apart (the e3
# rings alone, the pipe rings alone), the program's own request count, and
# paths.csv's stamps. Then two user catalogs that both define a path
# request (synthetic rings, known segments): the names are qualified
# (alt:request, pipe:request), every option takes that form, a bare name
# is refused with the choices, and the completion offers them.
#
# Environment (tests/unit/report.cmake): LATREC, GEN (gen_synthetic),
# E3LOOP, SRC (the source tree), BUILD (the build tree).

bats_require_minimum_version 1.5.0

setup_file() {
    : "${LATREC:?}" "${GEN:?}" "${E3LOOP:?}" "${SRC:?}" "${BUILD:?}"
    export D="$BATS_FILE_TMPDIR"
    command -v jq >/dev/null || skip "jq is not installed (apt-get install jq)"
    synthetic
    command -v cc >/dev/null || { export NO_MIXED="no C compiler"; return; }
    if grep -q '^LATREC_SANITIZE:BOOL=ON' "$BUILD/CMakeCache.txt"; then
        export NO_MIXED="sanitizer build: a plain cc program cannot link the sanitized library"
        return
    fi
    if grep -q '^LATREC_ENABLE:BOOL=OFF' "$BUILD/CMakeCache.txt"; then
        export NO_MIXED="library built without LATREC_ENABLE: no rings to read"
        return
    fi
    mkdir -p "$D/prog"
    # README's files, byte for byte
    "${PY:-python3}" - "$SRC/README.md" "$D/prog" <<'EOF'
import re, sys
text = open(sys.argv[1]).read()
blocks = re.findall(r"<!-- pipeline: (\S+) -->\n```[a-z]*\n(.*?)```", text, re.S)
for name, body in blocks:
    open(f"{sys.argv[2]}/{name}", "w").write(body)
EOF
    cd "$D/prog"
    cc -O2 -pthread -DLATREC_ENABLE=1 -I"$SRC/include" pipe.c -L"$BUILD/src/lib" -Wl,-rpath,"$BUILD/src/lib" \
        -llatrec -o pipe
    export REQUESTS=$(awk '$1 == "#define" && $2 == "REQUESTS" { print $3 }' pipe.c)
    # both programs under one record: e3 rings and pipe rings in one directory
    "$LATREC" record -q --no-sched -o "$D/mixed" --catalog pipe.catalog -- \
        sh -c '"$1" --duration 2 --rate 100 & ./pipe; wait' _ "$E3LOOP"
    "$LATREC" report -q "$D/mixed" --format json > "$D/mixed.json"
    # the same rings read apart: the e3 rings alone, the pipe rings alone
    mkdir -p "$D/e3only/rings" "$D/pipeonly/rings"
    cp "$D/mixed/run.json" "$D/e3only/"
    cp "$D/mixed/run.json" "$D/pipeonly/"
    cp -r "$D/mixed/catalogs" "$D/pipeonly/"
    for r in "$D"/mixed/rings/*.latrec; do
        case $(basename "$r") in
            rx.* | worker.*) cp "$r" "$D/pipeonly/rings/" ;;
            *) cp "$r" "$D/e3only/rings/" ;;
        esac
    done
    "$LATREC" report -q "$D/e3only" --format json > "$D/e3only.json"
    "$LATREC" report -q "$D/pipeonly" --format json > "$D/pipeonly.json"
}

# Two user catalogs, one directory (catalog 0 is the first ring's: alt's
# paths come first): 'pipe' (6 requests: ingest RX->PARSED 100 ns,
# hand-off 200 ns, answer DECIDE->TX 50 ns, total 350 ns) and 'alt' (4
# requests through legs and stages of the same names: 100, 300 and 100 ns,
# total 500 ns).
synthetic() {
    mkdir -p "$D/two/catalogs"
    T0=2000000000
    {
        echo "ring rx.101 pid=100 catalog=pipe"
        echo "ring alt.201 pid=200 catalog=alt"
        for i in $(seq 1 6); do
            t=$((T0 + i * 1000000))
            echo "rec rx.101 0x80 $i $t"
            echo "rec rx.101 0x81 $i $((t + 100)) $((500 + i))"
            echo "rec rx.101 0x90 $((50 + i)) $((t + 300)) $((500 + i))"
            echo "rec rx.101 0x91 $((50 + i)) $((t + 350))"
        done
        for i in $(seq 1 4); do
            t=$((T0 + i * 1000000 + 400000))
            echo "rec alt.201 0x80 $i $t"
            echo "rec alt.201 0x81 $i $((t + 100)) $((900 + i))"
            echo "rec alt.201 0x90 $((50 + i)) $((t + 400)) $((900 + i))"
            echo "rec alt.201 0x91 $((50 + i)) $((t + 500))"
        done
    } | "$GEN" "$D/two"
    for c in pipe alt; do
        printf '%s\n' "catalog $c" 'stage 0x80 RX' 'stage 0x81 PARSED' 'stage 0x90 DECIDE' 'stage 0x91 TX' \
            'leg ingest RX PARSED' 'leg answer DECIDE TX' 'key ingest request PARSED.aux' \
            'key answer request DECIDE.aux' 'join ingest.request answer.request' 'path request ingest answer' \
            "component $c rx alt" > "$D/two/catalogs/$c.catalog"
    done
}

need_mixed() {
    [ -z "${NO_MIXED:-}" ] || skip "$NO_MIXED"
}

# jq on a report: the complete count of path $2 in report $1
complete_of() {
    jq -r --arg p "$2" '.paths[] | select(.path == $p) | .complete' "$1"
}

@test "mixed run: report shows e3/loop, e3/indication and request, each as when its rings are read alone" {
    need_mixed
    [ "$REQUESTS" -gt 0 ]
    run -0 jq -r '[.paths[] | "\(.catalog):\(.path)"] | join(" ")' "$D/mixed.json"
    [ "$output" = "e3:e3/loop e3:e3/indication pipe:request" ]
    # request: every request the program made, and the same figures as the
    # pipe rings alone
    [ "$(complete_of "$D/mixed.json" request)" -eq "$REQUESTS" ]
    [ "$(jq -r '.paths[] | select(.path == "request") | .instances' "$D/mixed.json")" -eq "$REQUESTS" ]
    [ "$(complete_of "$D/pipeonly.json" request)" -eq "$REQUESTS" ]
    seg() { jq -c --arg p "$2" '.paths[] | select(.path == $p) | [.segments[] | [.segment, .count, .min_us, .max_us]]' "$1"; }
    [ "$(seg "$D/mixed.json" request)" = "$(seg "$D/pipeonly.json" request)" ]
    # the parse sleeps 100 us and the decision 20 us: the total's minimum is above both
    min=$(jq -r '.paths[] | select(.path == "request") | .segments[] | select(.segment == "total") | .min_us' "$D/mixed.json")
    awk -v m="$min" 'BEGIN { exit !(m >= 120) }'
    # e3/loop and e3/indication: what the e3 rings alone give, and the loops
    # that closed in the rings (apply_ctrl with LIVE_ON_AIR), >= 99.9 % joined
    loops=$(complete_of "$D/mixed.json" e3/loop)
    [ "$loops" -eq "$(complete_of "$D/e3only.json" e3/loop)" ]
    [ "$(complete_of "$D/mixed.json" e3/indication)" -eq "$(complete_of "$D/e3only.json" e3/indication)" ]
    [ "$(seg "$D/mixed.json" e3/loop)" = "$(seg "$D/e3only.json" e3/loop)" ]
    closed=$(jq -r '[.legs[] | select(.leg == "apply_ctrl") | .complete] | add' "$D/mixed.json")
    [ "$loops" -ge 100 ]
    awk -v j="$loops" -v c="$closed" 'BEGIN { exit !(j <= c && j >= 0.999 * c) }'
    # the e3 rings alone have no request, the pipe rings alone no e3 path
    [ "$(jq -r '[.paths[] | .path] | join(" ")' "$D/e3only.json")" = "e3/loop e3/indication" ]
    [ "$(jq -r '[.paths[] | .path] | join(" ")' "$D/pipeonly.json")" = "request" ]
    # the text report: both catalogs' path tables with those counts
    run -0 "$LATREC" report -q "$D/mixed"
    grep -q "^path e3/loop  instances: [0-9]*  complete: $loops\$" <<< "$output"
    grep -q "^path request  instances: $REQUESTS  complete: $REQUESTS\$" <<< "$output"
    grep -q '^PARSED->DECIDE  *ingest->answer  ' <<< "$output"
    # --path=help: every catalog's paths
    run -0 "$LATREC" report "$D/mixed" --path=help
    [ "$output" = $'e3/loop\tsource->outbound->inbound->consume->apply_ctrl\ne3/indication\tsource->outbound->inbound->deliver\nrequest\tingest->answer' ]
    # the completion offers them
    comp=$(bash -c 'source "$1/completions/latrec.bash"; COMP_WORDS=("$2" report "$3" --path ""); COMP_CWORD=4;
                    _latrec; echo "${COMPREPLY[@]}"' _ "$SRC" "$LATREC" "$D/mixed")
    [ "$comp" = "e3/loop e3/indication request" ]
    # no warning: every join matched in both catalogs
    run --separate-stderr "$LATREC" report "$D/mixed"
    [ -z "$stderr" ]
    # the join warning of the second catalog's path (answer keyed by
    # DECIDE.aux2, which pipe.c leaves 0), the e3 paths untouched
    rm -rf "$D/broken"
    cp -r "$D/mixed" "$D/broken"
    sed -i 's/^key answer request DECIDE.aux$/key answer request DECIDE.aux2/' "$D/broken/catalogs/pipe.catalog"
    run --separate-stderr "$LATREC" report "$D/broken" --format json
    [ "$stderr" = "latrec report: catalog 'pipe': path request: join ingest.request = answer.request matched nothing ($REQUESTS path instances stopped there, $REQUESTS instances of later legs never joined)" ]
    [ "$(complete_of <(printf '%s\n' "$output") e3/loop)" -eq "$loops" ]
}

@test "mixed run: --path, hist --path and --fail-over on request; --hop in the pipe catalog" {
    need_mixed
    run -0 "$LATREC" report -q "$D/mixed" --path request --format json
    [ "$(jq -r '[.paths[] | .path] | join(" ")' <<< "$output")" = request ]
    [ "$(jq -r '.legs | length' <<< "$output")" = 0 ]
    # hist --path: one column per segment, the total counts every request,
    # its minimum is the report's
    run -0 "$LATREC" hist -q "$D/mixed" --path request --format json
    printf '%s\n' "$output" > "$BATS_TEST_TMPDIR/h.json"
    [ "$(jq -r '[.columns[] | .name] | join(" ")' "$BATS_TEST_TMPDIR/h.json")" = "RX->PARSED PARSED->DECIDE DECIDE->TX total" ]
    [ "$(jq -r '.columns[] | select(.name == "total") | .count' "$BATS_TEST_TMPDIR/h.json")" -eq "$REQUESTS" ]
    hmin=$(jq -r '.columns[] | select(.name == "total") | .min' "$BATS_TEST_TMPDIR/h.json")
    rmin=$(jq -r '.paths[] | select(.path == "request") | .segments[] | select(.segment == "total") | .min_us' "$D/mixed.json")
    [ "$hmin" = "$rmin" ]
    run -0 "$LATREC" hist -q "$D/mixed" --path pipe:request --format json
    [ "$(jq -r '.columns[] | select(.name == "total") | .count' <<< "$output")" -eq "$REQUESTS" ]
    # gates on request's total: the minimum is above 100 us (the parse's sleep)
    run -4 "$LATREC" report -q "$D/mixed" --fail-over 'path/request:total:min>100us'
    run -0 "$LATREC" report -q "$D/mixed" --fail-over 'path/request:total:min<100us'
    run -0 "$LATREC" report -q "$D/mixed" --fail-over "pipe:request:total:count<$REQUESTS"
    run -4 "$LATREC" report -q "$D/mixed" --fail-over "pipe:request:total:count<$((REQUESTS + 1))"
    loops=$(complete_of "$D/mixed.json" e3/loop)
    run -4 "$LATREC" report -q "$D/mixed" --fail-over "e3/loop:total:count<$((loops + 1))" \
        --fail-over "pipe:request:total:count<$REQUESTS"
    # --hop names the pipe catalog's stages for the pipe legs only
    run -0 "$LATREC" report -q "$D/mixed" --hop RX:PARSED --format json
    [ "$(jq -r '[.legs[] | "\(.component)/\(.leg)"] | join(" ")' <<< "$output")" = "pipe/ingest" ]
    [ "$(jq -r '.legs[0].hops[0].count' <<< "$output")" -eq "$REQUESTS" ]
    run -0 "$LATREC" report -q "$D/mixed" --hop ENQUEUE:SEND_DONE --format json
    [ "$(jq -r '[.legs[] | "\(.component)/\(.leg)"] | join(" ")' <<< "$output")" = "libe3/outbound" ]
    run -1 "$LATREC" report -q "$D/mixed" --hop RX:NOSUCH
    # --leg: a leg of the pipe catalog, and one of e3's, in one run
    run -0 "$LATREC" report -q "$D/mixed" --leg answer --format json
    [ "$(jq -r '[.legs[] | "\(.component)/\(.leg) \(.complete)"] | join(",")' <<< "$output")" = "pipe/answer $REQUESTS" ]
    run -0 "$LATREC" hist -q "$D/mixed" --leg answer --format json
    [ "$(jq -r '[.columns[] | "\(.name) \(.count)"] | join(",")' <<< "$output")" = "pipe/answer:DECIDE->TX $REQUESTS,pipe/answer:total $REQUESTS" ]
    run -0 "$LATREC" report -q "$D/mixed" --leg outbound --hop ENQUEUE:DEQUEUE --format json
    [ "$(jq -r '[.legs[] | "\(.component)/\(.leg)"] | join(",")' <<< "$output")" = "libe3/outbound" ]
}

@test "mixed run: paths.csv has the rows of both catalogs, each request's total from its own stamps" {
    need_mixed
    run -0 "$LATREC" convert -q "$D/mixed" -o "$D/mixed_csv"
    f="$D/mixed_csv/paths.csv"
    loops=$(complete_of "$D/mixed.json" e3/loop)
    [ "$(awk -F, '$1 == "request" && $2 == 1' "$f" | wc -l)" -eq "$REQUESTS" ]
    [ "$(awk -F, '$1 == "e3/loop" && $2 == 1' "$f" | wc -l)" -eq "$loops" ]
    [ "$(awk -F, '$1 == "e3/indication" && $2 == 1' "$f" | wc -l)" -eq "$(complete_of "$D/mixed.json" e3/indication)" ]
    # request rows: total = TX - RX from the row's own stamps, the segments
    # add up to it; its e3 columns are empty
    awk -F, '
        NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
        $1 != "request" { next }
        {
            n++
            t = ($col["TX_ns"] - $col["RX_ns"]) / 1000
            d = t - $col["total_us"]; if (d < 0) d = -d
            if (d > 0.0005) { print "stamps " t " total " $col["total_us"]; bad = 1 }
            s = $col["RX__PARSED_us"] + $col["PARSED__DECIDE_us"] + $col["DECIDE__TX_us"]
            d = s - $col["total_us"]; if (d < 0) d = -d
            if (d > 0.002) { print "sum " s " total " $col["total_us"]; bad = 1 }
            if ($col["RECORD_BEGIN_ns"] != "" || $col["SEND_DONE__RECV_us"] != "") { print "e3 cells filled"; bad = 1 }
        }
        END { exit bad || n == 0 }' "$f"
    # the timeline draws both catalogs' paths
    run -0 "$LATREC" convert -q "$D/mixed" --format chrome -o "$D/mixed_tl"
    [ "$(jq '[.traceEvents[] | select(.cat == "path" and .ph == "b" and .name == "request")] | length' \
        "$D/mixed_tl/trace.json")" -eq "$REQUESTS" ]
    [ "$(jq '[.traceEvents[] | select(.cat == "path" and .ph == "b" and .name == "e3/loop")] | length' \
        "$D/mixed_tl/trace.json")" -gt 0 ]
}

@test "two catalogs define path request: each is named CATALOG:NAME, and every option takes that form" {
    run --separate-stderr "$LATREC" report "$D/two" --unit ns
    [ "$status" -eq 0 ]
    [ -z "$stderr" ]
    printf '%s\n' "${lines[@]}" > "$BATS_TEST_TMPDIR/t.txt"
    grep -qx 'path pipe:request  instances: 6  complete: 6' "$BATS_TEST_TMPDIR/t.txt"
    grep -qx 'path alt:request  instances: 4  complete: 4' "$BATS_TEST_TMPDIR/t.txt"
    run -0 "$LATREC" report -q "$D/two" --unit ns --format json
    printf '%s\n' "$output" > "$BATS_TEST_TMPDIR/t.json"
    segs() { jq -c --arg p "$1" '.paths[] | select(.path == $p) | [.segments[] | [.segment, .count, .min_ns, .max_ns]]' "$BATS_TEST_TMPDIR/t.json"; }
    [ "$(segs pipe:request)" = '[["RX->PARSED",6,100,100],["PARSED->DECIDE",6,200,200],["DECIDE->TX",6,50,50],["total",6,350,350],["total_drops_as_delay",6,350,350]]' ]
    [ "$(segs alt:request)" = '[["RX->PARSED",4,100,100],["PARSED->DECIDE",4,300,300],["DECIDE->TX",4,100,100],["total",4,500,500],["total_drops_as_delay",4,500,500]]' ]
    # a bare name is refused with the choices; the qualified one is taken
    run --separate-stderr "$LATREC" report -q "$D/two" --path request
    [ "$status" -eq 1 ]
    [ "$stderr" = "latrec report: --path request: several catalogs of this run have a path of that name: name it with its catalog (alt:request, pipe:request)" ]
    run -0 "$LATREC" report -q "$D/two" --path alt:request --format json
    [ "$(jq -r '[.paths[] | "\(.path) \(.complete)"] | join(",")' <<< "$output")" = "alt:request 4" ]
    run -0 "$LATREC" report "$D/two" --path=help
    [ "$output" = $'alt:request\tingest->answer\npipe:request\tingest->answer' ]
    run --separate-stderr "$LATREC" hist -q "$D/two" --path request
    [ "$status" -eq 1 ]
    [[ "$stderr" == "latrec hist: --path request: several catalogs"*"(alt:request, pipe:request)" ]]
    run -0 "$LATREC" hist -q "$D/two" --path pipe:request --unit ns --format json
    [ "$(jq -c '.columns[] | select(.name == "total") | [.count, .min, .max]' <<< "$output")" = "[6,350,350]" ]
    # gates: the qualified name (as it is, or as path/NAME); a bare one is ambiguous
    run -4 "$LATREC" report -q "$D/two" --fail-over 'pipe:request:total:max>349ns'
    run -0 "$LATREC" report -q "$D/two" --fail-over 'pipe:request:total:max>350ns'
    run -4 "$LATREC" report -q "$D/two" --fail-over 'path/alt:request:PARSED->DECIDE:min>299ns'
    run -0 "$LATREC" report -q "$D/two" --fail-over 'path/alt:request:PARSED__DECIDE:min>300ns'
    run --separate-stderr "$LATREC" report -q "$D/two" --fail-over 'path/request:total:max>1s'
    [ "$status" -eq 1 ]
    [[ "$stderr" == *"several catalogs of this run have a path of that name: name it with its catalog (alt:request, pipe:request)" ]]
    # the baseline matches each path of its own catalog
    run -0 "$LATREC" report -q "$D/two" --baseline "$D/two" --unit ns --format json
    [ "$(jq -c '[.paths[] | .segments[] | select(.segment == "total") | .baseline.max_ns]' <<< "$output")" = "[500,350]" ]
    # paths.csv: the legs, stages and segments both catalogs name are qualified
    run -0 "$LATREC" convert -q "$D/two" -o "$D/two_csv"
    header=$(head -1 "$D/two_csv/paths.csv")
    [[ "$header" == "path,complete,stopped_at,reason,start_ns,end_ns,alt:ingest_pid,alt:ingest_seq,alt:RX_ns,alt:PARSED_ns,alt:answer_pid,"* ]]
    [[ "$header" == *",pipe:RX_ns,pipe:PARSED_ns,pipe:answer_pid,pipe:answer_seq,pipe:DECIDE_ns,pipe:TX_ns,"* ]]
    [[ "$header" == *",alt:DECIDE__TX_us,pipe:RX__PARSED_us,pipe:PARSED__DECIDE_us,pipe:DECIDE__TX_us,total_us,drops_as_delay_us" ]]
    [ "$(awk -F, '$1 == "pipe:request" && $2 == 1' "$D/two_csv/paths.csv" | wc -l)" = 6 ]
    [ "$(awk -F, '$1 == "alt:request" && $2 == 1' "$D/two_csv/paths.csv" | wc -l)" = 4 ]
    # the completion: both names, and a qualified one completed past its ':'
    comp=$(bash -c 'source "$1/completions/latrec.bash"; COMP_WORDS=("$2" report "$3" --path ""); COMP_CWORD=4;
                    _latrec; echo "${COMPREPLY[@]}"' _ "$SRC" "$LATREC" "$D/two")
    [ "$comp" = "alt:request pipe:request" ]
    comp=$(bash -c 'source "$1/completions/latrec.bash"; COMP_WORDS=("$2" report "$3" --path alt : re); COMP_CWORD=6;
                    _latrec; echo "${COMPREPLY[@]}"' _ "$SRC" "$LATREC" "$D/two")
    [ "$comp" = "request" ]
}
