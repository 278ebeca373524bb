#!/usr/bin/env bats
bats_require_minimum_version 1.5.0
# latrec report --format html, opened from disk by a real browser: the
# system Chromium, headless, driven over the DevTools protocol by
# puppeteer-core (tests/js/report_browser_check.js). No console error, no
# network request, every chart in the DOM with the series and points the
# JSON report of the same run implies (tests/cli/html_check.py), and a
# full-page screenshot saved as a test artefact in $ARTEFACTS; the same with
# --baseline.
#
# Needs: LATREC, E3LOOP, GEN (gen_synthetic), JS_DIR, ARTEFACTS (ctest sets
# them). Without
# Chromium or npm the browser tests skip with the reason.

setup_file() {
    : "${LATREC:?set LATREC}" "${E3LOOP:?set E3LOOP}" "${JS_DIR:?set JS_DIR}" "${ARTEFACTS:?set ARTEFACTS}"
    : "${GEN:?set GEN}"
    if [ -x /usr/bin/python3 ]; then export PY=/usr/bin/python3; else export PY=python3; fi
    export BASE="$BATS_FILE_TMPDIR/base" RUN="$BATS_FILE_TMPDIR/run"
    local st=0
    # the baseline a clean loop, the run with 1 ms planted before every
    # 10th ENCODE_E3AP_DONE (so the two differ where the page must show it)
    { "$LATREC" record -q -o "$BASE" -- "$E3LOOP" --duration 2 &&
      "$LATREC" record -q -o "$RUN" -- "$E3LOOP" --duration 2 --sleep-hop encode_e3ap_done:1ms/10; } \
        >"$BATS_FILE_TMPDIR/record.out" 2>&1 || st=$?
    echo "$st" >"$BATS_FILE_TMPDIR/record.status"
    st=0
    "$BATS_TEST_DIRNAME/../js/install.sh" "$JS_DIR" >"$BATS_FILE_TMPDIR/js.out" 2>&1 || st=$?
    echo "$st" >"$BATS_FILE_TMPDIR/js.status"
    mkdir -p "$ARTEFACTS"
}

need_run() {
    [ "$(cat "$BATS_FILE_TMPDIR/record.status")" -eq 0 ] ||
        skip "E3 runs unavailable: $(head -1 "$BATS_FILE_TMPDIR/record.out")"
}

need_browser() {
    export CHROMIUM=${CHROMIUM:-$(command -v chromium || true)}
    [ -n "$CHROMIUM" ] || skip "chromium not installed (make deps installs Debian's chromium)"
    [ "$(cat "$BATS_FILE_TMPDIR/js.status")" -eq 0 ] ||
        skip "DevTools driver (npm puppeteer-core) unavailable: $(head -1 "$BATS_FILE_TMPDIR/js.out")"
}

browse() { NODE_PATH="$JS_DIR/node_modules" node "$BATS_TEST_DIRNAME/../js/report_browser_check.js" "$@"; }

