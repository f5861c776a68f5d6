#!/usr/bin/env bash
# End to end: ASK across two switches on the path (docs/fabric.md) with three inswitch servers
# on one machine: leaves L1 (senders h1, h2) and L2 (senders h3, h4), each an edge switch with
# task 1 whose receiver port is its uplink; the root P with task 1 for the receiver h5 behind
# its port 2, all set up by inswitch-fabric from one topology file. Each switch absorbs what it
# can into its own aggregator arrays; the receiver (ask-receiver --edge, through ask-wordcount
# --edge-ip) begins the job on all three, swaps and drains all three, and checks its table
# against the senders' totals and every switch's counts.
#   (a) WordCount over the fortunes text, 4 senders, AA 512 entries a copy (collisions at both
#       levels), swaps on: exact (cmp with ask-count) and verified; both leaves and the root
#       absorbed and swapped; the counts add up: the leaves saw every tuple the senders put in
#       slots, the root saw exactly what the leaves did not absorb
#   (b) the same with 1% drop, 1% duplication and 1% reordering in both directions of every
#       port of all three switches, uplinks included (inswitch fault injection): exact and
#       verified; the switches saw repeats and dropped none as another incarnation's
#   (c) L2 killed mid-job and started again with its task (inswitch-fabric apply --switch L2):
#       what it held is gone, so the job must fail within seconds saying edge switch 2 lost the
#       job's state (or stopped answering), never "result verified"; then a job through the
#       restarted L2: exact
#   fabric_ask.sh BUILD_DIR
set -euo pipefail
build=$(cd "$1" && pwd)
source "$(dirname "$0")/lib.sh"
isw_need_root
src=$(cd "$(dirname "$0")/../.." && pwd)
tools=$build/hosts/ask
wordcount=$src/hosts/ask/ask-wordcount
isw_need_tools "$tools/ask-sender" "$tools/ask-receiver" "$tools/ask-count"
isw_fortunes

trap isw_cleanup EXIT

ISW_NAMED_PIPELINE=ask
isw_topo_create 5
isw_fabric_up "$build"
echo "three switches on $ISW_DRIVER ports"

fabric=$src/control/inswitch-fabric
TOPO=$ISW_TMP/fabric.topo
isw_fabric_topo ask 512 >"$TOPO"
# One ASK address per switch: a leaf given the root's names its line.
sed 's/^leaf 1 L2 ask-ip 10.99.0.252$/leaf 1 L2 ask-ip 10.99.0.254/' "$TOPO" >"$ISW_TMP/bad.topo"
! "$fabric" check "$ISW_TMP/bad.topo" 2>"$ISW_TMP/bad.err" ||
	isw_fail "inswitch-fabric accepted two switches with one ASK address"
grep -q "line 11: switch P has ASK address 10.99.0.254 too (line 7)" "$ISW_TMP/bad.err" ||
	isw_fail "inswitch-fabric did not name the line: $(cat "$ISW_TMP/bad.err")"
"$fabric" apply "$TOPO" || isw_fail "inswitch-fabric apply"
[ "$(isw_named_ctl L1 --json ask config show | jq -r .ip)" = 10.99.0.251 ] ||
	isw_fail "L1's ASK address was not set"

# The hosts' MACs on every switch (the rest floods): h1, h2 behind L1, h3, h4 behind L2, h5
# behind P; on a leaf, every other host is up its port 2.
for h in 1 2 3 4 5; do
	mac=$(printf '02:00:00:00:00:%02x' $h)
	case $h in
	1 | 2) l1=$((h - 1)) l2=2 p=0 ;;
	3 | 4) l1=2 l2=$((h - 3)) p=1 ;;
	5) l1=2 l2=2 p=2 ;;
	esac
	isw_named_ctl L1 l2 add "$mac" $l1 >/dev/null && isw_named_ctl L2 l2 add "$mac" $l2 \
		>/dev/null && isw_named_ctl P l2 add "$mac" $p >/dev/null || isw_fail "l2 add"
done

# counter SWITCH NAME: task 1's counter NAME on that switch
counter() {
	isw_named_ctl "$1" --json ask task show 1 | jq ".counters[0].$2"
}

# wc NAME: one WordCount job over the corpus from h1..h4 to h5 through the fabric, kept in
# $ISW_TMP/NAME; fails unless exact and verified.
wc() {
	local name=$1 f args=()
	shift
	for f in "${ISW_TEXTS[@]}"; do args+=(--input "$f"); done
	"$wordcount" --build "$tools" --receiver-ns "${ISW_TAG}h5" --receiver-ip 10.99.0.5 \
		--switch-ip 10.99.0.254 --edge-ip 10.99.0.251 --edge-ip 10.99.0.252 \
		--senders "${ISW_TAG}h1,${ISW_TAG}h2,${ISW_TAG}h3,${ISW_TAG}h4" "${args[@]}" \
		--slots 16 --key-bytes 16 --aa-size 512 --window 64 --swap-threshold 2000 \
		--keep "$ISW_TMP/$name" "$@" >"$ISW_TMP/$name.out" 2>&1
}

