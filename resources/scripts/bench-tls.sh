#!/usr/bin/env bash
# What TLS costs on the send path: qrocket-bench producer (64 sync senders by default, 1 KiB,
# ASYNC_FLUSH) against one name server and one broker daemon, both with tls.server.mode=permissive
# (plain and TLS clients on the same port), once plain and once with --tls (every connection of
# the client, to the name server and the broker, is TLS 1.2+ through Qt's OpenSSL backend),
# alternating off/on/off/on in one run because this machine's speed drifts. Each row counts what
# the broker stored in its window (brokerStatus msgPutTotalTodayNow) and prints the mean of each
# mode and their ratio. A throwaway CA and a server certificate for 127.0.0.1 are made with the
# openssl CLI.
#
#   ./resources/scripts/bench-tls.sh              # SECONDS_PER_ROW=15 THREADS=64 SIZE=1024
#
# Starts its own name server and broker on spare ports in a temporary folder and stops them at
# the end. Builds nothing: run it after the build.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
bin=${BIN_DIR:-$top/build/bin}
seconds=${SECONDS_PER_ROW:-15}
threads=${THREADS:-64}
size=${SIZE:-1024}
ns_port=${NAMESRV_PORT:-29966}
broker_port=${BROKER_PORT:-20611}
command -v openssl >/dev/null || { echo "bench-tls: openssl is not installed" >&2; exit 1; }
# shellcheck source=bench-cluster.sh
. "$top/resources/scripts/bench-cluster.sh"
bench_setup bench-tls qrocket-bench qrocket-namesrv qrocket-broker qrocket-admin

(
    cd "$work"
    key=(-newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes)
    openssl req -x509 "${key[@]}" -keyout ca.key -out ca.pem -days 2 -subj /CN=bench-ca
    openssl req "${key[@]}" -keyout server.key -out server.csr -subj /CN=localhost
    printf 'subjectAltName=IP:127.0.0.1,DNS:localhost\n' > server.ext
    openssl x509 -req -in server.csr -CA ca.pem -CAkey ca.key -CAcreateserial -out server.pem \
        -days 2 -extfile server.ext
) >"$work/openssl.log" 2>&1 || { cat "$work/openssl.log" >&2; exit 1; }
tls="tls.server.mode=permissive
tls.config.file=
tls.server.certPath=$work/server.pem
tls.server.keyPath=$work/server.key"

bench_start_namesrv "$tls"
bench_start_broker bench-tls BenchCluster "$tls"
puts() { bench_puts; }
row() { # $1: off|on
    local flags=()
    if [ "$1" = on ]; then flags=(--tls --tlsTrustCert "$work/ca.pem"); fi
    "$bin/qrocket-bench" producer -n "127.0.0.1:$ns_port" -w "$threads" -s "$size" "${flags[@]}" \
        >"$work/bench-$1.out" 2>&1 &
    local gen=$!
    measure_row "TLS $1" "$broker_pid" "$gen"
    kill "$gen" 2>/dev/null || true
    wait "$gen" 2>/dev/null || true
    sleep 1
}

# shellcheck source=bench-ab.sh
. "$top/resources/scripts/bench-ab.sh"
alternate_rows TLS
echo "== broker TLS counters: $("$bin/qrocket-admin" brokerStatus -n "127.0.0.1:$ns_port" \
    -b "127.0.0.1:$broker_port" 2>/dev/null | awk '$1 ~ /^remoting(TlsConnections|ClosedTlsFailed)$/ { printf "%s=%s ", $1, $3 }')"
