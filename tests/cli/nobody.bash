# nobody.bash (bats `load nobody`): the build's programs for tests that run
# them as the unprivileged user nobody.
#
# nobody_programs DIR VAR...: when nobody cannot run the program a variable
# names (a checkout closed to other users: cloned under /root or into a
# 0700 mktemp -d), copy it into DIR (made reachable) with the project's
# shared libraries it needs, point the variable at the copy and put DIR on
# LD_LIBRARY_PATH (the build's RUNPATH gives way to it). Nothing changes
# where nobody can reach the build. Returns 1 when DIR itself is out of
# nobody's reach.
nobody_programs() {
    local dir=$1 v need=0 lib
    shift
    for v in "$@"; do
        setpriv --reuid=65534 --regid=65534 --clear-groups test -x "${!v}" || need=1
    done
    [ "$need" -eq 1 ] || return 0
    mkdir -p "$dir"
    chmod 755 "$dir"
    for v in "$@"; do
        install -m 755 "${!v}" "$dir/"
        # the project's own libraries (liblatrec): what ldd finds outside /lib and /usr
        for lib in $(ldd "${!v}" | awk '$3 ~ /^\// && $3 !~ /^\/(usr\/)?lib/ { print $3 }'); do
            install -m 644 "$lib" "$dir/$(basename "$lib")"
        done
        printf -v "$v" '%s' "$dir/$(basename "${!v}")"
    done
    export LD_LIBRARY_PATH="$dir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
    setpriv --reuid=65534 --regid=65534 --clear-groups test -x "$dir"
}