# check NAME: the receiver's counts of job NAME add up over the tree
check() {
	local r=$ISW_TMP/$1/receiver.json slots e1 e2 a1 a2 root
	slots=$(jq '.senders_tuples - .long_records' "$r")
	e1=$(jq '.edges[0].tuples' "$r") e2=$(jq '.edges[1].tuples' "$r")
	a1=$(jq '.edges[0].absorbed' "$r") a2=$(jq '.edges[1].absorbed' "$r")
	root=$(jq .switch_tuples "$r")
	[ $((e1 + e2)) -eq "$slots" ] ||
		isw_fail "($1) the leaves saw $e1 + $e2 tuples, the senders sent $slots in slots"
	[ "$root" -eq $((slots - a1 - a2)) ] ||
		isw_fail "($1) the root saw $root tuples, the leaves passed $((slots - a1 - a2))"
	[ "$a1" -gt 0 ] && [ "$a2" -gt 0 ] && [ "$(jq .switch_absorbed "$r")" -gt 0 ] ||
		isw_fail "($1) a switch absorbed nothing: $(jq -c '{switch_absorbed, edges}' "$r")"
	echo "($1) $slots tuples in slots: L1 absorbed $a1 of $e1, L2 $a2 of $e2, P" \
		"$(jq .switch_absorbed "$r") of $root; $(jq .tuples_unabsorbed "$r") reached the" \
		"receiver; $(jq .swaps "$r") swaps"
}

wc a || {
	cat "$ISW_TMP/a.out" >&2
	isw_fail "(a) the job failed"
}
grep -q "result verified" "$ISW_TMP/a.out" || isw_fail "(a) not verified"
check a
for s in L1 L2 P; do
	[ "$(counter $s swaps)" -gt 0 ] || isw_fail "(a) $s was never swapped"
	[ "$(counter $s drops)" -eq 0 ] || isw_fail "(a) $s dropped $(counter $s drops) packets"
done
"$fabric" show "$TOPO"
echo "(a) WordCount across two levels of ASK: exact and verified"

isw_fabric_faults drop 1 dup 1 reorder 1 depth 8
wc b || {
	cat "$ISW_TMP/b.out" >&2
	isw_fail "(b) the job failed"
}
grep -q "result verified" "$ISW_TMP/b.out" || isw_fail "(b) not verified"
check b
repeats=$(($(counter L1 repeats) + $(counter L2 repeats) + $(counter P repeats)))
[ "$repeats" -gt 0 ] || isw_fail "(b) no switch saw a repeat"
echo "(b) with 1% drop, duplication and reordering on every port, uplinks included: exact and" \
	"verified ($repeats repeats seen by the switches)"
isw_fabric_faults off

# (c) L2 killed mid-job and started again: the job must fail saying so
base=$(counter P pkts)
wc c --timeout-s 20 &
job=$!
# mid-job: once the root has taken 2,000 of the job's DATA packets (about 30,000)
for ((k = 0; k < 500; k++)); do
	[ "$(counter P pkts)" -ge $((base + 2000)) ] && break
	sleep 0.02
done
killed=$(date +%s.%N)
isw_fabric_restart_l2 "$TOPO"
for h in 1 2 3 4 5; do
	mac=$(printf '02:00:00:00:00:%02x' $h)
	case $h in 3 | 4) p=$((h - 3)) ;; *) p=2 ;; esac
	isw_named_ctl L2 l2 add "$mac" $p >/dev/null || isw_fail "(c) l2 add"
done
if wait $job; then
	if grep -q "result verified" "$ISW_TMP/c.out"; then
		# The whole job may have run before the kill (a fast machine): then it is whole.
		[ "$(jq .senders_tuples "$ISW_TMP/c/receiver.json")" -gt 0 ] ||
			isw_fail "(c) verified without tuples"
		echo "(c) the job ended before L2 was killed: exact and verified"
	else
		isw_fail "(c) the job exited 0 without a verified result"
	fi
else
	took=$(awk -v a="$killed" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
	grep -Eq "edge switch 2 (lost the job's state|did not answer)" \
		"$ISW_TMP/c/receiver.err" || {
		cat "$ISW_TMP/c.out" >&2
		isw_fail "(c) the receiver did not say edge switch 2 lost the job"
	}
	! grep -q '"verified":true' "$ISW_TMP/c/receiver.json" ||
		isw_fail "(c) verified a job whose edge switch lost its state"
	echo "(c) L2 killed mid-job: the job failed ${took} s later: $(grep -m1 -o \
		"edge switch 2 [^(]*" "$ISW_TMP/c/receiver.err")"
fi
wc d || {
	cat "$ISW_TMP/d.out" >&2
	isw_fail "(d) the job through the restarted L2 failed"
}
grep -q "result verified" "$ISW_TMP/d.out" || isw_fail "(d) not verified"
echo "(c) then a job through the restarted L2: exact and verified"

"$fabric" del "$TOPO" || isw_fail "inswitch-fabric del"
for s in L1 L2 P; do
	! isw_named_ctl $s ask task show 1 >/dev/null 2>&1 || isw_fail "del left task 1 on $s"
done
echo "PASS"
