#!/usr/bin/env bash
# End to end: ASK through inswitch (--pipeline ask on net_af_xdp, or net_af_packet where AF_XDP
# is unavailable) with the host tools of hosts/ask/. Five hosts: senders h1..h4 (switch ports
# 0..3), the receiver h5 (port 4); the ASK address 10.99.0.254.
#   (a) WordCount over the text of the Debian package `fortunes` (about 2.5 MB, 460 k words),
#       4 senders, swaps on, on kernel UDP sockets (--transport socket): the receiver's table
#       equals ask-count's byte for byte. The other cases take the default transport (auto:
#       AF_XDP where the switch has it)
#   (x) as (a) with the senders and the receiver on AF_XDP (--transport xdp, where the switch
#       has AF_XDP): exact
#   (b) as (a) with 1% loss, 1% duplication and 2% reordering in both directions of every
#       switch port (inswitch fault injection), on the default transport and on sockets: still
#       exact; the switch saw repeats
#   (c) a Zipf-skewed stream (8-byte keys, 4 senders): run without swaps, then with; exact both
#       times, and the absorbed fraction (the switch's absorbed / tuples) rises with swaps
#   (d) as (a) with the switch on two worker lcores in strict mode: exact, with hand-offs to
#       the lcore that owns the task and no register array used twice in a pass
#   (e) job lifetime, a crashed receiver: a job of task 1 whose receiver is SIGKILLed mid-stream
#       leaves its sender resending (the same task, channels and seqs as the next job); the next
#       job runs at once on the same registration, without --ctl: its receiver BEGINs a new
#       incarnation, the old packets are dropped (ask-incarnation) and the job is exact
#   (f) jobs one after the other on one registration made by hand (window 64), without --ctl:
#       a short text (fewer packets per channel than the window), then another, then the whole
#       corpus; every job exact and verified (before BEGIN, the second job's first seqs were
#       taken as repeats and its table came out wrong with exit 0)
#   (g) a switch restart mid-job (SIGKILL, started again at once with the task back from its
#       config file): what the switch held is lost, so the job must fail, within seconds, with
#       a message saying so (receiver and senders non-zero), never "result verified"
#   ask_hosts.sh BUILD_DIR        (ASK_CASES="a c" runs only those cases)
set -euo pipefail
build=$(cd "$1" && pwd)
source "$(dirname "$0")/lib.sh"
isw_need_root
trap isw_cleanup EXIT

src=$(cd "$(dirname "$0")/../.." && pwd)
tools=$build/hosts/ask
wordcount=$src/hosts/ask/ask-wordcount
isw_need_tools "$tools/ask-sender" "$tools/ask-receiver" "$tools/ask-count"
isw_fortunes
corpus=("${ISW_TEXTS[@]}")
cases=${ASK_CASES:-a x b c d e f g}
ASK_IP=10.99.0.254
RX_MAC=02:00:00:00:00:05
RX_IP=10.99.0.5
SENDERS="${ISW_TAG}h1,${ISW_TAG}h2,${ISW_TAG}h3,${ISW_TAG}h4"

# task SLOTS KEYBYTES AASIZE WINDOW: (re)registers task 1 for 4 senders of one channel each.
task() {
	isw_ctl ask task del 1 >/dev/null 2>&1 || true
	isw_ctl ask task add 1 receiver "$RX_MAC,$RX_IP,42405,4" channels 4 window "$4" \
		slots "$1" key-bytes "$2" op add aa-size "$3" senders 0,1,2,3 >/dev/null
}

counters() {
	isw_ctl --json ask task show 1 | jq -c '.counters[0]'
}

isw_topo_create 5
isw_switch_start "$build" --pipeline ask || isw_fail "inswitch did not start"
isw_ctl ask config set ip $ASK_IP >/dev/null
isw_l2_static || isw_fail "l2 add"
isw_wait_path 1 $RX_IP || isw_fail "no path from h1 to the receiver"

