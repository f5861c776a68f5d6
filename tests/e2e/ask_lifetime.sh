#!/usr/bin/env bash
# End to end: ASK job lifetimes under crashes (docs/ask.md, Job lifetime). JOBS WordCount jobs
# (ask-wordcount: 4 senders h1..h4, the receiver h5), one after the other on ONE task
# registration made once from the switch's config file, each over a text drawn from the
# Debian package fortunes. During or between jobs, at a random moment, one of: nothing, the
# receiver SIGKILLed, a sender SIGKILLed, the switch SIGKILLed and started again at once (the
# task back from its config file), or all of a job's hosts SIGKILLed before it ends. Every job
# must end either exact ("result verified": the receiver's end-to-end check held AND its table
# equals ask-count's) or with a non-zero exit and a message naming the cause; a receiver that
# says verified with a table that differs from ask-count's fails the test at once. The outcomes
# are counted and printed. Seeded (ASK_LIFETIME_SEED), so a failure can be replayed.
#   ask_lifetime.sh BUILD_DIR      (ASK_LIFETIME_JOBS=100 for the full run, 16 by default;
#                                   ASK_LIFETIME_VERBOSE=1 prints each failed job's output)
set -euo pipefail
build=$(cd "$1" && pwd)
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/lifetime.sh"
isw_need_root
trap isw_cleanup EXIT

src=$(cd "$(dirname "$0")/../.." && pwd)
tools=$build/hosts/ask
wordcount=$src/hosts/ask/ask-wordcount
isw_need_tools "$tools/ask-sender" "$tools/ask-receiver" "$tools/ask-count"
isw_fortunes
texts=("${ISW_TEXTS[@]}")
lt_begin ask-lifetime ASK_LIFETIME
ASK_IP=10.99.0.254
RX_IP=10.99.0.5
SENDERS="${ISW_TAG}h1,${ISW_TAG}h2,${ISW_TAG}h3,${ISW_TAG}h4"

isw_topo_create 5
conf=$ISW_TMP/ask.conf
{
	echo "ask config set ip $ASK_IP"
	for i in 1 2 3 4 5; do printf 'l2 add 02:00:00:00:00:%02x %d\n' $i $((i - 1)); done
	echo "ask task add 1 receiver 02:00:00:00:00:05,$RX_IP,42405,4 channels 4 window 64 slots 16 key-bytes 16 op add aa-size 2048 senders 0,1,2,3"
} >"$conf"
start_switch() {
	isw_switch_start "$build" --pipeline ask --config "$conf" || isw_fail "inswitch did not start"
}
start_switch
isw_wait_path 1 $RX_IP || isw_fail "no path from h1 to the receiver"

# kill_ns NS: SIGKILL every process in host namespace NS (the tool running there).
kill_ns() {
	local p
	for p in $(ip netns pids "$1" 2>/dev/null); do kill -KILL "$p" 2>/dev/null || true; done
}

for ((j = 1; j <= LT_JOBS; j++)); do
	# A text of the corpus, sometimes two (some are shorter than a window per channel).
	in=(--input "${texts[RANDOM % ${#texts[@]}]}")
	((RANDOM % 3 == 0)) && in+=(--input "${texts[RANDOM % ${#texts[@]}]}")
	what=$(((RANDOM % 10)))
	case $what in
	0 | 1 | 2 | 3) fault=none ;;
	4 | 5) fault=receiver ;;
	6) fault=sender ;;
	7 | 8) fault=switch ;;
	*) fault=hosts ;;
	esac
	delay_ms=$((RANDOM % 400))
	dir=$ISW_TMP/job$j
	"$wordcount" --build "$tools" --receiver-ns "${ISW_TAG}h5" --receiver-ip $RX_IP \
		--switch-ip $ASK_IP --senders "$SENDERS" "${in[@]}" --slots 16 --key-bytes 16 \
		--aa-size 2048 --window 64 --swap-threshold 2000 --timeout-s 5 --keep "$dir" \
		>"$ISW_TMP/job$j.out" 2>&1 &
	wpid=$!
	lt_sleep_ms $delay_ms
	case $fault in
	receiver) kill_ns "${ISW_TAG}h5" ;;
	sender) kill_ns "${ISW_TAG}h$((1 + RANDOM % 4))" ;;
	switch) lt_restart_switch ;;
	hosts) for i in 1 2 3 4 5; do kill_ns "${ISW_TAG}h$i"; done ;;
	esac
	rc=0
	wait $wpid || rc=$?
	verified=$(jq -r '.verified // "null"' "$dir/receiver.json" 2>/dev/null || echo none)
	result=exact cause=""
	if [ $rc -eq 0 ]; then
		grep -q "result verified" "$ISW_TMP/job$j.out" || isw_fail "job $j: exit 0 without 'result verified'"
	else
		# Wrong and called right: the receiver's check held but the table is not ask-count's.
		if [ "$verified" = true ] && grep -q "RESULT MISMATCH" "$ISW_TMP/job$j.out"; then
			cat "$ISW_TMP/job$j.out" >&2
			isw_fail "job $j ($fault after $delay_ms ms): a wrong table the receiver verified"
		fi
		# The cause, in the words of the tool that saw it.
		cause=$( (cat "$dir"/receiver.err "$dir"/sender.*.err 2>/dev/null |
			grep -E "^ask-(receiver|sender): " | grep -v "transport:"
			grep -E "^ask-wordcount: .*receiver" "$ISW_TMP/job$j.out"
			grep -E "^ask-wordcount: .*(failed|stopped|MISMATCH)" "$ISW_TMP/job$j.out") |
			head -n 1 || true)
		[ -z "${ASK_LIFETIME_VERBOSE:-}" ] || sed "s/^/job $j: /" "$ISW_TMP/job$j.out" >&2
		[ -n "$cause" ] || {
			cat "$ISW_TMP/job$j.out" >&2
			isw_fail "job $j ($fault after $delay_ms ms) failed without a cause"
		}
		result=failed
	fi
	lt_count "$j" "$fault" "$delay_ms" "" "$result" "$cause" "$ISW_TMP/job$j.out" "$dir"/*.err
	# A switch killed while a job's hosts were being killed is started again here.
	kill -0 "$ISW_PID" 2>/dev/null || start_switch
done
lt_report ask-lifetime
echo "PASS"
