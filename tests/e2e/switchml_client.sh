#!/usr/bin/env bash
# End to end: SwitchML-style workers that never retransmit, started the way SwitchML's are,
# through hosts/syncagtr/switchml-controller and inswitch (net_af_xdp, or net_af_packet).
#
# The shim runs on host h1 with SwitchML's own ports.yaml (front-panel F/0 = inswitch port F-1)
# and registers each worker with the port of its MAC at UdpSession. Three workers
# (tests/e2e/switchml_client.py: SwitchML's gRPC start-up, then a window of 16 packets of 64
# int32 values, packet p + 16 on the result of packet p, 48 packets, no retransmission) must get
# every result, the first window's included, each exact; and the switch must count no
# retransmission and no drop of any reason, from the first packet on.
#   switchml_client.sh BUILD_DIR
set -euo pipefail
build=$(cd "$1" && pwd)
src=$(cd "$(dirname "$0")/../.." && pwd)
source "$(dirname "$0")/lib.sh"
isw_need_root

trap isw_cleanup EXIT
isw_python "$build" grpc yaml

N=3
SWITCH_IP=10.99.0.254
isw_topo_create $N
isw_switch_start "$build" --pipeline syncagtr || isw_fail "inswitch did not start"
echo "inswitch runs on $ISW_DRIVER ports"
isw_wait_path 2 10.99.0.1 || isw_fail "h2 never reached h1"
isw_wait_path 3 10.99.0.1 || isw_fail "h3 never reached h1"

# SwitchML's ports.yaml: the port each worker's NIC is cabled to.
{
	echo "ports:"
	for ((i = 1; i <= N; i++)); do
		printf '    %d/0 : {speed: "100G", fec: "none", autoneg: "disable", mac: "02:00:00:00:00:%02x"}\n' \
			"$i" "$i"
	done
} >"$ISW_TMP/ports.yaml"

# ip netns exec execs the shim: $! is its pid, for the cleanup's kill.
ip netns exec "${ISW_TAG}h1" "$py" "$src/hosts/syncagtr/switchml-controller" \
	--listen 10.99.0.1:50099 --ctl "$ISW_CTL_SOCK" --switch-ip $SWITCH_IP --slots 64 \
	${SHIM_PORTS_ARGS:---ports "$ISW_TMP/ports.yaml"} >/dev/null 2>"$ISW_TMP/shim.log" &
shim_pid=$!
ISW_STOP_PIDS+=($shim_pid)
for ((i = 0; i < 100; i++)); do
	kill -0 "$shim_pid" 2>/dev/null || isw_fail "switchml-controller exited: $(cat "$ISW_TMP/shim.log")"
	grep -q "listening on" "$ISW_TMP/shim.log" && break
	sleep 0.1
done
grep -q "listening on" "$ISW_TMP/shim.log" || isw_fail "switchml-controller did not start"

pids=()
for ((r = 0; r < N; r++)); do
	isw_ns $((r + 1)) "$py" "$src/tests/e2e/switchml_client.py" 10.99.0.1:50099 $r $N \
		$SWITCH_IP >"$ISW_TMP/c$r.json" 2>"$ISW_TMP/c$r.err" &
	pids+=($!)
done
rc=0
for ((r = 0; r < N; r++)); do
	wait "${pids[$r]}" || rc=1
	if [ -s "$ISW_TMP/c$r.json" ]; then
		echo "rank $r: $(jq -c '{results, missing, first_window_missing, wrong, strays}' "$ISW_TMP/c$r.json")"
	else
		echo "rank $r: no result line; stderr:" >&2
		cat "$ISW_TMP/c$r.err" >&2
	fi
done
isw_ctl syncagtr session show
[ "$rc" = 0 ] || isw_fail "a client that never retransmits missed results (shim log: $(tail -n 5 "$ISW_TMP/shim.log"))"

c=$(isw_ctl --json syncagtr session show 1 | jq -c '.counters[0]')
drops=$(isw_ctl --json stats show | jq -c '[.drops[] | {(.pipeline + "/" + .reason): .count}] | add // {}')
echo "switch: $(echo "$c" | jq -c '{pkts, completions, retransmits}'); drops $drops"
[ "$(echo "$c" | jq .completions)" = 48 ] || isw_fail "the switch completed $(echo "$c" | jq .completions) rounds, want 48"
[ "$(echo "$c" | jq .retransmits)" = 0 ] || isw_fail "the switch counted retransmissions"
[ "$drops" = "{}" ] || isw_fail "the switch dropped packets: $drops"
echo "PASS"
