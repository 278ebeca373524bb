# bash completion for latrec(1)

_latrec_dirs() {
    COMPREPLY=($(compgen -d -- "$cur"))
}

# The paths of the run named on the command line (default latrec.data):
# latrec report --path=help DIR... A qualified name (pipe:request) is
# completed whole; readline replaces only what follows the last ':' (a
# word break), so that is what is offered.
_latrec_paths() {
    local dirs=() w
    for w in "${words[@]:2}"; do
        [[ $w != -* && -d $w ]] && dirs+=("$w")
    done
    COMPREPLY=($(compgen -W "$("${words[0]}" report --path=help "${dirs[@]}" 2>/dev/null | cut -f1)" -- "$cur"))
    if [[ $cur == *:* && $COMP_WORDBREAKS == *:* ]]; then
        local pre=${cur%"${cur##*:}"} i
        for i in "${!COMPREPLY[@]}"; do COMPREPLY[i]=${COMPREPLY[i]#"$pre"}; done
    fi
}

# Without bash-completion, COMP_WORDS is split at ':' ("pipe:re" is
# "pipe" ":" "re"): glue such pieces back into words, cur and prev.
_latrec_glue_colons() {
    local glued=() i n=-1 c=0 after=0
    for ((i = 0; i < ${#COMP_WORDS[@]}; i++)); do
        local w=${COMP_WORDS[i]}
        if ((n > 0)) && [[ $w == : || $after == 1 ]]; then
            glued[n]+=$w
        else
            glued[++n]=$w
        fi
        [[ $w == : ]] && after=1 || after=0
        ((i == COMP_CWORD)) && c=$n
    done
    words=("${glued[@]}")
    cword=$c
    cur=${words[c]}
    prev=${words[c - 1]}
}

# "--opt=value": COMP_WORDS has it as three words (--opt, =, value), with
# or without bash-completion: the option goes to prev and what follows the
# '=' to cur, so it completes as "--opt value" does (readline replaces only
# what follows the '=', a word break).
_latrec_split_eq() {
    if [[ $cur == = && $prev == --* ]]; then
        cur=""
    elif [[ $prev == = ]] && ((cword >= 2)) && [[ ${words[cword - 2]} == --* ]]; then
        prev=${words[cword - 2]}
    fi
}

# The names of a choice, from latrec's own table ("latrec report --unit=help").
_latrec_choice() {
    local names
    names=$("${words[0]}" "$1" "$2=help" 2>/dev/null | cut -f1)
    COMPREPLY=($(compgen -W "${names:-$3}" -- "$cur"))
}

_latrec() {
    local cur prev words cword
    _init_completion -n : 2>/dev/null || _latrec_glue_colons
    _latrec_split_eq

    local cmd="" i
    local common="-h -? --help --usage -V --version"
    for ((i = 1; i < cword; i++)); do
        case ${words[i]} in
            record|report|hist|convert|top) cmd=${words[i]}; break ;;
        esac
    done

    if [[ -z $cmd ]]; then
        # the word list quoted in the loop: "-?" is no glob
        mapfile -t COMPREPLY < <(compgen -W "record report hist convert top $common" -- "$cur")
        return
    fi

    # argp children every analysis command shares (cli/options.h)
    local input="-i --input --catalog --stages --stage-prefix --wall --align --leg-horizon --path-horizon --threads -q --quiet"
    local select="--component --leg --hop --warm-up --calibrate"
    local output="--unit --format"
    local opts
    case $cmd in
        record|top)
            # After "--" the command line is the target's own: its command,
            # then its arguments (file names, as bash completes them).
            for ((i = 2; i < cword; i++)); do
                if [[ ${words[i]} == -- ]]; then
                    if ((cword == i + 1)); then
                        COMPREPLY=($(compgen -c -- "$cur"))
                    else
                        compopt -o filenames 2>/dev/null
                        COMPREPLY=($(compgen -f -- "$cur"))
                    fi
                    return
                fi
            done
            opts="-o --output -f --force -q --quiet --catalog -d --duration --grace -c --cpus -P --priority
                  --lib --entries-log2 --role-entries --rings-dir -p --pid --rings -t --trace
                  -e --event --trace-buffer-size --no-sched --require-sched --sched-buffer --tid
                  --stop-above --on-threshold $common"
            if [[ $cmd == top ]]; then
                # record's launching options (not -p, --rings, --tid) and the analysis children
                opts="$input $select $output --interval -d --duration --path -o --output -f --force --grace
                      -c --cpus -P --priority --lib --entries-log2 --role-entries --rings-dir -t --trace
                      -e --event --trace-buffer-size --no-sched --require-sched --sched-buffer
                      --stop-above --on-threshold $common"
                case $prev in
                    --unit) _latrec_choice top --unit "ns us ms"; return ;;
                    --format) _latrec_choice top --format "text json"; return ;;
                    -i|--input) _latrec_dirs; return ;;
                    --stages) COMPREPLY=($(compgen -f -- "$cur")); return ;;
                    --path) _latrec_paths; return ;;
                    --interval|--component|--leg|--hop|--warm-up|--stage-prefix|--leg-horizon|--path-horizon|--threads) return ;;
                esac
            fi
            case $prev in
                -o|--output|--rings|--rings-dir|--lib) _latrec_dirs; return ;;
                --catalog) COMPREPLY=($(compgen -f -- "$cur")); return ;;
                -p|--pid) COMPREPLY=($(compgen -W "$(ls /proc | grep -E '^[0-9]+$')" -- "$cur")); return ;;
                -e|--event)
                    local ev=/sys/kernel/tracing/available_events
                    [[ -r $ev ]] && COMPREPLY=($(compgen -W "$(cat $ev)" -- "$cur"))
                    return ;;
                --on-threshold) COMPREPLY=($(compgen -c -- "$cur")); return ;;
                -d|--duration|--grace|-c|--cpus|-P|--priority|--entries-log2|--role-entries|--trace-buffer-size|--sched-buffer|--tid|--stop-above) return ;;
            esac
            ;;
        report)
            opts="$input $select $output --top --path --percentiles --fail-over --baseline --drop-outliers
                  --interval --explain -o --output $common"
            case $prev in
                --unit) _latrec_choice report --unit "ns us ms"; return ;;
                --format) _latrec_choice report --format "text csv json html"; return ;;
                -o|--output) COMPREPLY=($(compgen -f -- "$cur")); return ;;
                --baseline|-i|--input) _latrec_dirs; return ;;
                --catalog|--stages) COMPREPLY=($(compgen -f -- "$cur")); return ;;
                --path) _latrec_paths; return ;;
                --top|--component|--leg|--hop|--percentiles|--warm-up|--fail-over|--interval|--explain|--stage-prefix|--leg-horizon|--path-horizon|--threads) return ;;
            esac
            ;;
        hist)
            opts="$input $select $output --path --totals -b --bucket-size -E --entries --no-header
                  --no-summary --no-index --with-zeros --log2 --runqlat --per-thread $common"
            case $prev in
                --unit) _latrec_choice hist --unit "ns us ms"; return ;;
                --format) _latrec_choice hist --format "text csv json"; return ;;
                -i|--input) _latrec_dirs; return ;;
                --catalog|--stages) COMPREPLY=($(compgen -f -- "$cur")); return ;;
                --path) _latrec_paths; return ;;
                --component|--leg|--hop|-b|--bucket-size|-E|--entries|--warm-up|--stage-prefix|--leg-horizon|--path-horizon|--threads) return ;;
            esac
            ;;
        convert)
            opts="$input -o --outdir -f --force --format --window --max-events --watch --quiet-secs --timeout $common"
            case $prev in
                --format) _latrec_choice convert --format "csv chrome"; return ;;
                -o|--outdir|-i|--input) _latrec_dirs; return ;;
                --catalog|--stages) COMPREPLY=($(compgen -f -- "$cur")); return ;;
                --quiet-secs|--timeout|--stage-prefix|--leg-horizon|--path-horizon|--threads|--window|--max-events) return ;;
            esac
            ;;
    esac
    if [[ $cur == -* ]]; then
        mapfile -t COMPREPLY < <(compgen -W "$opts" -- "$cur")
    else
        _latrec_dirs
    fi
}
complete -F _latrec latrec
