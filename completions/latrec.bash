# bash completion for latrec(1)

_latrec_dirs() {
    COMPREPLY=($(compgen -d -- "$cur"))
}

# The paths of the run named on the command line (default latrec.data):
# latrec report --path=help DIR...
_latrec_paths() {
    local dirs=() w
    for w in "${words[@]:2}"; do
        [[ $w != -* && -d $w ]] && dirs+=("$w")
    done
    COMPREPLY=($(compgen -W "$("${words[0]}" report --path=help "${dirs[@]}" 2>/dev/null | cut -f1)" -- "$cur"))
}

_latrec() {
    local cur prev words cword
    _init_completion 2>/dev/null || {
        cur=${COMP_WORDS[COMP_CWORD]}
        prev=${COMP_WORDS[COMP_CWORD-1]}
        words=("${COMP_WORDS[@]}")
        cword=$COMP_CWORD
    }

    local cmd="" i
    for ((i = 1; i < cword; i++)); do
        case ${words[i]} in
            record|report|hist|convert) cmd=${words[i]}; break ;;
        esac
    done

    if [[ -z $cmd ]]; then
        COMPREPLY=($(compgen -W "record report hist convert --help --version --usage" -- "$cur"))
        return
    fi

    local input="-i --input --catalog --stages --stage-prefix --wall --leg-horizon --path-horizon -q --quiet --help --usage"
    local opts
    case $cmd in
        record)
            # After "--" the command line is the target's own.
            for ((i = 2; i < cword; i++)); do
                if [[ ${words[i]} == -- ]]; then
                    COMPREPLY=($(compgen -c -- "$cur"))
                    return
                fi
            done
            opts="-o --output -f --force -q --quiet -d --duration --grace -c --cpus -P --priority
                  --lib --entries-log2 --role-entries --rings-dir -p --pid --rings -t --trace
                  -e --event --trace-buffer-size --no-sched --require-sched --sched-buffer --tid
                  --help --usage --version"
            case $prev in
                -o|--output|--rings|--rings-dir|--lib) _latrec_dirs; return ;;
                -p|--pid) COMPREPLY=($(compgen -W "$(ls /proc | grep -E '^[0-9]+$')" -- "$cur")); return ;;
                -e|--event)
                    local ev=/sys/kernel/tracing/available_events
                    [[ -r $ev ]] && COMPREPLY=($(compgen -W "$(cat $ev)" -- "$cur"))
                    return ;;
                -d|--duration|--grace|-c|--cpus|-P|--priority|--entries-log2|--role-entries|--trace-buffer-size|--sched-buffer|--tid) return ;;
            esac
            ;;
        report)
            opts="$input --top --component --leg --hop --path --percentiles --unit --warm-up --format
                  --fail-over --baseline --drop-outliers --calibrate --interval --explain"
            case $prev in
                --unit) COMPREPLY=($(compgen -W "ns us ms" -- "$cur")); return ;;
                --format)
                    # latrec's own table of formats (latrec report --format=help)
                    local fmts
                    fmts=$("${words[0]}" report --format=help 2>/dev/null | cut -f1)
                    COMPREPLY=($(compgen -W "${fmts:-text csv json}" -- "$cur")); return ;;
                --baseline|-i|--input) _latrec_dirs; return ;;
                --catalog|--stages) COMPREPLY=($(compgen -f -- "$cur")); return ;;
                --path) _latrec_paths; return ;;
                --top|--component|--leg|--hop|--percentiles|--warm-up|--fail-over|--interval|--explain|--stage-prefix|--leg-horizon|--path-horizon) return ;;
            esac
            ;;
        hist)
            opts="$input --component --leg --hop --path --totals -b --bucket-size -E --entries --no-header
                  --no-summary --no-index --with-zeros --unit --log2 --format --warm-up --calibrate --runqlat --per-thread"
            case $prev in
                --unit) COMPREPLY=($(compgen -W "ns us ms" -- "$cur")); return ;;
                --format) COMPREPLY=($(compgen -W "text csv json" -- "$cur")); return ;;
                -i|--input) _latrec_dirs; return ;;
                --catalog|--stages) COMPREPLY=($(compgen -f -- "$cur")); return ;;
                --path) _latrec_paths; return ;;
                --component|--leg|--hop|-b|--bucket-size|-E|--entries|--warm-up|--stage-prefix|--leg-horizon|--path-horizon) return ;;
            esac
            ;;
        convert)
            opts="$input -o --outdir --format --window --max-events --watch --quiet-secs --timeout"
            case $prev in
                --format) COMPREPLY=($(compgen -W "csv chrome" -- "$cur")); return ;;
                -o|--outdir|-i|--input) _latrec_dirs; return ;;
                --catalog|--stages) COMPREPLY=($(compgen -f -- "$cur")); return ;;
                --quiet-secs|--timeout|--stage-prefix|--leg-horizon|--path-horizon|--window|--max-events) return ;;
            esac
            ;;
    esac
    if [[ $cur == -* ]]; then
        COMPREPLY=($(compgen -W "$opts" -- "$cur"))
    else
        _latrec_dirs
    fi
}
complete -F _latrec latrec