# wc NAME [ask-wordcount options]: one WordCount job over the corpus (or the files in
# WC_INPUTS); prints its summary.
wc() {
	local name=$1 args=() f
	shift
	for f in ${WC_INPUTS:-"${corpus[@]}"}; do args+=(--input "$f"); done
	"$wordcount" --build "$tools" --receiver-ns "${ISW_TAG}h5" --receiver-ip $RX_IP \
		--switch-ip $ASK_IP --senders "$SENDERS" "${args[@]}" --slots 16 --key-bytes 16 \
		--aa-size 2048 --window 64 "$@" >"$ISW_TMP/$name.out" 2>&1 || {
		cat "$ISW_TMP/$name.out" >&2
		isw_fail "$name: wordcount job failed"
	}
	grep -q "result verified" "$ISW_TMP/$name.out" || isw_fail "$name: not verified"
	echo "$name: $(grep -v '^$' "$ISW_TMP/$name.out" | tail -n 4 | tr '\n' ' ')"
	echo "$name: switch $(counters)"
}

if [[ $cases == *a* ]]; then
	task 16 16 2048 64
	wc a --swap-threshold 2000 --transport socket
	grep -q "transport socket" "$ISW_TMP/a.out" || isw_fail "a: the tools did not use sockets"
	c=$(counters)
	[ "$(jq .absorbed <<<"$c")" -gt 0 ] || isw_fail "a: the switch absorbed nothing"
	[ "$(jq .swaps <<<"$c")" -gt 0 ] || isw_fail "a: no swaps"
	[ "$(jq .fetched <<<"$c")" -gt 0 ] || isw_fail "a: nothing fetched"
	ISW_CASES_DONE=$((ISW_CASES_DONE + 1))
fi

if [[ $cases == *x* ]]; then
	if [ "$ISW_DRIVER" = net_af_xdp ]; then
		task 16 16 2048 64
		wc x --swap-threshold 2000 --transport xdp
		grep -q "transport xdp" "$ISW_TMP/x.out" || isw_fail "x: the tools did not use AF_XDP"
	else
		echo "x: skipped: the switch has no AF_XDP here, so neither have the hosts"
	fi
	ISW_CASES_DONE=$((ISW_CASES_DONE + 1))
fi

# faults_bit NAME: the faults reached the task's traffic: repeats at the switch, a FETCH retried.
faults_bit() {
	local c
	c=$(counters)
	[ "$(jq .repeats <<<"$c")" -gt 0 ] || isw_fail "$1: no repeats reached the switch"
	[ "$(jq .fetch_replays <<<"$c")" -gt 0 ] || isw_fail "$1: no FETCH was retried (no replay)"
}

if [[ $cases == *b* ]]; then
	isw_faults on drop 1 dup 1 reorder 2 depth 8
	task 16 16 2048 64
	wc b --swap-threshold 2000 --timeout-s 120
	faults_bit b
	# and on the other transport (the default is AF_XDP where the switch has it)
	task 16 16 2048 64
	wc b-socket --swap-threshold 2000 --timeout-s 120 --transport socket
	faults_bit b-socket
	echo "b: faults on port 4: $(isw_ctl --json port show 4 |
		jq -c '.fault | {rx: (.rx | {dropped, duplicated, reordered}), tx: (.tx | {dropped, duplicated, reordered})}')"
	isw_faults off
	ISW_CASES_DONE=$((ISW_CASES_DONE + 1))
fi

# zipf NAME THRESHOLD: 4 senders of a Zipf stream through task 1 (8-byte keys, AA 256 per slot
# and copy); checks the receiver's table against ask-count; prints the absorbed fraction.
zipf() {
	local name=$1 thr=$2 i pids=() spec rc=0
	task 8 8 256 64
	local shape=(--task 1 --slots 8 --key-bytes 8 --window 64)
	ip netns exec "${ISW_TAG}h5" "$tools/ask-receiver" "${shape[@]}" --channels 4 \
		--aa-size 256 --switch $ASK_IP --swap-threshold "$thr" --key-format u64 \
		--out "$ISW_TMP/$name.table" --json --linger-ms 300 \
		>"$ISW_TMP/$name.rx.json" 2>"$ISW_TMP/$name.rx.err" &
	local rxpid=$!
	sleep 0.3
	local count=()
	for i in 1 2 3 4; do
		spec="20000,1.1,250000,$i"
		count+=(--zipf "$spec")
		isw_ns $i "$tools/ask-sender" "${shape[@]}" --receiver $RX_IP --channel $((i - 1)) \
			--zipf "$spec" --json >"$ISW_TMP/$name.$i.json" 2>"$ISW_TMP/$name.$i.err" &
		pids+=($!)
	done
	for i in "${!pids[@]}"; do
		wait "${pids[$i]}" || {
			cat "$ISW_TMP/$name.$((i + 1)).err" >&2
			rc=1
		}
	done
	wait $rxpid || {
		cat "$ISW_TMP/$name.rx.err" >&2
		rc=1
	}
	[ $rc -eq 0 ] || isw_fail "$name: a sender or the receiver failed"
	"$tools/ask-count" "${count[@]}" --key-format u64 --out "$ISW_TMP/$name.expect"
	cmp -s "$ISW_TMP/$name.table" "$ISW_TMP/$name.expect" || {
		diff "$ISW_TMP/$name.table" "$ISW_TMP/$name.expect" | head -n 10 >&2
		isw_fail "$name: the receiver's table differs from ask-count's"
	}
	local c
	c=$(counters)
	frac=$(jq -r '(.absorbed / .tuples * 10000 | floor) / 10000' <<<"$c")
	echo "$name: swap threshold $thr: absorbed fraction $frac; switch $c; receiver $(cat "$ISW_TMP/$name.rx.json")"
}

