# Sourced by the bench scripts (bench-producer.sh, bench-drain.sh, bench-tls.sh, bench-acl.sh): a
# throwaway name server and broker daemon on loopback, with their store and logs in a temporary
# folder that is removed, and the daemons stopped, when the script exits. The caller sets $bin,
# $ns_port and $broker_port first.
#
#   bench_setup NAME PROGRAM...          checks the programs are built, makes $work, sets the trap
#   bench_start_namesrv [CONF_LINES]     starts the name server (listenPort + the lines)
#   bench_start_broker NAME CLUSTER [CONF_LINES]
#                                        starts a broker (ASYNC_FLUSH, store in $work/store; the
#                                        lines are added to its config), sets $broker_pid, waits
#                                        for its port and its route in the name server
#   bench_stop_broker                    stops it (the store stays, for a restart)
#   bench_puts                           messages the broker stored today (brokerStatus
#                                        msgPutTotalTodayNow); $admin_args are added to the call

bench_setup() {
    bench_name=$1
    shift
    local exe
    for exe in "$@"; do
        [ -x "$bin/$exe" ] || { echo "$bench_name: $bin/$exe is not built" >&2; exit 1; }
    done
    work=$(mktemp -d "${TMPDIR:-/tmp}/qrocket-$bench_name.XXXXXX")
    pids=()
    broker_pid=
    admin_args=()
    trap bench_cleanup EXIT
    export QT_LOGGING_RULES="qrocket.*.info=false"
}

bench_cleanup() {
    local p
    for p in "${pids[@]}" $broker_pid; do kill "$p" 2>/dev/null || true; done
    for p in "${pids[@]}" $broker_pid; do wait "$p" 2>/dev/null || true; done
    rm -rf "$work"
}

bench_wait_port() { # $1: port, $2: what listens there (for the error)
    local _
    for _ in $(seq 100); do
        (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null && return 0
        sleep 0.1
    done
    echo "$bench_name: the $2 does not listen on 127.0.0.1:$1 after 10 s:" >&2
    tail -5 "$work/$2.log" >&2
    exit 1
}

bench_start_namesrv() {
    printf 'listenPort=%s\n%s\n' "$ns_port" "${1:-}" > "$work/namesrv.conf"
    "$bin/qrocket-namesrv" -c "$work/namesrv.conf" >"$work/namesrv.log" 2>&1 &
    pids+=($!)
    bench_wait_port "$ns_port" namesrv
}

bench_start_broker() {
    cat > "$work/broker.conf" <<CONF
brokerClusterName=$2
brokerName=$1
brokerId=0
listenPort=$broker_port
namesrvAddr=127.0.0.1:$ns_port
brokerIP1=127.0.0.1
storePathRootDir=$work/store
flushDiskType=ASYNC_FLUSH
${3:-}
CONF
    "$bin/qrocket-broker" -c "$work/broker.conf" >>"$work/broker.log" 2>&1 &
    broker_pid=$!
    bench_wait_port "$broker_port" broker
    # The broker registers with the name server at start; the tools need its route.
    local _
    for _ in $(seq 100); do
        "$bin/qrocket-admin" clusterList -n "127.0.0.1:$ns_port" "${admin_args[@]}" 2>/dev/null \
            | grep -q "$1" && return 0
        sleep 0.1
    done
    echo "$bench_name: broker $1 is not in the name server's cluster list after 10 s" >&2
    exit 1
}

bench_stop_broker() {
    kill "$broker_pid" 2>/dev/null || true
    wait "$broker_pid" 2>/dev/null || true
    broker_pid=
    sleep 1 # the name server sees the channel close; the ports are free again
}

bench_puts() {
    "$bin/qrocket-admin" brokerStatus -n "127.0.0.1:$ns_port" -b "127.0.0.1:$broker_port" \
        "${admin_args[@]}" 2>/dev/null | awk '$1 == "msgPutTotalTodayNow" { print $3 }'
}
