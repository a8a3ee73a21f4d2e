#!/usr/bin/env bash
# Client soak: qrocket-bench producer (paced) and consumer against a running cluster for a while,
# printing both processes' RSS every SAMPLE seconds, then both summaries. A client that leaks
# shows a rising RSS column; a consumer that falls behind shows a rising B2C latency.
#   NAMESRV=127.0.0.1:9876 SECONDS_TOTAL=600 TPS=5000 ./resources/scripts/bench-soak.sh
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
bin=${BIN_DIR:-$top/build/bin}
ns=${NAMESRV:-127.0.0.1:9876}
total=${SECONDS_TOTAL:-600}
tps=${TPS:-5000}
sample=${SAMPLE:-30}
topic=${TOPIC:-SoakTopic}
work=$(mktemp -d /tmp/qrocket-soak.XXXXXX)
trap 'kill $cons $prod 2>/dev/null || true; rm -rf "$work"' EXIT
"$bin/qrocket-bench" consumer -n "$ns" -t "$topic" -g soak_consumer --duration "$((total + 5))" \
    --interval "$sample" >"$work/consumer.txt" 2>&1 & cons=$!
sleep 2
"$bin/qrocket-bench" producer -n "$ns" -t "$topic" -w 8 -s 1024 --tps "$tps" --duration "$total" \
    --interval "$sample" >"$work/producer.txt" 2>&1 & prod=$!
rss() { awk '/VmRSS/ {print $2}' "/proc/$1/status" 2>/dev/null || echo 0; }
echo "seconds  producer-RSS-KiB  consumer-RSS-KiB"
for ((t = 0; t <= total; t += sample)); do
    printf '%7d  %16s  %16s\n' "$t" "$(rss $prod)" "$(rss $cons)"
    sleep "$sample"
done
wait $prod || true
wait $cons || true
echo "== producer"; tail -3 "$work/producer.txt"
echo "== consumer"; tail -3 "$work/consumer.txt"
