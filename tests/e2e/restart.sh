#!/usr/bin/env bash
# End to end: restart time. inswitch on four AF_XDP ports (net_af_packet where AF_XDP is
# unavailable) while four SyncAgtr workers run a long job through it; the switch is SIGKILLed
# and started again 8 times, each time at once. Every start must answer on its control socket
# within RESTART_BOUND_S seconds (default 5), and say in 'version' how long its start took and
# where (exec, EAL, ports, pipelines and config). The workers only make load: the sessions do
# not survive a restart.
#   restart.sh BUILD_DIR
set -euo pipefail
build=$(cd "$1" && pwd)
source "$(dirname "$0")/lib.sh"
isw_need_root
trap isw_cleanup EXIT

bound=${RESTART_BOUND_S:-5}
isw_topo_create 4
isw_switch_start "$build" --pipeline syncagtr || isw_fail "inswitch did not start"
isw_l2_static || isw_fail "l2 add"
for r in 0 1 2 3; do
	ip netns exec "${ISW_TAG}h$((r + 1))" "$build/hosts/syncagtr/syncagtr-worker" --rank $r \
		--workers 4 --switch-ip 10.99.0.254 --ctl "$ISW_CTL_SOCK" --count 256Mi \
		--give-up-s 120 --quiet >/dev/null 2>&1 &
	ISW_STOP_PIDS+=($!)
done
# Until the job runs (its packets flow), at most 30 s.
for ((k = 0; k < 300; k++)); do
	p=$(isw_ctl --json syncagtr session show 1 2>/dev/null | jq '.counters[0].pkts // 0' | head -n 1) || true
	[ "${p:-0}" -gt 20000 ] && break
	sleep 0.1
done

worst=0
for round in 1 2 3 4 5 6 7 8; do
	kill -KILL "$ISW_PID"
	wait "$ISW_PID" 2>/dev/null || true
	ISW_PID=""
	t0=$(date +%s.%N)
	isw_switch_start "$build" --pipeline syncagtr || isw_fail "round $round: inswitch did not start"
	t1=$(date +%s.%N)
	took=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }')
	startup=$(isw_ctl --json version | jq -c '{startup_s, startup}')
	echo "round $round: answering $took s after the restart ($ISW_DRIVER); the switch says $startup"
	awk -v t="$took" -v b="$bound" 'BEGIN { exit !(t <= b) }' ||
		isw_fail "round $round: $took s to answer, the bound is $bound s"
	worst=$(awk -v a="$worst" -v b="$took" 'BEGIN { print (b > a ? b : a) }')
	sleep 1
done
echo "8 restarts under load: the slowest answered after $worst s (bound $bound s)"
echo "PASS"
