#!/usr/bin/env bash
# End to end: three hosts in network namespaces joined to inswitch by veth pairs (net_af_xdp,
# or net_af_packet where AF_XDP is unavailable). Shows ARP + ping and a TCP transfer through the
# l2 pipeline, then checks the switch's counters with inswitch-ctl --json.
#   l2_hosts.sh BUILD_DIR
set -euo pipefail
build=$(cd "$1" && pwd)
source "$(dirname "$0")/lib.sh"
isw_need_root
trap isw_cleanup EXIT

isw_topo_create 3
isw_switch_start "$build" || isw_fail "inswitch did not start"
echo "inswitch runs on $ISW_DRIVER ports"

isw_wait_path 1 10.99.0.2 || isw_fail "h1 never reached h2"
# Flooding learns nothing: ARP requests are flooded, replies are unknown unicast (flooded too).
isw_ns 1 ping -c 3 -i 0.2 -W 2 10.99.0.2 || isw_fail "h1 cannot ping h2"
isw_ns 2 ping -c 3 -i 0.2 -W 2 10.99.0.3 || isw_fail "h2 cannot ping h3"

# Static entries: known unicast goes out of one port only.
isw_l2_static || isw_fail "l2 add"
isw_ctl l2 flood unknown off >/dev/null
isw_ns 1 ping -c 3 -i 0.2 -W 2 10.99.0.3 || isw_fail "h1 cannot ping h3 with static entries"

# A TCP transfer of 8 MiB, checked byte for byte.
secs=$(isw_tcp_transfer 1 3 8) || isw_fail "TCP transfer from h1 to h3 failed or was corrupted"
echo "TCP: 8 MiB from h1 to h3 in $secs s, identical"

# Counters, read the way scripts read them.
stats=$(isw_ctl --json stats show)
echo "$stats" | jq -e '.ok' >/dev/null || isw_fail "stats show failed: $stats"
rx0=$(echo "$stats" | jq '.ports[0].rx_pkts')
tx2=$(echo "$stats" | jq '.ports[2].tx_pkts')
l2=$(echo "$stats" | jq '[.pipelines[] | select(.pipeline == "l2") | .pkts][0]')
echo "port 0 rx $rx0, port 2 tx $tx2, l2 took $l2 packets"
[ "$rx0" -gt 5000 ] || isw_fail "port 0 received only $rx0 packets"
[ "$tx2" -gt 5000 ] || isw_fail "port 2 sent only $tx2 packets"
[ "$l2" -ge "$rx0" ] || isw_fail "l2 counted $l2 < rx $rx0"
# Where the worker's time went: the four shares of its loop add up to the whole (each is cut
# to two decimals, and the worker updates them while we read), the TCP transfer's frames cost
# transmit time, and the kernel says how much of the time the lcore thread ran.
w0=$(echo "$stats" | jq -c '.workers[0]')
echo "worker 0: $w0"
echo "$w0" | jq -e '(.rx_pct + .pipeline_pct + .tx_pct + .idle_pct) as $s | $s > 99 and $s <= 100.01' \
	>/dev/null || isw_fail "worker 0's time shares do not add up to 100 %: $w0"
echo "$w0" | jq -e '.tx_pct > 0 and .rx_pct > 0 and .pipeline_pct >= 0' >/dev/null ||
	isw_fail "worker 0 moved frames but shows no receive or transmit time: $w0"
echo "$w0" | jq -e '.cpu_pct > 0 and .waited_pct >= 0 and .cpu_pct + .waited_pct <= 101' >/dev/null ||
	isw_fail "worker 0's CPU share is missing or impossible: $w0"
# With unknown-unicast flooding off and every host known, nothing was dropped as no-dest
# except possibly IPv6 router solicitations (multicast, flooded): check the no-dest count is 0.
nodest=$(echo "$stats" | jq '[.drops[] | select(.reason == "no-dest") | .count] | add // 0')
[ "$nodest" -eq 0 ] || isw_fail "$nodest packets dropped as no-dest"
# The same counters through DPDK telemetry, as dpdk-telemetry.py reads them.
if command -v python3 >/dev/null && [ -x /usr/bin/dpdk-telemetry.py ]; then
	tel=$(echo /inswitch/pipelines | dpdk-telemetry.py -f "isw-$ISW_TAG" 2>/dev/null | grep -o '"l2": {[^}]*}')
	echo "telemetry: $tel"
	[ -n "$tel" ] || isw_fail "/inswitch/pipelines has no l2 entry"
else
	echo "telemetry: not checked (no python3 or dpdk-telemetry.py)"
fi
isw_ctl port list

# --idle-sleep-us: the same switch restarted with naps. Idle, it gives its CPU away (the kernel's
# count of its run time); woken by traffic, it still forwards every ping and the TCP transfer.
isw_switch_stop
isw_switch_start "$build" --idle-sleep-us 1000 || isw_fail "inswitch did not start with naps"
isw_l2_static || isw_fail "l2 add"
isw_ctl l2 flood unknown off >/dev/null
isw_wait_path 1 10.99.0.3 || isw_fail "h1 never reached h3 through a napping switch"
sleep 1
isw_ctl stats reset >/dev/null
sleep 2
w0=$(isw_ctl --json stats show | jq -c '.workers[0]')
echo "idle with naps, worker 0: $w0"
echo "$w0" | jq -e '.naps > 0 and .napped_pct > 30 and .cpu_pct < 60' >/dev/null ||
	isw_fail "an idle worker with --idle-sleep-us 1000 did not nap: $w0"
isw_ns 1 ping -c 20 -i 0.05 -W 2 10.99.0.3 >"$ISW_TMP/ping" ||
	isw_fail "a napping switch lost pings: $(tail -n 2 "$ISW_TMP/ping")"
tail -n 1 "$ISW_TMP/ping"
secs=$(isw_tcp_transfer 1 3 8) || isw_fail "TCP transfer through a napping switch failed"
echo "TCP with naps: 8 MiB from h1 to h3 in $secs s, identical"
echo "PASS"
