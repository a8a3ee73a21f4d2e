#!/usr/bin/env bash
# Builds QRocket's programs (installing missing packages first): the daemons and what the README
# runs against them next (examples, qrocket-admin, qrocket-bench, qrocket-console; not the tests),
# then starts a local cluster on defaults:
# one name server on 127.0.0.1:9876 and one broker on :10911 with its store under ./run/store.
# Runs in the foreground; Ctrl-C (or SIGTERM) stops both cleanly. Logs go to ./run/logs.
#   NAMESRV_PORT / BROKER_PORT / RUN_DIR override the defaults.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
"$top/resources/scripts/install-deps.sh"
TARGETS="qrocket-programs" "$top/resources/scripts/build.sh"

bin=${BUILD_DIR:-$top/build}/bin
run=${RUN_DIR:-$top/run}
namesrv_port=${NAMESRV_PORT:-9876}
broker_port=${BROKER_PORT:-10911}
mkdir -p "$run/logs" "$run/store" "$run/namesrv"

pids=()
stop() {
    trap - INT TERM EXIT
    for pid in "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
    for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
    echo "run-cluster: stopped"
}
trap stop INT TERM EXIT

cat > "$run/namesrv.conf" <<CONF
listenPort=$namesrv_port
kvConfigPath=$run/namesrv/kvConfig.json
CONF
"$bin/qrocket-namesrv" -c "$run/namesrv.conf" >"$run/logs/namesrv.log" 2>&1 &
pids+=($!)
echo "run-cluster: qrocket-namesrv on 127.0.0.1:$namesrv_port (log: $run/logs/namesrv.log)"
# The broker registers at start: give the name server (bounded) time to listen first.
for _ in $(seq 1 100); do
    (exec 3<>"/dev/tcp/127.0.0.1/$namesrv_port") 2>/dev/null && break
    sleep 0.1
done

cat > "$run/broker.conf" <<CONF
brokerClusterName=DefaultCluster
brokerName=broker-a
brokerId=0
listenPort=$broker_port
namesrvAddr=127.0.0.1:$namesrv_port
brokerIP1=127.0.0.1
storePathRootDir=$run/store
CONF
"$bin/qrocket-broker" -c "$run/broker.conf" >"$run/logs/broker.log" 2>&1 &
pids+=($!)
echo "run-cluster: qrocket-broker broker-a on 127.0.0.1:$broker_port, store $run/store (log: $run/logs/broker.log)"
echo "run-cluster: Ctrl-C stops the cluster"
# Exit (and stop the other daemon) as soon as either one exits.
wait -n "${pids[@]}"
echo "run-cluster: a daemon exited; see $run/logs" >&2
