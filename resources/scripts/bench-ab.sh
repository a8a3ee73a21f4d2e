# Sourced by bench-acl.sh and bench-tls.sh: the alternating off/on/off/on rows (this machine's
# speed drifts, so both modes see the same drift) and their summary. The caller defines
# row <off|on>, which starts a load and calls measure_row, and puts (the broker's stored-message
# counter), $threads, $size, $seconds.
#
# Besides the rate, each row prints the CPU time the broker and the load generator spent per
# stored message (from /proc/<pid>/stat): on this 2-core machine both share the cores, so the
# rate alone mixes what the broker pays with what the client pays.

cpu_ticks() { # $1: pid -> utime + stime of the whole process, in clock ticks
    awk '{ print $14 + $15 }' "/proc/$1/stat" 2>/dev/null || echo 0
}

measure_row() { # $1: label (e.g. "ACL on"), $2: broker pid, $3: load generator pid
    local hz b0 b1 g0 g1 p0 p1
    hz=$(getconf CLK_TCK)
    sleep 3 # the generator's warm-up (route, connections)
    p0=$(puts); b0=$(cpu_ticks "$2"); g0=$(cpu_ticks "$3")
    sleep "$seconds"
    p1=$(puts); b1=$(cpu_ticks "$2"); g1=$(cpu_ticks "$3")
    rate=$(((p1 - p0) / seconds))
    local stored=$((p1 - p0 > 0 ? p1 - p0 : 1))
    broker_us=$(((b1 - b0) * 1000000 / hz / stored))
    client_us=$(((g1 - g0) * 1000000 / hz / stored))
    printf '%-8s %8d msgs/s   broker %3d us/msg   client %3d us/msg (CPU time)\n' \
        "$1" "$rate" "$broker_us" "$client_us"
}

alternate_rows() { # $1: what is switched, e.g. ACL
    echo "== qrocket-bench producer -w $threads -s $size, ASYNC_FLUSH, ${seconds} s per row"
    local off=() on=() boff=() bon=() coff=() con=() mode
    for mode in off on off on; do
        row "$mode"
        if [ "$mode" = off ]; then
            off+=("$rate"); boff+=("$broker_us"); coff+=("$client_us")
        else
            on+=("$rate"); bon+=("$broker_us"); con+=("$client_us")
        fi
    done
    local mean_off=$(((off[0] + off[1]) / 2)) mean_on=$(((on[0] + on[1]) / 2))
    echo "== $1 off ${mean_off} msgs/s (${off[*]}), $1 on ${mean_on} msgs/s (${on[*]})"
    if [ "$mean_off" -gt 0 ]; then
        echo "== $1 on sends at $((100 * mean_on / mean_off)) % of $1 off"
    fi
    echo "== CPU per stored message: broker $(((boff[0] + boff[1]) / 2)) us off," \
        "$(((bon[0] + bon[1]) / 2)) us on; client $(((coff[0] + coff[1]) / 2)) us off," \
        "$(((con[0] + con[1]) / 2)) us on"
}
