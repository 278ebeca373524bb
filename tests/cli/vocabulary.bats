#!/usr/bin/env bats
# Every option of every command is in its --help, its man page and the bash
# completion, and the completion offers nothing --help does not list.
# Reads the real `latrec CMD --help`, man/*.1 and completions/latrec.bash.
#
# Environment (tests/unit/cli.cmake): LATREC, SRC (the source tree).

bats_require_minimum_version 1.5.0

setup_file() {
    : "${LATREC:?LATREC must name the latrec binary}" "${SRC:?SRC must name the source tree}"
}

# The options --help lists, one a line ("-b", "--bucket-size", "-?").
help_options() {
    "$LATREC" "$@" --help | awk '
        /^  -|^      --/ {
            line = $0
            sub(/^ +/, "", line)
            # the option part ends at the first run of two blanks
            n = index(line, "  ")
            if (n) line = substr(line, 1, n - 1)
            k = split(line, part, ", ")
            for (i = 1; i <= k; i++) {
                o = part[i]
                sub(/[[= ].*/, "", o)
                print o
            }
        }' | sort -u
}

# The man page as plain text with roff's escapes gone: "\-\-unit" -> "--unit".
man_text() {
    sed -e 's/\\f[BIRP]//g' -e 's/\\-/-/g' -e 's/\\e/\\/g' "$1"
}

# What the completion offers after "latrec WORDS... -" (COMPREPLY, one a line).
completion_options() {
    bash -c '
        source "$1"; shift
        COMP_WORDS=(latrec "$@" -)
        COMP_CWORD=$(( ${#COMP_WORDS[@]} - 1 ))
        _latrec
        printf "%s\n" "${COMPREPLY[@]}"' _ "$SRC/completions/latrec.bash" "$@" | sort -u
}

check_command() {
    local page=$1
    shift
    local opts man comp missing=""
    opts=$(help_options "$@")
    [ -n "$opts" ] || { echo "no options parsed from latrec $* --help"; return 1; }
    man=$(man_text "$SRC/man/$page")
    comp=$(completion_options "$@")
    while IFS= read -r o; do
        # an option word: not part of a longer name ("--leg" is not "--legs")
        local re
        re="(^|[^A-Za-z0-9-])$(printf '%s' "$o" | sed 's/[?]/[?]/')([^A-Za-z0-9-]|\$)"
        grep -Eq -- "$re" <<<"$man" || missing+=" $o:not-in-$page"
        grep -qxF -- "$o" <<<"$comp" || missing+=" $o:not-in-completion"
    done <<<"$opts"
    while IFS= read -r o; do
        [ -z "$o" ] || grep -qxF -- "$o" <<<"$opts" || missing+=" $o:completed-but-not-in-help"
    done <<<"$comp"
    # and the other way: an option the page documents (a .TP tag) that
    # --help does not list is a stale page
    local tagged
    tagged=$(man_text "$SRC/man/$page" | awk 'prev ~ /^\.TP/ { print } { prev = $0 }' |
        grep -oE -- '(^|[ ,"])--?[A-Za-z0-9?][A-Za-z0-9-]*' | sed 's/^[ ,"]*//' | sort -u)
    while IFS= read -r o; do
        [ -z "$o" ] || grep -qxF -- "$o" <<<"$opts" || missing+=" $o:in-$page-not-in-help"
    done <<<"$tagged"
    [ -z "$missing" ] || { echo "latrec $*:$missing"; return 1; }
}

@test "latrec: options in --help, latrec(1) and the completion" {
    check_command latrec.1
}

@test "latrec record: options in --help, latrec-record(1) and the completion" {
    check_command latrec-record.1 record
}

@test "latrec report: options in --help, latrec-report(1) and the completion" {
    check_command latrec-report.1 report
}

@test "latrec hist: options in --help, latrec-hist(1) and the completion" {
    check_command latrec-hist.1 hist
}

@test "latrec convert: options in --help, latrec-convert(1) and the completion" {
    check_command latrec-convert.1 convert
}

@test "latrec top: options in --help, latrec-top(1) and the completion" {
    check_command latrec-top.1 top
}

# The names of a choice: its table (--OPTION=help), the --help line, the
# man page's paragraph of the option and the completion agree.
check_choice() {
    local cmd=$1 opt=$2 page=$3 names helpline para comp n bad=""
    names=$("$LATREC" "$cmd" "$opt=help" | cut -f1)
    [ -n "$names" ] || { echo "latrec $cmd $opt=help lists nothing"; return 1; }
    # the option's --help entry, continuation lines included
    helpline=$("$LATREC" "$cmd" --help | awk -v o="$opt=" '
        p && /^  -|^      --|^$|^ [A-Z]/ { exit } p { print } index($0, o) { p = 1; print }')
    # the man paragraph: from the option's line to the next .TP or section
    para=$(sed -e 's/\\f[BIRP]//g' -e 's/\\-/-/g' "$SRC/man/$page" | awk -v o="$opt" '
        p && /^\.(TP|SH|SS|PP)/ { exit } p { print }
        !p && prev ~ /^\.TP/ && index($0, o) { p = 1 } { prev = $0 }')
    comp=$(bash -c '
        source "$1"; shift
        COMP_WORDS=("$@" "")
        COMP_CWORD=$(( ${#COMP_WORDS[@]} - 1 ))
        _latrec
        printf "%s\n" "${COMPREPLY[@]}"' _ "$SRC/completions/latrec.bash" "$LATREC" "$cmd" "$opt" | sort)
    [ "$comp" = "$(sort <<<"$names")" ] || bad+=" completion:[$(echo $comp)]"
    for n in $names; do
        grep -qw -- "$n" <<<"$helpline" || bad+=" $n:not-in-help"
        grep -qw -- "$n" <<<"$para" || bad+=" $n:not-in-$page"
    done
    [ -z "$bad" ] || { echo "latrec $cmd $opt ($(echo $names)):$bad"; return 1; }
}

@test "choices: --unit and --format agree in their table, --help, man page and completion" {
    check_choice report --unit latrec-report.1
    check_choice report --format latrec-report.1
    check_choice hist --unit latrec-hist.1
    check_choice hist --format latrec-hist.1
    check_choice convert --format latrec-convert.1
    check_choice top --unit latrec-top.1
    check_choice top --format latrec-top.1
}

# What the completion offers for WORDS as bash hands them to it (the last
# word is the one completed; "--unit=m" comes as "--unit" "=" "m").
complete_words() {
    bash -c '
        source "$1"; shift
        COMP_WORDS=("$@")
        COMP_CWORD=$(( ${#COMP_WORDS[@]} - 1 ))
        _latrec
        printf "%s\n" "${COMPREPLY[@]}"' _ "$SRC/completions/latrec.bash" "$LATREC" "$@" | sort
}

@test "completion: --opt=value completes the value as --opt value does" {
    local fx="$SRC/tests/fixtures/libe3/b1_loop_clean" c
    for c in "report --unit" "report --format" "hist --format" "convert --format" "top --unit"; do
        # right after the '=', and with part of the value typed
        [ "$(complete_words $c = "")" = "$(complete_words $c "")" ] || { echo "$c="; return 1; }
        [ "$(complete_words $c =)" = "$(complete_words $c "")" ] || { echo "$c= (cur '=')"; return 1; }
    done
    [ "$(complete_words report --unit = m)" = ms ]
    [ "$(complete_words hist --format = j)" = json ]
    [ "$(complete_words report "$fx" --path = "")" = "$(printf 'e3/indication\ne3/loop')" ]
    [ "$(complete_words report "$fx" --path = e3/l)" = e3/loop ]
    [ "$(complete_words convert --outdir = "$SRC/complet")" = "$SRC/completions" ]
    # no option after '=' (a value that holds one): no change
    [ "$(complete_words report -o = "$SRC/complet")" = "$(complete_words report -o "$SRC/complet")" ]
}

@test "completion: after record's or top's --, the command, then the command's arguments as file names" {
    # (every word after -- was completed as a command name: "latrec record
    # -- ls ru" offered runuser, not run1/)
    local d="$BATS_TEST_TMPDIR/cwd" c
    mkdir -p "$d/run1"
    touch "$d/runner.txt"
    cd "$d"
    for c in record top; do
        [ "$(complete_words $c -- true)" = "$(compgen -c -- true | sort)" ]
        [ "$(complete_words $c -- ls ru)" = "$(printf 'run1\nrunner.txt')" ]
        [ "$(complete_words $c -q -- ls -la ru)" = "$(printf 'run1\nrunner.txt')" ]
    done
}

@test "completion on a terminal (tmux): --format=j and Tab gives --format=json" {
    command -v tmux >/dev/null || skip "tmux is not installed (apt-get install tmux): no terminal to drive"
    [ "$(basename "$LATREC")" = latrec ] || skip "the binary is not named latrec: the completion is for latrec"
    local s="latrec-comp-$$" screen=""
    tmux -L "$s" new-session -d -s "$s" -x 160 -y 20 \
        "env PATH='$(dirname "$LATREC")':\"\$PATH\" PS1='$ ' bash --norc --noprofile"
    tmux -L "$s" send-keys -t "$s" "source '$SRC/completions/latrec.bash'" Enter
    tmux -L "$s" send-keys -t "$s" "latrec hist --format=j" Tab
    for _ in $(seq 200); do
        screen=$(tmux -L "$s" capture-pane -p -t "$s")
        grep -q -- '--format=json' <<<"$screen" && break
        sleep 0.05
    done
    tmux -L "$s" kill-server 2>/dev/null || true
    # (not anchored: keys sent before bash drew its prompt are echoed ahead of it)
    grep -q -- '\$ latrec hist --format=json' <<<"$screen" || { echo "$screen"; return 1; }
}

@test "the checker finds a missing option (a test that cannot fail is no test)" {
    # A completion file without --unit for hist: the check must say so.
    grep -q 'local output="--unit --format"' "$SRC/completions/latrec.bash"
    sed 's/local output="--unit --format"/local output="--format"/' "$SRC/completions/latrec.bash" \
        >"$BATS_TEST_TMPDIR/latrec.bash"
    SRC_SAVED=$SRC
    mkdir -p "$BATS_TEST_TMPDIR/src/completions"
    cp "$BATS_TEST_TMPDIR/latrec.bash" "$BATS_TEST_TMPDIR/src/completions/latrec.bash"
    ln -s "$SRC_SAVED/man" "$BATS_TEST_TMPDIR/src/man"
    SRC="$BATS_TEST_TMPDIR/src" run check_command latrec-hist.1 hist
    [ "$status" -ne 0 ]
    [[ "$output" == *"--unit:not-in-completion"* ]]
}

@test "latrec --help: every command on a line of its own, a longer summary indented under it" {
    run --separate-stderr "$LATREC" --help
    [ "$status" -eq 0 ]
    # the block from "Commands:" to the blank line after it
    local block
    block=$(awk '/^Commands:/ { p = 1; next } p && /^$/ { exit } p' <<<"$output")
    [ "$(grep -cE '^  (record|report|hist|convert|top) +[A-Z]' <<<"$block")" -eq 5 ]
    # argp wrapped a long summary into column 0 ("watched)")
    local bad
    bad=$(grep -vE '^  (record|report|hist|convert|top) +[A-Z]|^ {11}[^ ]' <<<"$block") || true
    [ -z "$bad" ] || { echo "not a command line nor indented under one: '$bad'"; return 1; }
}

@test "the checker finds an option a man page documents that --help does not list" {
    mkdir -p "$BATS_TEST_TMPDIR/src2/man"
    cp "$SRC"/man/* "$BATS_TEST_TMPDIR/src2/man/"
    ln -s "$SRC/completions" "$BATS_TEST_TMPDIR/src2/completions"
    printf '.TP\n.B \\-\\-gone\nAn option latrec hist no longer has.\n' >>"$BATS_TEST_TMPDIR/src2/man/latrec-hist.1"
    SRC="$BATS_TEST_TMPDIR/src2" run check_command latrec-hist.1 hist
    [ "$status" -ne 0 ]
    [[ "$output" == *"--gone:in-latrec-hist.1-not-in-help"* ]]
}

@test "-h is --help for latrec and every command" {
    for c in "" record report hist convert top; do
        run --separate-stderr "$LATREC" $c -h
        [ "$status" -eq 0 ] || { echo "latrec $c -h: $status $stderr"; return 1; }
        [ "$output" = "$("$LATREC" $c --help)" ]
    done
}
