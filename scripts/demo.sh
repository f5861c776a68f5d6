#!/usr/bin/env bash
# The demo: three hosts in network namespaces joined to inswitch by veth pairs, inswitch started
# on them with its default configuration (AF_XDP, or AF_PACKET where AF_XDP is unavailable),
# traffic through it (ARP, ping, a TCP transfer), its counters through inswitch-ctl, and a clean
# teardown. Needs root (uses sudo otherwise).
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "$(id -u)" -ne 0 ]; then
	exec sudo --preserve-env=PATH "$0" "$@"
fi
scripts/deps.sh
scripts/build.sh >/dev/null
build=$PWD/build

source tests/e2e/lib.sh
trap isw_cleanup EXIT

say() { printf '\n== %s\n' "$*"; }

say "creating hosts h1, h2, h3 (namespaces, veth pairs, 10.99.0.1-3)"
isw_topo_create 3
say "starting inswitch on the switch-side interfaces"
isw_switch_start "$build" || {
	cat "$ISW_LOG"
	exit 1
}
echo "inswitch runs on $ISW_DRIVER ports (log: kept until teardown)"
isw_ctl port list

say "h1 pings h2 and h3 (ARP is flooded; replies are unknown unicast, flooded too)"
isw_wait_path 1 10.99.0.2
isw_wait_path 1 10.99.0.3
isw_ns 1 ping -c 3 -i 0.2 10.99.0.2 | tail -2
isw_ns 1 ping -c 3 -i 0.2 10.99.0.3 | tail -2

say "static MAC entries, unknown-unicast flooding off"
for i in 1 2 3; do
	isw_ctl l2 add "02:00:00:00:00:0$i" $((i - 1))
done
isw_ctl l2 flood unknown off
isw_ctl l2 show

say "TCP: 64 MiB from h1 to h3 through the switch"
secs=$(isw_tcp_transfer 1 3 64) || {
	echo "TCP transfer failed or corrupted" >&2
	exit 1
}
awk -v s="$secs" 'BEGIN { printf "64 MiB received intact in %.2f s: %.0f Mbit/s\n", s, 64 * 8 * 1.048576 / s }'

say "counters (inswitch-ctl stats show)"
isw_ctl stats show

say "tearing down"
isw_switch_stop
tail -n 8 "$ISW_LOG" | grep -vE 'libbpf|libxdp' || true
echo "demo complete"
