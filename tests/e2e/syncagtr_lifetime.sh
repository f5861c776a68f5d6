#!/usr/bin/env bash
# End to end: SyncAgtr job lifetimes under crashes (docs/syncagtr.md, Job lifetime). JOBS
# allreduce jobs of session 1 (workers h1..h4, registering themselves over the control socket:
# rank 0 starts each job's epoch), one after the other. During or between jobs, at a random
# moment, one of: nothing, one worker SIGKILLed, every worker SIGKILLed, the switch SIGKILLed
# and started again at once (its cabling back from its config file; the session is the
# workers' to make again). Every job must end either exact (each worker: exit 0, its
# end-to-end check and --check both passed) or with a non-zero exit and a message naming the
# cause from every worker still alive; a worker whose end-to-end check passed a result --check
# found wrong fails the test at once. The outcomes are counted and printed. Seeded
# (SA_LIFETIME_SEED), so a failure can be replayed.
#   syncagtr_lifetime.sh BUILD_DIR   (SA_LIFETIME_JOBS=100 for the full run, 16 by default)
set -euo pipefail
build=$(cd "$1" && pwd)
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/lifetime.sh"
isw_need_root
trap isw_cleanup EXIT

worker=$build/hosts/syncagtr/syncagtr-worker
isw_need_tools "$worker"
lt_begin syncagtr-lifetime SA_LIFETIME
SW_IP=10.99.0.254

# The verdicts on rank I of job J (lifetime.sh, lt_judge_workers), from its stderr and JSON.
lt_wrong() {
	local err=$ISW_TMP/j$2.$1.err
	grep -q "result checked end to end" "$err" && grep -q "MISMATCH" "$err" && cat "$err" >&2
}
lt_exact() {
	local err=$ISW_TMP/j$2.$1.err
	jq -e '.verified == true' "$ISW_TMP/j$2.$1.json" >/dev/null &&
		grep -q "result checked end to end" "$err" && grep -q "result verified" "$err"
}
lt_cause() {
	grep -E "^syncagtr-worker|MISMATCH" "$ISW_TMP/j$2.$1.err" | grep -v "transport:" | head -n 1
}

isw_topo_create 4
conf=$ISW_TMP/sa.conf
for i in 1 2 3 4; do printf 'l2 add 02:00:00:00:00:%02x %d\n' $i $((i - 1)); done >"$conf"
start_switch() {
	isw_switch_start "$build" --pipeline syncagtr --config "$conf" ||
		isw_fail "inswitch did not start"
}
start_switch
isw_wait_path 1 10.99.0.4 || isw_wait_path 1 10.99.0.4 || isw_fail "h1 never reached h4"

for ((j = 1; j <= LT_JOBS; j++)); do
	case $((RANDOM % 10)) in
	0 | 1 | 2 | 3) fault=none ;;
	4 | 5) fault=worker ;;
	6) fault=workers ;;
	*) fault=switch ;;
	esac
	delay_ms=$((RANDOM % 1500))
	count=$((2 + RANDOM % 7))Mi
	LT_PIDS=()
	for r in 0 1 2 3; do
		ip netns exec "${ISW_TAG}h$((r + 1))" "$worker" --rank $r --workers 4 --switch-ip $SW_IP \
			--ctl "$ISW_CTL_SOCK" --session 1 --count "$count" --check --give-up-s 5 --json \
			>"$ISW_TMP/j$j.$r.json" 2>"$ISW_TMP/j$j.$r.err" &
		LT_PIDS+=($!)
	done
	lt_sleep_ms $delay_ms
	LT_KILLED=()
	case $fault in
	worker) lt_kill_workers one ;;
	workers) lt_kill_workers all ;;
	switch) lt_restart_switch ;;
	esac
	lt_judge_workers "$j" "$fault" "$delay_ms"
	lt_count "$j" "$fault" "$delay_ms" "$count a worker" "$LT_RESULT" "$LT_CAUSE" \
		"$ISW_TMP"/j$j.*.err
done
lt_report syncagtr-lifetime
echo "PASS"
