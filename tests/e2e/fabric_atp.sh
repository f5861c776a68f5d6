#!/usr/bin/env bash
# End to end: ATP over two levels (docs/fabric.md) with three inswitch servers on one machine:
# leaves L1 (workers h1, h2, ranks 0 and 1) and L2 (h3, h4, ranks 2 and 3), each with app 1 whose
# PS port is its uplink to the root P; P's app 1 has the leaves' links as its worker ports and the
# parameter server h5 behind its port 2, all set up by inswitch-fabric from one topology file
# ('atp app fabric' gives each level its ranks). The hosts
# (atp-worker, atp-ps) are unchanged: the workers' JOIN, data and resends go up, the PS's
# ANNOUNCE and ACKs come down through both levels.
#   (a) 1 Mi int32 a worker, checked against the sum of all four: exact and verified; each
#       leaf completed aggregations and P completed them from the leaves' partial sums
#   (b) the same with 1% drop, 1% duplication and 1% reordering in both directions of every
#       port of all three switches, uplinks included (inswitch fault injection): exact
#   (c) a leaf killed mid-job (SIGKILL once the root has completed 2,000 seqs of a 16 Mi job)
#       and started again a second later with its app (inswitch-fabric apply --switch L2):
#       every worker finishes exact and verified or fails naming why (--give-up-s 5), none
#       with a wrong sum; then a new job through the restarted leaf: exact
#   fabric_atp.sh BUILD_DIR
set -euo pipefail
build=$(cd "$1" && pwd)
source "$(dirname "$0")/lib.sh"
isw_need_root
worker=$build/hosts/atp/atp-worker
ps=$build/hosts/atp/atp-ps
isw_need_tools "$worker" "$ps"
COMMON="--threads 2 --window 64 --pool 256"

trap isw_cleanup EXIT

ISW_NAMED_PIPELINE=atp
isw_topo_create 5
isw_fabric_up "$build"
echo "three switches on $ISW_DRIVER ports"

# The fabric from one topology file, set up by inswitch-fabric (docs/fabric.md)
fabric=$(dirname "$0")/../../control/inswitch-fabric
TOPO=$ISW_TMP/fabric.topo
isw_fabric_topo atp >"$TOPO"
# worker ids must be 0..N-1, each once: a mistake names its line
sed 's/^worker 1 L2 3 port 1$/worker 1 L2 1 port 1/' "$TOPO" >"$ISW_TMP/bad.topo"
! "$fabric" check "$ISW_TMP/bad.topo" 2>"$ISW_TMP/bad.err" ||
	isw_fail "inswitch-fabric accepted a worker id twice"
grep -q "line 13: worker 1 of job 1 is already behind L1 (line 10)" "$ISW_TMP/bad.err" ||
	isw_fail "inswitch-fabric did not name the line: $(cat "$ISW_TMP/bad.err")"
"$fabric" apply "$TOPO" || isw_fail "inswitch-fabric apply"
[ "$(isw_named_ctl L2 --json atp app show 1 | jq -r '.apps[0].fabric_ranks')" = 2,3 ] ||
	isw_fail "L2's app 1 does not complete at ranks 2,3"

# counter SWITCH NAME: app 1's counter NAME on that switch
counter() {
	isw_named_ctl "$1" --json atp app show 1 | jq ".counters[0].$2"
}

# start NAME [WORKER OPTIONS]: the PS on h5, workers 0..3 on h1..h4 (1 Mi int32 each, checked)
start() {
	local name=$1 r
	shift
	pids=()
	ip netns exec "${ISW_TAG}h5" "$ps" --app 1 --dev eth0 --workers 4 $COMMON --json --quiet \
		>"$ISW_TMP/$name.ps.json" 2>"$ISW_TMP/$name.ps.err" &
	pspid=$!
	ISW_STOP_PIDS+=($pspid)
	sleep 0.3
	for r in 0 1 2 3; do
		isw_ns $((r + 1)) "$worker" --id $r --workers 4 --app 1 --dev eth0 $COMMON \
			--count 1Mi --check --json --quiet "$@" \
			>"$ISW_TMP/$name.$r.json" 2>"$ISW_TMP/$name.$r.err" &
		pids[r]=$!
	done
}

stop_ps() {
	kill -TERM $pspid 2>/dev/null || true
	wait $pspid 2>/dev/null || true
}

# run NAME: start NAME, then every worker must exit 0 verified
run() {
	local name=$1 r
	start "$name"
	for r in 0 1 2 3; do
		wait "${pids[$r]}" ||
			isw_fail "($name) worker $r: $(tail -n 3 "$ISW_TMP/$name.$r.err")"
		[ "$(jq -r .verified "$ISW_TMP/$name.$r.json")" = true ] ||
			isw_fail "($name) worker $r did not verify its result"
	done
	stop_ps
}

run a
"$fabric" show "$TOPO"
[ "$(counter L1 completions)" -gt 0 ] && [ "$(counter L2 completions)" -gt 0 ] ||
	isw_fail "(a) a leaf completed no aggregation"
[ "$(counter P completions)" -gt 0 ] || isw_fail "(a) the root completed no aggregation"
# Where no frame was resent (a timer that fired on a loaded machine flushes an aggregation and
# the PS completes it), the tree is exact: each leaf completes each seq from its two workers,
# the root from the two leaves' sums.
if [ "$(($(counter L1 resends) + $(counter L2 resends) + $(counter P resends)))" = 0 ]; then
	pc=$(counter P completions)
	[ "$(counter P aggregated)" -eq $((2 * pc)) ] ||
		isw_fail "(a) the root aggregated $(counter P aggregated) partial sums for $pc seqs"
	for s in L1 L2; do
		[ "$(counter $s completions)" -eq "$pc" ] ||
			isw_fail "(a) $s completed $(counter $s completions) seqs, the root $pc"
		[ "$(counter $s aggregated)" -eq $((2 * pc)) ] ||
			isw_fail "(a) $s aggregated $(counter $s aggregated) frames for $pc seqs"
	done
	echo "(a) no resend: every seq completed on each leaf from its 2 workers and on the root" \
		"from the 2 leaves' sums ($pc seqs)"
fi
echo "(a) 1 Mi int32 over two levels of ATP: exact and verified on every worker"

isw_fabric_faults drop 1 dup 1 reorder 1 depth 8
run b
echo "(b) with 1% drop, duplication and reordering on every port, uplinks included: exact and" \
	"verified; root: $(isw_named_ctl P --json atp app show 1 |
		jq -c '.counters[0] | {completions, collisions, resends, flushes}')"
isw_fabric_faults off

# (c) L2 killed mid-job and started again with its app: every worker ends exact and verified,
# or fails saying why; none with a wrong sum
base=$(counter P completions)
start c --count 16Mi --give-up-s 5
for ((k = 0; k < 300; k++)); do
	[ "$(counter P completions)" -ge $((base + 2000)) ] && break
	sleep 0.05
done
killed_at=$(($(counter P completions) - base))
isw_fabric_restart_ranks c "$TOPO" "result WRONG|check failed: wrong"
ok=$ISW_OK
stop_ps
echo "(c) L2 killed after $killed_at of the root's completions and restarted: $ok of 4" \
	"workers finished exact and verified, $((4 - ok)) failed naming why; no wrong result"
run c2
echo "(c) a new job through the restarted leaf: exact and verified"

"$fabric" del "$TOPO" || isw_fail "inswitch-fabric del"
for s in L1 L2 P; do
	! isw_named_ctl $s atp app show 1 >/dev/null 2>&1 || isw_fail "del left app 1 on $s"
done
echo "PASS"
