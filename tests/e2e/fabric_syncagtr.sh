#!/usr/bin/env bash
# End to end: SyncAgtr over two levels (docs/fabric.md) with three inswitch servers on one
# machine: leaves L1 (hosts h1, h2) and L2 (h3, h4), each with session 1 for its two workers and
# an uplink to the parent P over a memif (shared memory between the two switch processes, as
# bench/fabric.sh links them; fabric_atp.sh and fabric_ask.sh link theirs with veth pairs: both
# kinds are tested); P's session 1 has the two leaves as its workers.
# Every switch runs with --idle-sleep-us, so three of them and four workers share two CPUs.
# The workers (syncagtr-worker, registered by hand, no --ctl) are unchanged: each talks to its
# leaf as to a single switch and checks its result against the sum of all four ranks' tensors.
#   (a) 1 Mi int32: exact and verified; the counters show the tree: every round completes
#       once on each leaf and goes up once (up_sent = completions), the parent completes it
#       with exactly one contribution per leaf (contributions = 2 x completions), and each
#       leaf takes each of the parent's results once (up_results = the parent's completions)
#   (b) 1 Mi float32: within the quantisation bound for four workers, verified
#   (c) 1% drop, 1% duplication and 1% reordering in both directions of every port of all
#       three switches, the uplinks included (inswitch fault injection): 1 Mi int32, exact
#       and verified; the parent still counts exactly one contribution per leaf per round
#   (d) a leaf killed mid-job (SIGKILL once the parent has completed 2,000 rounds of a 16 Mi
#       int32 job) and started again with the same
#       commands a second later, its slots empty: every rank either finishes exact and
#       verified or fails naming why (--give-up-s 5); none exits 0 with a result it could not
#       verify, none reports a wrong sum. Then, every session reset, a new job through the
#       restarted leaf: exact
#   (e) SwitchML's client model (tests/e2e/switchml_client.py: SwitchML's gRPC start-up, a
#       window of 16 packets, no retransmission at all) on the four hosts through the fabric,
#       started by switchml-controller --fabric (on h1; the other hosts reach it over the
#       fabric's l2 path): every result arrives, the first window's included, and is exact;
#       the parent counts no retransmission (skipped without python3-grpcio)
#   fabric_syncagtr.sh BUILD_DIR
set -euo pipefail
build=$(cd "$1" && pwd)
source "$(dirname "$0")/lib.sh"
isw_need_root
worker=$build/hosts/syncagtr/syncagtr-worker
isw_need_tools "$worker"

trap isw_cleanup EXIT
fab_ctl() { isw_named_ctl "$@"; }

isw_topo_create 4
ISW_FABRIC_LINK=memif # for the restart in (d) too
isw_fabric_up "$build"
echo "three switches on $ISW_DRIVER ports, memif links between them"

# The fabric, from one topology file (docs/fabric.md), set up by inswitch-fabric
fabric=$(dirname "$0")/../../control/inswitch-fabric
TOPO=$ISW_TMP/fabric.topo
isw_fabric_topo syncagtr >"$TOPO"
"$fabric" check "$TOPO" || isw_fail "inswitch-fabric check refused the topology"

# A mistake names its line, and nothing is configured: a leaf with no link to its root.
sed 's/^link L2:2 P:1$/# no link/' "$TOPO" >"$ISW_TMP/bad.topo"
if "$fabric" apply "$ISW_TMP/bad.topo" 2>"$ISW_TMP/bad.err"; then
	isw_fail "inswitch-fabric applied a topology with a leaf its root cannot reach"
fi
grep -q "line 11: no link joins leaf L2 to root P" "$ISW_TMP/bad.err" ||
	isw_fail "inswitch-fabric did not name the line: $(cat "$ISW_TMP/bad.err")"
# A refusal part-way is rolled back: L2 already has a session 1 of another shape, so the
# apply fails at L2's line after P's and L1's sessions were made; they are deleted again.
fab_ctl L2 syncagtr session add 1 ip 10.99.0.254 workers 3 >/dev/null
if "$fabric" apply "$TOPO" 2>"$ISW_TMP/rb.err"; then
	isw_fail "inswitch-fabric applied over a session of another shape"
fi
grep -q "line 11: switch L2 refused 'syncagtr session add 1" "$ISW_TMP/rb.err" ||
	isw_fail "the refusal does not name L2's line: $(cat "$ISW_TMP/rb.err")"