if [[ $cases == *c* ]]; then
	zipf c-noswap 0
	f0=$frac
	zipf c-swap 1000
	f1=$frac
	echo "c: absorbed fraction without swaps $f0, with swaps $f1"
	awk -v a="$f0" -v b="$f1" 'BEGIN { exit !(b > a) }' ||
		isw_fail "c: swaps did not raise the absorbed fraction ($f0 -> $f1)"
	ISW_CASES_DONE=$((ISW_CASES_DONE + 1))
fi
# (d) WordCount again with the switch on two worker lcores and strict mode (recirc-limit 1): the
# task is one shard, so the packets of the ports the other lcore polls are handed to its owner.
if [[ $cases == *d* ]]; then
	isw_switch_stop
	ISW_LCORES=0-1 isw_switch_start "$build" --pipeline ask ||
		isw_fail "inswitch did not start on two lcores"
	# 16 slots are two passes over the 8 aggregator arrays: one recirculation.
	isw_ctl pipeline strict on recirc-limit 1 >/dev/null
	isw_ctl ask config set ip $ASK_IP >/dev/null
	isw_l2_static || isw_fail "d: l2 add"
	isw_wait_path 1 $RX_IP || isw_fail "d: no path from h1 to the receiver"
	task 16 16 2048 64
	wc d --swap-threshold 2000
	s=$(isw_ctl --json stats show)
	echo "d: workers $(jq -c '[.workers[] | {worker, rxqs, handoff_out, handoff_in}]' <<<"$s")"
	[ "$(jq '[.workers[].handoff_out] | add' <<<"$s")" -gt 0 ] || isw_fail "d: no hand-offs"
	echo "d: strict $(jq -c '{strict_multi_access, strict_recirc_over}' <<<"$s")"
	[ "$(jq '.strict_multi_access + .strict_recirc_over' <<<"$s")" -eq 0 ] ||
		isw_fail "d: a register array used twice in a pass, or more than one recirculation"
	ISW_CASES_DONE=$((ISW_CASES_DONE + 1))
fi
if [[ $cases == *e* ]]; then
	task 16 16 2048 64
	# The earlier job: its receiver killed once the stream runs, its sender resending.
	ip netns exec "${ISW_TAG}h5" "$tools/ask-receiver" --task 1 --channels 4 --window 64 \
		--slots 16 --key-bytes 16 --aa-size 2048 --switch $ASK_IP --json \
		>"$ISW_TMP/e0.rx" 2>"$ISW_TMP/e0.rx.err" &
	e0rx=$!
	ip netns exec "${ISW_TAG}h1" "$tools/ask-sender" --task 1 --receiver $RX_IP --channel 0 \
		--channels 4 --window 64 --slots 16 --key-bytes 16 --rto-ms 5 --retries 200 \
		"${corpus[@]/#/--words=}" >/dev/null 2>"$ISW_TMP/e0.tx.err" &
	ISW_STOP_PIDS+=($!)
	for _ in $(seq 100); do
		[ "$(counters | jq .pkts)" -gt 500 ] && break
		sleep 0.05
	done
	[ "$(counters | jq .pkts)" -gt 500 ] || isw_fail "e: the earlier job did not run"
	kill -KILL $e0rx
	wait $e0rx 2>/dev/null || true
	before=$(isw_ctl --json stats show | jq '[.drops[] | select(.reason == "ask-incarnation") | .count] | add // 0')
	wc e --swap-threshold 2000
	stale=$(isw_ctl --json stats show | jq '[.drops[] | select(.reason == "ask-incarnation") | .count] | add // 0')
	echo "e: the earlier job's packets dropped as ask-incarnation: $((stale - before))"
	[ "$stale" -gt "$before" ] || isw_fail "e: the earlier job's packets were not seen"
	ISW_CASES_DONE=$((ISW_CASES_DONE + 1))
