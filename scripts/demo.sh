#!/usr/bin/env bash
# The demo: three hosts in network namespaces joined to inswitch by veth pairs, inswitch started
# on them with its default configuration (AF_XDP, or AF_PACKET where AF_XDP is unavailable),
# traffic through it (ARP, ping, a TCP transfer), SyncAgtr allreduce jobs (int32 and float32)
# between the three hosts with their goodput and a check of the result, its counters through
# inswitch-ctl, and a clean teardown. Needs root (uses sudo otherwise).
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

# allreduce TYPE: h1, h2, h3 allreduce 4 Mi values of TYPE through session 1. Each worker
# registers itself over the control socket (switch IP 10.99.0.254, its own MAC and IP, port
# learned from its packets) and checks the sum at the end. Prints goodput, then "result
# verified" only if every worker's check passed.
allreduce() {
	local type=$1 i pids=()
	for i in 1 2 3; do
		isw_ns "$i" "$build/hosts/syncagtr/syncagtr-worker" --rank $((i - 1)) --workers 3 \
			--switch-ip 10.99.0.254 --ctl "$ISW_CTL_SOCK" --session 1 --count 4Mi \
			--type "$type" --check --json --quiet \
			>"$ISW_TMP/$type.$i.json" 2>"$ISW_TMP/$type.$i.err" &
		pids+=($!)
	done
	for i in 1 2 3; do
		wait "${pids[$((i - 1))]}" || {
			echo "SyncAgtr worker $i failed:" >&2
			cat "$ISW_TMP/$type.$i.err" >&2
			exit 1
		}
	done
	jq -s -r '"goodput (slowest worker): \(map(.goodput_gbps) | min * 100 | round / 100) " +
		"Gbit/s; retransmits: \(map(.retransmits) | add)" +
		(if .[0].max_err then "; largest error \(map(.max_err) | max) (within the bound)"
		 else "" end)' "$ISW_TMP/$type".*.json
	jq -s -e 'all(.verified == true)' "$ISW_TMP/$type".*.json >/dev/null || {
		echo "result NOT verified" >&2
		exit 1
	}
	echo "result verified (every worker's sum equals the sum of all three tensors)"
}

say "SyncAgtr: h1, h2, h3 allreduce 4 Mi int32 each through the switch (SwitchML protocol)"
isw_ctl pipeline enable syncagtr
allreduce int32
isw_ctl syncagtr session show

say "SyncAgtr again with float32 (SwitchML's exponent quantisation)"
isw_ctl syncagtr session reset 1
allreduce float32

say "counters (inswitch-ctl stats show)"
isw_ctl stats show

say "tearing down"
isw_switch_stop
tail -n 8 "$ISW_LOG" | grep -vE 'libbpf|libxdp' || true
echo "demo complete"
