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
# shellcheck source=bench-cluster.sh
. "$top/resources/scripts/bench-cluster.sh"
bench_setup bench-acl qrocket-bench qrocket-namesrv qrocket-broker qrocket-admin

cat > "$work/plain_acl.yml" <<YML
accounts:
  - accessKey: rocketmq2
    secretKey: "12345678"
    defaultTopicPerm: DENY
    defaultGroupPerm: SUB
    topicPerms: [ "BenchmarkTest=PUB|SUB" ]
YML
printf 'accessKey: rocketmq2\nsecretKey: "12345678"\n' > "$work/tools.yml"
bench_start_namesrv
admin_args=(--aclConfig "$work/tools.yml")
start_broker() { # $1: true|false
    bench_start_broker bench-acl BenchCluster "aclEnable=$1
aclFilePath=$work/plain_acl.yml"
}
puts() { bench_puts; }
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
    bench_stop_broker
}

# shellcheck source=bench-ab.sh
. "$top/resources/scripts/bench-ab.sh"
alternate_rows ACL
