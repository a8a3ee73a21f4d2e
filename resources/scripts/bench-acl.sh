#!/usr/bin/env bash
# What ACL costs on the send path: qrocket-bench producer (64 sync senders by default, 1 KiB,
# ASYNC_FLUSH) against one broker daemon with aclEnable=false, then with aclEnable=true (every
# request signed with HMAC-SHA1 by the client and checked by the broker: signature, topic and
# group permissions of a non-admin account), alternating off/on/off/on in one run because this
# machine's speed drifts. Each row counts what the broker stored in its window (brokerStatus
# msgPutTotalTodayNow) and prints the mean of each mode and their ratio.
#
#   ./resources/scripts/bench-acl.sh              # SECONDS_PER_ROW=15 THREADS=64 SIZE=1024
#
# Starts its own name server and broker (restarted per row, same store) on spare ports in a
# temporary folder and stops them at the end. Builds nothing: run it after the build.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
bin=${BIN_DIR:-$top/build/bin}
seconds=${SECONDS_PER_ROW:-15}
threads=${THREADS:-64}
size=${SIZE:-1024}
ns_port=${NAMESRV_PORT:-29976}
broker_port=${BROKER_PORT:-20711}
for exe in qrocket-bench qrocket-namesrv qrocket-broker qrocket-admin; do
    [ -x "$bin/$exe" ] || { echo "bench-acl: $bin/$exe is not built" >&2; exit 1; }
done
work=$(mktemp -d /tmp/qrocket-bench-acl.XXXXXX)
pids=()
broker_pid=
cleanup() {
    for p in "${pids[@]}" $broker_pid; do kill "$p" 2>/dev/null || true; done
    for p in "${pids[@]}" $broker_pid; do wait "$p" 2>/dev/null || true; done
    rm -rf "$work"
}
trap cleanup EXIT
export QT_LOGGING_RULES="qrocket.*.info=false"

cat > "$work/plain_acl.yml" <<YML
accounts:
  - accessKey: rocketmq2
    secretKey: "12345678"
    defaultTopicPerm: DENY
    defaultGroupPerm: SUB
    topicPerms: [ "BenchmarkTest=PUB|SUB" ]
YML
printf 'accessKey: rocketmq2\nsecretKey: "12345678"\n' > "$work/tools.yml"
printf 'listenPort=%s\n' "$ns_port" > "$work/namesrv.conf"
"$bin/qrocket-namesrv" -c "$work/namesrv.conf" >"$work/namesrv.log" 2>&1 & pids+=($!)
for _ in $(seq 50); do (exec 3<>"/dev/tcp/127.0.0.1/$ns_port") 2>/dev/null && break; sleep 0.1; done

start_broker() { # $1: true|false
    cat > "$work/broker.conf" <<CONF
brokerClusterName=BenchCluster
brokerName=bench-acl
brokerId=0
listenPort=$broker_port
namesrvAddr=127.0.0.1:$ns_port
brokerIP1=127.0.0.1
storePathRootDir=$work/store
flushDiskType=ASYNC_FLUSH
aclEnable=$1
aclFilePath=$work/plain_acl.yml
CONF
    "$bin/qrocket-broker" -c "$work/broker.conf" >>"$work/broker.log" 2>&1 & broker_pid=$!
    for _ in $(seq 100); do (exec 3<>"/dev/tcp/127.0.0.1/$broker_port") 2>/dev/null && break; sleep 0.1; done
    for _ in $(seq 100); do
        "$bin/qrocket-admin" clusterList -n "127.0.0.1:$ns_port" 2>/dev/null | grep -q bench-acl && break
        sleep 0.1
    done
}
stop_broker() {
    kill "$broker_pid" 2>/dev/null || true
    wait "$broker_pid" 2>/dev/null || true
    broker_pid=
    sleep 1 # the name server sees the channel close; the ports are free again
}
puts() {
    "$bin/qrocket-admin" brokerStatus -n "127.0.0.1:$ns_port" -b "127.0.0.1:$broker_port" \
        --aclConfig "$work/tools.yml" 2>/dev/null | awk '$1 == "msgPutTotalTodayNow" { print $3 }'
}
row() { # $1: off|on
    local acl=false flags=()
    if [ "$1" = on ]; then acl=true; flags=(-a true -ak rocketmq2 -sk 12345678); fi
    start_broker "$acl"
    "$bin/qrocket-bench" producer -n "127.0.0.1:$ns_port" -w "$threads" -s "$size" "${flags[@]}" \
        >"$work/bench-$1.out" 2>&1 &
    local gen=$!
    measure_row "ACL $1" "$broker_pid" "$gen"
    kill "$gen" 2>/dev/null || true
    wait "$gen" 2>/dev/null || true
    stop_broker
}

# shellcheck source=bench-ab.sh
. "$top/resources/scripts/bench-ab.sh"
alternate_rows ACL
