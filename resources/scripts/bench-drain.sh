#!/usr/bin/env bash
# Push consumer drain (issue 31): one name server and broker daemon (ASYNC_FLUSH, store in a
# temporary folder), a backlog of MESSAGES x SIZE bytes written once by `qrocket-bench producer`,
# then drained ROUNDS times by `qrocket-bench consumer --floor true` (its own process, 20 consume
# threads, a fresh group from the first offset each run): every row prints the raw pull loop's
# floor of the same run, the consumer's rate and its CPU (user, system) and context switches.
# With OLD_BIN set, each round runs OLD_BIN's qrocket-bench, then NEW_BIN's (default: this
# build), so the machine's drift hits both alike.
#
#   ./resources/scripts/bench-drain.sh                       # ROUNDS=3 MESSAGES=500000 SIZE=1024
#   OLD_BIN=/tmp/base/bin ./resources/scripts/bench-drain.sh
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
bin=${BIN_DIR:-$top/build/bin}
new_bin=${NEW_BIN:-$bin}
old_bin=${OLD_BIN:-}
rounds=${ROUNDS:-3}
messages=${MESSAGES:-500000}
size=${SIZE:-1024}
ns_port=${NAMESRV_PORT:-29886}
broker_port=${BROKER_PORT:-20621}
# shellcheck source=bench-cluster.sh
. "$top/resources/scripts/bench-cluster.sh"
bench_setup bench-drain qrocket-namesrv qrocket-broker qrocket-admin
bench_start_namesrv
bench_start_broker drain-a DrainCluster
"$new_bin/qrocket-bench" producer -n "127.0.0.1:$ns_port" -t DrainTest -s "$size" -w 32 \
    -q "$messages" --interval 100 | grep Complete | sed 's/Max RT.*//'

run() { # label, bin dir, round
    local out
    out=$( { /usr/bin/time -f "cpu %U %S vcs %w" "$2/qrocket-bench" consumer \
        -n "127.0.0.1:$ns_port" -t DrainTest -g "drain_$1_$3" --from first \
        --quantity "$messages" --interval 100 --floor true; } 2>&1 )
    printf '%-4s round %d  floor %8s msg/s  consumer %8s msg/s  (%s)\n' "$1" "$3" \
        "$(echo "$out" | grep -m1 '^Floor' | sed 's/.*TPS: //')" \
        "$(echo "$out" | grep Complete | sed 's/.*Consume Total: [0-9]* TPS: \([0-9]*\).*/\1/')" \
        "$(echo "$out" | grep '^cpu')"
}
for r in $(seq "$rounds"); do
    [ -n "$old_bin" ] && run old "$old_bin" "$r"
    run new "$new_bin" "$r"
done
