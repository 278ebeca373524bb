# Shared by the record bats files (load record_helpers).

# Wait until the command of run directory $1 has been released and exec'd
# (run.json's launch.release_to_exec_ns is written then); 1 after 10 s.
wait_running() {
    local i
    for i in $(seq 200); do
        jq -e '.launch.release_to_exec_ns' "$1/run.json" >/dev/null 2>&1 && return 0
        sleep 0.05
    done
    return 1
}

# wait_ready: the launched command made ./ready (once it is set up), 10 s at most
wait_ready() {
    local i
    for i in $(seq 200); do
        [ -e ready ] && return 0
        sleep 0.05
    done
    return 1
}