for s in P L1; do
	! fab_ctl $s syncagtr session show 1 >/dev/null 2>&1 ||
		isw_fail "the failed apply left session 1 on $s"
done
fab_ctl L2 syncagtr session del 1 >/dev/null
echo "inswitch-fabric: a mistake names its line; a refusal part-way is rolled back"

"$fabric" apply "$TOPO" || isw_fail "inswitch-fabric apply"

# counter SWITCH NAME: session 1's counter NAME on that switch since the case began (the
# counters run from the session's creation: fab_reset takes a baseline)
declare -A BASE=()
counter() {
	local v
	v=$(fab_ctl "$1" --json syncagtr session show 1 | jq ".counters[0].$2")
	echo $((v - ${BASE[$1.$2]:-0}))
}

# run NAME [worker options...]: ranks 0..3 on h1..h4, each checked; fails unless all exit 0
# with their result verified
run() {
	local name=$1 r pids=()
	shift
	for r in 0 1 2 3; do
		isw_ns $((r + 1)) "$worker" --rank $r --workers 4 --switch-ip 10.99.0.254 \
			--count 1Mi --threads 4 --window 128 --elems 256 --check --json --quiet "$@" \
			>"$ISW_TMP/$name.$r.json" 2>"$ISW_TMP/$name.$r.err" &
		pids[r]=$!
	done
	for r in 0 1 2 3; do
		wait "${pids[$r]}" || isw_fail "($name) rank $r: $(tail -n 3 "$ISW_TMP/$name.$r.err")"
		[ "$(jq -r .verified "$ISW_TMP/$name.$r.json")" = true ] ||
			isw_fail "($name) rank $r did not verify its result"
	done
}

# the tree's counters since the last reset: every round once per leaf, once per leaf at P
tree_counts() {
	local what=$1 pc pk l c s u
	pc=$(counter P completions)
	pk=$(counter P contributions)
	# at least 1 Mi values in 256-value packets (and the barrier's and checks' rounds)
	[ "$pc" -ge $((1048576 / 256)) ] ||
		isw_fail "($what) the parent completed $pc rounds, fewer than the job's 4096 packets"
	[ "$pk" -eq $((2 * pc)) ] ||
		isw_fail "($what) the parent counted $pk contributions for $pc rounds of 2 leaves"
	for l in 1 2; do
		c=$(counter L$l completions)
		s=$(counter L$l up_sent)
		u=$(counter L$l up_results)
		[ "$c" -eq "$s" ] || isw_fail "($what) L$l completed $c rounds but sent $s up"
		[ "$s" -eq "$pc" ] || isw_fail "($what) L$l sent $s rounds up, the parent completed $pc"
		[ "$u" -eq "$pc" ] ||
			isw_fail "($what) L$l took $u of the parent's results, the parent completed $pc"
	done
	echo "($what) parent: $pc rounds, $pk contributions; leaves: $(counter L1 up_resent)" \
		"and $(counter L2 up_resent) partial sums resent, $(counter L1 drop_up_dup) and" \
		"$(counter L2 drop_up_dup) duplicate results dropped"
}

fab_reset() {
	local s k
	for s in L1 L2 P; do
		fab_ctl $s syncagtr session reset 1 keep-workers >/dev/null || isw_fail "$s: reset"
		for k in completions contributions retransmits up_sent up_resent up_results \
			drop_up_dup drop_up_stale; do
			BASE[$s.$k]=$(fab_ctl $s --json syncagtr session show 1 | jq ".counters[0].$k")
		done
	done
}

run a --type int32
tree_counts a
echo "(a) 1 Mi int32 over two levels: exact and verified on every rank"
# show: the tree with every switch's counters side by side, the same as each switch's own
"$fabric" show "$TOPO"
"$fabric" show "$TOPO" 1 --json | jq -e --argjson pc "$(counter P completions)" \
	'.jobs[0].switches | length == 3 and
	(map(select(.role == "root"))[0] | .completions == $pc and .contributions == 2 * $pc) and
	(map(select(.role == "leaf")) | all(.up_sent == $pc and .up_results == $pc))' >/dev/null ||
	isw_fail "inswitch-fabric show does not give the tree's counters"

fab_reset
run b --type float32
tree_counts b
echo "(b) 1 Mi float32 over two levels: within the bound and verified on every rank"

