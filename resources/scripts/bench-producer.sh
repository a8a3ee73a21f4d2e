#!/usr/bin/env bash
# The README's producer benchmark: load generators driving one local QRocket broker daemon
# (ASYNC_FLUSH, 1 KiB, 64 requests in flight), each row beside the raw-frame floor of the same run:
#   floor    qrocket-bench-broker --broker: pre-encoded SEND_MESSAGE_V2 frames from one epoll
#            thread, no client library, over 64 connections with one request in flight each,
#            and over one connection with 64 in flight (as a client library sends: one
#            connection per broker);
#   -w 64    qrocket-bench producer, 64 threads calling sendSync (RocketMQ's benchmark model);
#   window   qrocket-bench producer -y true --window 64: 64 sends in flight from one thread;
#   java     with RMQ_DIST set (an Apache RocketMQ 4.9.7 dist, see the README), RocketMQ's own
#            benchmark Producer -w 64.
# The floors run first and last, and every ratio is to the mean of the two (the machine drifts).
# Each row counts the messages the broker stored in its window (brokerStatus msgPutTotalTodayNow,
# whoever sent them) and the CPU time the broker and the generator used in it (/proc/PID/stat):
# on a machine where both share two cores, a generator's CPU per message is what it takes away
# from the broker it measures.
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
# shellcheck source=bench-cluster.sh
. "$top/resources/scripts/bench-cluster.sh"
bench_setup bench-producer qrocket-bench qrocket-bench-broker qrocket-namesrv qrocket-broker \
    qrocket-admin
bench_start_namesrv
bench_start_broker bench-a BenchCluster
# BenchmarkTest is one of the broker's own topics (as in RocketMQ); a short run first, so no
# measured window pays for the first route lookup.
"$bin/qrocket-bench" producer -n "127.0.0.1:$ns_port" -w 4 -q 1000 --json >/dev/null 2>&1

puts() { bench_puts; }
# CPU ticks (user + system) of a process and its children (java runs under a shell).
ticks() {
    local total=0 p
    for p in "$@" $(pgrep -P "$1" 2>/dev/null || true); do
        total=$((total + $(awk '{ print $14 + $15 }' "/proc/$p/stat" 2>/dev/null || echo 0)))
    done
    echo "$total"
}
hz=$(getconf CLK_TCK)
# row NAME WARMUP_SECONDS COMMAND...: starts the generator, lets it warm up, then measures one
# window of $seconds; prints the row and sets $rate.
row() {
    local name=$1 warm=$2
    shift 2
    "$@" >"$work/$name.out" 2>&1 &
    local gen=$!
    sleep "$warm"
    local p0 b0 g0 p1 b1 g1
    p0=$(puts); b0=$(ticks "$broker_pid"); g0=$(ticks "$gen")
    sleep "$seconds"
    p1=$(puts); b1=$(ticks "$broker_pid"); g1=$(ticks "$gen")
    pkill -P "$gen" 2>/dev/null || true
    kill "$gen" 2>/dev/null || true
    wait "$gen" 2>/dev/null || true
    local n=$((p1 - p0))
    rate=$((n / seconds))
    awk -v name="$name" -v n="$n" -v s="$seconds" -v b=$((b1 - b0)) -v g=$((g1 - g0)) -v hz="$hz" \
        'BEGIN { if (n <= 0) { printf "%-34s no messages stored\n", name; exit }
                 printf "%-34s %7d msgs/s  CPU per msg: broker %5.1f us, generator %5.1f us\n",
                     name, n / s, b * 1e6 / hz / n, g * 1e6 / hz / n }'
}
floor() {
    row "floor: raw frames, $threads conn x 1" 3 "$bin/qrocket-bench-broker" --broker "$broker_port" \
        --seconds $((seconds + 30)) --no-floor --sizes "$size" --connections "$threads" --window 1
    floor_many+=("$rate")
    row "floor: raw frames, 1 conn x $threads" 3 "$bin/qrocket-bench-broker" --broker "$broker_port" \
        --seconds $((seconds + 30)) --no-floor --sizes "$size" --connections 1 --window "$threads"
    floor_one+=("$rate")
}
floor_many=()
floor_one=()
client_rows=()

echo "== $threads requests in flight, $size B, ASYNC_FLUSH, ${seconds} s per row, broker 127.0.0.1:$broker_port"
floor
row "qrocket-bench producer -w $threads" 3 "$bin/qrocket-bench" producer -n "127.0.0.1:$ns_port" \
    -w "$threads" -s "$size"
client_rows+=("qrocket-bench producer -w $threads=$rate")
row "qrocket-bench producer -y --window $threads" 3 "$bin/qrocket-bench" producer \
    -n "127.0.0.1:$ns_port" -y true --window "$threads" -s "$size"
client_rows+=("qrocket-bench producer -y true --window $threads=$rate")
if [ -n "${RMQ_DIST:-}" ]; then
    # The JVM compiles its hot paths in its first seconds: 12 s of warm-up.
    row "RocketMQ 4.9.7 Producer -w $threads" 12 bash -c "cd '$RMQ_DIST' && ROCKETMQ_HOME='$RMQ_DIST' \
        exec java -Xms1g -Xmx1g $(cat "$RMQ_DIST/jvm-common.opts") -cp 'conf:lib/*' \
        org.apache.rocketmq.example.benchmark.Producer -n 127.0.0.1:$ns_port -t BenchmarkTest \
        -w $threads -s $size"
    client_rows+=("RocketMQ 4.9.7 benchmark Producer -w $threads=$rate")
fi
floor
many=$(((floor_many[0] + floor_many[1]) / 2))
one=$(((floor_one[0] + floor_one[1]) / 2))
echo "== against the floors' means: $threads conn x 1 $many msgs/s (${floor_many[*]}), 1 conn x $threads $one msgs/s (${floor_one[*]})"
for r in "${client_rows[@]}"; do
    name=${r%=*}
    value=${r##*=}
    if [ "$many" -gt 0 ] && [ "$one" -gt 0 ]; then
        printf '%-52s %3d %% of %d x 1, %3d %% of 1 x %d\n' "$name" $((100 * value / many)) \
            "$threads" $((100 * value / one)) "$threads"
    fi
done