# png FILE: a PNG of at least 20 kB (a blank page is smaller)
png() { [ "$(head -c 8 "$1" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] && [ "$(stat -c %s "$1")" -gt 20000 ]; }

@test "report --format html: one self-contained file, no script, no external reference" {
    need_run
    "$LATREC" report -q "$RUN" --format html -o "$BATS_TEST_TMPDIR/r.html"
    f="$BATS_TEST_TMPDIR/r.html"
    head -1 "$f" | grep -qx '<!DOCTYPE html>'
    grep -q "Content-Security-Policy\" content=\"default-src 'none'" "$f"
    ! grep -qiE '<script|<link|src=|@import|url\(' "$f"
    ! grep -qE 'https?://' "$f"
    # -o never replaces a file latrec did not write
    echo mine > "$BATS_TEST_TMPDIR/other.html"
    run "$LATREC" report -q "$RUN" --format html -o "$BATS_TEST_TMPDIR/other.html"
    [ "$status" -eq 1 ]
    [ "$(cat "$BATS_TEST_TMPDIR/other.html")" = mine ]
    # and writes again over its own
    "$LATREC" report -q "$RUN" --format html -o "$f"
}

@test "report --format html in Chromium: no console error or request, charts as the JSON report says, screenshot" {
    need_run
    need_browser
    "$LATREC" report -q "$RUN" --format html --interval 20ms -o "$BATS_TEST_TMPDIR/r.html"
    "$LATREC" report -q "$RUN" --format json --interval 20ms > "$BATS_TEST_TMPDIR/r.json"
    browse "$BATS_TEST_TMPDIR/r.html" "$ARTEFACTS/report.png" > "$BATS_TEST_TMPDIR/page.json"
    run "$PY" "$BATS_TEST_DIRNAME/html_check.py" "$BATS_TEST_TMPDIR/page.json" "$BATS_TEST_TMPDIR/r.json"
    echo "$output"
    [ "$status" -eq 0 ]
    [[ "$output" == *"path e3/loop: "* ]]
    png "$ARTEFACTS/report.png"
}

@test "report --format html --baseline in Chromium: every chart overlays the two runs, screenshot" {
    need_run
    need_browser
    "$LATREC" report -q "$RUN" --baseline "$BASE" --format html --interval 20ms -o "$BATS_TEST_TMPDIR/b.html"
    "$LATREC" report -q "$RUN" --baseline "$BASE" --format json --interval 20ms > "$BATS_TEST_TMPDIR/b.json"
    browse "$BATS_TEST_TMPDIR/b.html" "$ARTEFACTS/report-baseline.png" > "$BATS_TEST_TMPDIR/page.json"
    run "$PY" "$BATS_TEST_DIRNAME/html_check.py" "$BATS_TEST_TMPDIR/page.json" "$BATS_TEST_TMPDIR/b.json" --baseline
    echo "$output"
    [ "$status" -eq 0 ]
    # the planted 1 ms shows in the histogram: about a tenth of libe3/outbound's
    # totals at 1 ms or more in the run, as the JSON's p90 says
    "$PY" - "$BATS_TEST_TMPDIR/page.json" "$BATS_TEST_TMPDIR/b.json" <<'PY'
import json, sys
page, rep = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
sec = [s for s in page['sections'] if s['name'] == 'libe3/outbound'][0]
cdf = [c for c in sec['charts'] if c['chart'] == 'cdf'][0]
assert [s['name'] for s in cdf['series']] == ['run', 'baseline'], cdf['series']
tot = [h for l in rep['legs'] if l['leg'] == 'outbound' for h in l['hops'] if h['hop'] == 'total'][0]
assert tot['p99_us'] > 1000, tot['p99_us']
PY
    png "$ARTEFACTS/report-baseline.png"
}

@test "report --format html without --interval: about 100 points over the run" {
    need_run
    need_browser
    "$LATREC" report -q "$RUN" --format html -o "$BATS_TEST_TMPDIR/a.html"
    browse "$BATS_TEST_TMPDIR/a.html" "$BATS_TEST_TMPDIR/a.png" > "$BATS_TEST_TMPDIR/page.json"
    "$PY" - "$BATS_TEST_TMPDIR/page.json" <<'PY'
import json, sys
page = json.load(open(sys.argv[1]))
for s in page['sections']:
    ser = [c for c in s['charts'] if c['chart'] == 'series'][0]['series']
    assert 50 <= ser[0]["marks"] <= 110, (s["name"], ser[0]["marks"])
PY
}

@test "report --format html in Chromium: the charts of known stamps (200 hops of 1010..3000 ns)" {
    need_browser
    # libe3/inbound, instance i = 1..200 every 1 ms: RECV at 2 s + i ms,
    # DECODE_E3AP_DONE 1000 + 10 i ns later
    d="$BATS_TEST_TMPDIR/syn"
    { echo "ring libe3.inbound.102 version=3 pid=1000 tid=102"
      for i in $(seq 1 200); do
          t=$((2000000000 + i * 1000000))
          echo "rec libe3.inbound.102 RECV $i $t 100"
          echo "rec libe3.inbound.102 DECODE_E3AP_DONE $i $((t + 1000 + 10 * i))"
      done; } > "$BATS_TEST_TMPDIR/spec"
    "$GEN" "$d" < "$BATS_TEST_TMPDIR/spec"
    "$LATREC" report -q "$d" --format html --interval 50ms -o "$BATS_TEST_TMPDIR/s.html"
    browse "$BATS_TEST_TMPDIR/s.html" "$BATS_TEST_TMPDIR/s.png" > "$BATS_TEST_TMPDIR/page.json"
    "$PY" - "$BATS_TEST_TMPDIR/page.json" <<'PY'
import json, sys
page = json.load(open(sys.argv[1]))
assert not page['console_errors'] and not page['requests'], page
(sec,) = [s for s in page['sections'] if s['name'] == 'libe3/inbound']
ch = dict((c['chart'], c) for c in sec['charts'])
hist = ch['hist']['series'][0]
assert sum(hist['counts']) == 200, hist['counts']
# nearest rank: p0 1010, p50 the 100th (2000), p99 the 198th (2980), p100 3000
pct = dict((p, v) for p, v in ch['cdf']['series'][0]['pcts'])
assert (pct[0], pct[50], pct[99], pct[100]) == (1010, 2000, 2980, 3000), pct
# one waterfall part: the mean, 1000 + 10 x 100.5 ns
assert ch['waterfall']['series'][0]['ns'] == [2005.0], ch['waterfall']['series'][0]
# 50 ms intervals from the first record: i = 1..50, 51..100, 101..150, 151..200
assert [s['marks'] for s in ch['series']['series']] == [4, 4], ch['series']
print('ok')
PY
}