fi
if [[ $cases == *f* ]]; then
	task 16 16 2048 64 # once, by hand: every job after it runs on this registration
	WC_INPUTS=/usr/share/games/fortunes/goedel wc f1 --swap-threshold 2000
	pkts=$(counters | jq .pkts)
	echo "f1: $pkts packets on 4 channels, window 64"
	[ "$pkts" -lt $((4 * 64)) ] || isw_fail "f1: the first job was not short ($pkts packets)"
	WC_INPUTS=/usr/share/games/fortunes/linuxcookie wc f2 --swap-threshold 2000
	wc f3 --swap-threshold 2000
	echo "f: three jobs on one registration: $(isw_ctl --json ask task show 1 | jq -c '.tasks[0] | {incarnation, jobs}')"
	[ "$(isw_ctl --json ask task show 1 | jq '.tasks[0].jobs')" = 3 ] || isw_fail "f: not 3 jobs"
	ISW_CASES_DONE=$((ISW_CASES_DONE + 1))
fi
if [[ $cases == *g* ]]; then
	conf=$ISW_TMP/ask.conf
	{
		echo "ask config set ip $ASK_IP"
		for i in 1 2 3 4 5; do printf 'l2 add 02:00:00:00:00:%02x %d\n' $i $((i - 1)); done
		echo "ask task add 1 receiver $RX_MAC,$RX_IP,42405,4 channels 4 window 64 slots 16 key-bytes 16 op add aa-size 2048 senders 0,1,2,3"
	} >"$conf"
	isw_switch_stop
	isw_switch_start "$build" --pipeline ask --config "$conf" || isw_fail "g: inswitch did not start"
	isw_wait_path 1 $RX_IP || isw_fail "g: no path from h1 to the receiver"
	args=()
	for f in "${corpus[@]}"; do args+=(--input "$f"); done
	"$wordcount" --build "$tools" --receiver-ns "${ISW_TAG}h5" --receiver-ip $RX_IP \
		--switch-ip $ASK_IP --senders "$SENDERS" "${args[@]}" --slots 16 --key-bytes 16 \
		--aa-size 2048 --window 64 --keep "$ISW_TMP/g" >"$ISW_TMP/g.out" 2>&1 &
	gpid=$!
	for _ in $(seq 200); do
		[ "$(counters | jq .pkts)" -gt 2000 ] && break
		sleep 0.05
	done
	[ "$(counters | jq .pkts)" -gt 2000 ] || isw_fail "g: the job did not run"
	kill -KILL "$ISW_PID"
	wait "$ISW_PID" 2>/dev/null || true
	ISW_PID=""
	t0=$(date +%s.%N)
	isw_switch_start "$build" --pipeline ask --config "$conf" || isw_fail "g: no restart"
	rc=0
	wait $gpid || rc=$?
	took=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
	sed 's/^/g: /' "$ISW_TMP/g.out" | grep -v '^g: *$' | head -n 12
	[ $rc -ne 0 ] || isw_fail "g: the job exited 0 across a switch restart"
	grep -q "result verified" "$ISW_TMP/g.out" && isw_fail "g: a result was verified"
	grep -Eq "lost the job's state|did not answer" "$ISW_TMP/g/receiver.err" ||
		isw_fail "g: the receiver did not say the switch lost the job"
	for i in 0 1 2 3; do
		grep -q "aborted the job\|no ACK" "$ISW_TMP/g/sender.$i.err" ||
			isw_fail "g: sender $i did not stop on the receiver's word"
	done
	echo "g: the job failed ${took} s after the switch was killed, saying: $(grep -h "ask-receiver:" "$ISW_TMP/g/receiver.err" | head -n 1)"
	awk -v t="$took" 'BEGIN { exit !(t < 20) }' || isw_fail "g: took $took s to fail"
	ISW_CASES_DONE=$((ISW_CASES_DONE + 1))
fi
# every case asked for ran to its end (lib.sh, isw_cases)
isw_cases_ran "$cases"
echo "ask-hosts: all cases passed ($cases)"
