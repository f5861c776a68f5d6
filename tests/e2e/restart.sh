#!/usr/bin/env bash
# End to end: restart time. inswitch on five AF_XDP ports (net_af_packet where AF_XDP is
# unavailable) while an ATP job runs through it (four workers, one PS, 2 threads each, a tensor
# that outlasts the test): the switch is SIGKILLed and started again 8 times, each time
# at once, and its app added again, so the job's frames (resends, while the switch is away)
# keep arriving through every restart, as in a restart mid-job: a new switch knows the app's job
# as 0, drops the job's frames (atp-job) until a stalled worker's JOIN brings the PS's ANNOUNCE
# of the job, which names it there again (docs/atp.md, Job lifetime). Every start must answer on its
# control socket within RESTART_BOUND_S seconds (default 5), and say in 'version' how long its
# start took and where (exec, EAL, ports, pipelines and config). Under this load the ports
# phase (AF_XDP sockets and XDP programs, CPU work shared with the busy hosts) is the one that
# grows (docs/ctl.md, version).
#   restart.sh BUILD_DIR
set -euo pipefail
build=$(cd "$1" && pwd)
source "$(dirname "$0")/lib.sh"
isw_need_root
trap isw_cleanup EXIT

bound=${RESTART_BOUND_S:-5}
isw_need_tools "$build/hosts/atp/atp-worker" "$build/hosts/atp/atp-ps"
app_add() { isw_ctl atp app add 1 workers 4 ports 0,1,2,3 ps 4 >/dev/null; }
# pkts: the app's frames so far on this switch.
pkts() { isw_ctl --json atp app show 1 | jq '.counters[0].pkts'; }

isw_topo_create 5
isw_switch_start "$build" --pipeline atp || isw_fail "inswitch did not start"
app_add || isw_fail "atp app add"
sleep 2 # attaching XDP resets the links
ip netns exec "${ISW_TAG}h5" "$build/hosts/atp/atp-ps" --app 1 --dev eth0 --workers 4 \
	--threads 2 --window 64 --quiet >/dev/null 2>&1 &
ISW_STOP_PIDS+=($!)
sleep 0.3
for r in 0 1 2 3; do
	ip netns exec "${ISW_TAG}h$((r + 1))" "$build/hosts/atp/atp-worker" --id $r --workers 4 \
		--app 1 --dev eth0 --threads 2 --window 64 --count 64Mi --give-up-s 300 --quiet \
		>/dev/null 2>&1 &
	ISW_STOP_PIDS+=($!)
done
# Until the job runs (its frames flow), at most 30 s.
for ((k = 0; k < 300; k++)); do
	[ "$(pkts)" -gt 20000 ] && break
	sleep 0.1
done
[ "$(pkts)" -gt 20000 ] || isw_fail "the ATP job does not run"

worst=0
for round in 1 2 3 4 5 6 7 8; do
	kill -KILL "$ISW_PID"
	wait "$ISW_PID" 2>/dev/null || true
	ISW_PID=""
	t0=$(date +%s.%N)
	isw_switch_start "$build" --pipeline atp || isw_fail "round $round: inswitch did not start"
	t1=$(date +%s.%N)
	took=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }')
	startup=$(isw_ctl --json version | jq -c '{startup_s, startup}')
	echo "round $round: answering $took s after the restart ($ISW_DRIVER); the switch says $startup"
	awk -v t="$took" -v b="$bound" 'BEGIN { exit !(t <= b) }' ||
		isw_fail "round $round: $took s to answer, the bound is $bound s"
	worst=$(awk -v a="$worst" -v b="$took" 'BEGIN { print (b > a ? b : a) }')
	# The job goes on through the new switch: the PS names its job there again, and its
	# frames arrive again.
	app_add || isw_fail "round $round: atp app add"
	sleep 1.5
	[ "$(pkts)" -gt 0 ] || isw_fail "round $round: no frame of the job reached the new switch"
	[ "$(isw_ctl --json atp app show 1 | jq '.apps[0].job')" != 0 ] ||
		isw_fail "round $round: the job was not named on the new switch"
done
echo "8 restarts under load: the slowest answered after $worst s (bound $bound s)"
echo "PASS"
