#!/usr/bin/env bash
# The README's producer benchmark: qrocket-bench producer (QRocket's client, 64 threads, 1 KiB,
# synchronous sends) against a local QRocket broker (ASYNC_FLUSH), printed beside the floor
# measured in the same run: qrocket-bench-broker's raw-frame row (pre-encoded SEND_MESSAGE_V2
# frames from one epoll thread over 64 connections, one request in flight each, no client
# library). With RMQ_DIST set (an Apache RocketMQ 4.9.7 dist, see the README), RocketMQ's own
# benchmark Producer drives the same broker too, for the load-generator comparison.
#
#   ./resources/scripts/bench-producer.sh             # SECONDS_PER_ROW=20 THREADS=64 SIZE=1024
#   RMQ_DIST=/tmp/rmq-upstream/dist ./resources/scripts/bench-producer.sh
#
# Starts its own name server and broker on spare ports with a store in a temporary folder and
# stops them at the end. Builds nothing: run it after the README's build command.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
bin=${BIN_DIR:-$top/build/bin}
seconds=${SECONDS_PER_ROW:-20}
threads=${THREADS:-64}
size=${SIZE:-1024}
ns_port=${NAMESRV_PORT:-29876}
broker_port=${BROKER_PORT:-20611}
for exe in qrocket-bench qrocket-bench-broker qrocket-namesrv qrocket-broker; do
    [ -x "$bin/$exe" ] || { echo "bench-producer: $bin/$exe is not built" >&2; exit 1; }
done
work=$(mktemp -d /tmp/qrocket-bench.XXXXXX)
pids=()
cleanup() {
    for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
    for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
    rm -rf "$work"
}
trap cleanup EXIT
export QT_LOGGING_RULES="qrocket.*.info=false"

echo "== floor: qrocket-bench-broker raw frames, $threads connections x 1, $size B, ASYNC_FLUSH, ${seconds} s"
raw=$("$bin/qrocket-bench-broker" --seconds "$seconds" --sizes "$size" --connections "$threads" \
    --flush ASYNC_FLUSH --window 1 --no-echo --no-pull 2>/dev/null | grep -E "^send .* x +1 " | tail -1)
echo "$raw"
raw_rate=$(awk '{for (i = 1; i < NF; i++) if ($(i+1) == "msg/s") print $i}' <<<"$raw" | tail -1)

printf 'listenPort=%s\n' "$ns_port" > "$work/namesrv.conf"
cat > "$work/broker.conf" <<CONF
brokerClusterName=BenchCluster
brokerName=bench-a
brokerId=0
listenPort=$broker_port
namesrvAddr=127.0.0.1:$ns_port
brokerIP1=127.0.0.1
storePathRootDir=$work/store
flushDiskType=ASYNC_FLUSH
CONF
"$bin/qrocket-namesrv" -c "$work/namesrv.conf" >"$work/namesrv.log" 2>&1 & pids+=($!)
for _ in $(seq 50); do (exec 3<>"/dev/tcp/127.0.0.1/$ns_port") 2>/dev/null && break; sleep 0.1; done
"$bin/qrocket-broker" -c "$work/broker.conf" >"$work/broker.log" 2>&1 & pids+=($!)
for _ in $(seq 100); do (exec 3<>"/dev/tcp/127.0.0.1/$broker_port") 2>/dev/null && break; sleep 0.1; done

echo "== qrocket-bench producer -w $threads -s $size, ${seconds} s, against qrocket-broker 127.0.0.1:$broker_port"
# A short warm-up creates the topic (autoCreateTopicEnable) so the measured row starts on a route.
"$bin/qrocket-bench" producer -n "127.0.0.1:$ns_port" -w 4 -q 1000 --json >/dev/null 2>&1
summary=$("$bin/qrocket-bench" producer -n "127.0.0.1:$ns_port" -w "$threads" -s "$size" \
    --duration "$seconds" --interval "$seconds" | tail -1)
echo "$summary"
client_rate=$(sed -E 's/.*Send TPS: ([0-9]+).*/\1/' <<<"$summary")
if [ -n "$raw_rate" ] && [ "$raw_rate" -gt 0 ]; then
    echo "== qrocket-bench producer: $client_rate msg/s = $((100 * client_rate / raw_rate)) % of the raw-frame floor ($raw_rate msg/s)"
fi

if [ -n "${RMQ_DIST:-}" ]; then
    echo "== RocketMQ 4.9.7 benchmark Producer -w $threads -s $size, $((seconds + 12)) s, same broker"
    (cd "$RMQ_DIST" && ROCKETMQ_HOME="$RMQ_DIST" timeout "$((seconds + 12))" java -Xms1g -Xmx1g \
        $(cat jvm-common.opts) -cp "conf:lib/*" org.apache.rocketmq.example.benchmark.Producer \
        -n "127.0.0.1:$ns_port" -t BenchmarkTest -w "$threads" -s "$size" 2>/dev/null || true) |
        grep -E "Send TPS" | tail -2
fi