fab_reset
isw_fabric_faults drop 1 dup 1 reorder 1 depth 8
run c --type int32 --timeout-ms 10 --guard-ms 10
pc=$(counter P completions)
pk=$(counter P contributions)
[ "$pk" -eq $((2 * pc)) ] ||
	isw_fail "(c) the parent counted $pk contributions for $pc rounds of 2 leaves"
echo "(c) 1% drop, duplication and reordering on every port, uplinks included: exact and" \
	"verified; parent: $pc rounds, $pk contributions, $(counter P retransmits) retransmits;" \
	"leaves resent $(counter L1 up_resent) + $(counter L2 up_resent) partial sums, dropped" \
	"$(counter L1 drop_up_dup) + $(counter L2 drop_up_dup) duplicate and" \
	"$(counter L1 drop_up_stale) + $(counter L2 drop_up_stale) stale results"

# (d) L2 killed mid-job and started again
isw_fabric_faults off
fab_reset
pids=()
for r in 0 1 2 3; do
	isw_ns $((r + 1)) "$worker" --rank $r --workers 4 --switch-ip 10.99.0.254 --count 16Mi \
		--threads 4 --window 128 --elems 256 --check --json --quiet --give-up-s 5 \
		>"$ISW_TMP/d.$r.json" 2>"$ISW_TMP/d.$r.err" &
	pids[r]=$!
done
# mid-job: once the parent has completed 2,000 of the job's 65,536+ rounds
for ((k = 0; k < 200; k++)); do
	[ "$(counter P completions)" -ge 2000 ] && break
	sleep 0.05
done
killed_at=$(counter P completions)
isw_fabric_restart_ranks d "$TOPO" "MISMATCH"
ok=$ISW_OK
echo "(d) L2 killed after $killed_at of the parent's rounds and restarted: $ok of 4 ranks" \
	"finished exact and verified, $((4 - ok)) failed naming why; no wrong result"
fab_reset
run d2 --type int32
echo "(d) a new job through the restarted leaf: exact and verified"

# (e) SwitchML's client model through the fabric
if /usr/bin/python3 -c "import grpc" 2>/dev/null; then
	src=$(cd "$(dirname "$0")/../.." && pwd)
	for h in 2 3 4; do
		isw_wait_path $h 10.99.0.1 || isw_fail "(e) h$h never reached h1 over the fabric"
	done
	fab_reset
	ip netns exec "${ISW_TAG}h1" /usr/bin/python3 "$src/hosts/syncagtr/switchml-controller" \
		--listen 10.99.0.1:50099 --fabric "$TOPO" --job 1 >/dev/null 2>"$ISW_TMP/shim.log" &
	ISW_STOP_PIDS+=($!)
	for ((k = 0; k < 100; k++)); do
		grep -q "listening on" "$ISW_TMP/shim.log" && break
		sleep 0.1
	done
	grep -q "listening on" "$ISW_TMP/shim.log" ||
		isw_fail "(e) switchml-controller did not start: $(cat "$ISW_TMP/shim.log")"
	pids=()
	for r in 0 1 2 3; do
		isw_ns $((r + 1)) /usr/bin/python3 "$src/tests/e2e/switchml_client.py" 10.99.0.1:50099 \
			$r 4 10.99.0.254 >"$ISW_TMP/e.$r.json" 2>"$ISW_TMP/e.$r.err" &
		pids[r]=$!
	done
	for r in 0 1 2 3; do
		wait "${pids[$r]}" || isw_fail "(e) SwitchML client rank $r missed results:" \
			"$(cat "$ISW_TMP/e.$r.json" "$ISW_TMP/e.$r.err" | head -c 400)"
	done
	[ "$(counter P retransmits)" = 0 ] || isw_fail "(e) the parent counted retransmissions"
	echo "(e) SwitchML's client model (no retransmission) on four hosts through the fabric:" \
		"every result, exact; $(jq -c '{results, first_window_missing, wrong}' "$ISW_TMP/e.0.json")"
else
	echo "(e) skipped: python3-grpcio is missing"
fi

# del: the job gone from every switch
"$fabric" del "$TOPO" || isw_fail "inswitch-fabric del"
for s in P L1 L2; do
	! fab_ctl $s syncagtr session show 1 >/dev/null 2>&1 || isw_fail "del left session 1 on $s"
done
echo "inswitch-fabric show and del"
echo "PASS"
