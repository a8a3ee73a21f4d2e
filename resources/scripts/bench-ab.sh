# Sourced by bench-acl.sh and bench-tls.sh: the alternating off/on/off/on rows (this machine's
# speed drifts, so both modes see the same drift) and their summary. The caller defines
# row <off|on>, which sets $rate, and $threads, $size, $seconds.
alternate_rows() { # $1: what is switched, e.g. ACL
    echo "== qrocket-bench producer -w $threads -s $size, ASYNC_FLUSH, ${seconds} s per row"
    local off=() on=() mode
    for mode in off on off on; do
        row "$mode"
        if [ "$mode" = off ]; then off+=("$rate"); else on+=("$rate"); fi
    done
    local mean_off=$(((off[0] + off[1]) / 2)) mean_on=$(((on[0] + on[1]) / 2))
    echo "== $1 off ${mean_off} msgs/s (${off[*]}), $1 on ${mean_on} msgs/s (${on[*]})"
    if [ "$mean_off" -gt 0 ]; then
        echo "== $1 on sends at $((100 * mean_on / mean_off)) % of $1 off"
    fi
}
