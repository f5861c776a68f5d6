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
isw_need_root
trap isw_cleanup EXIT

worker=$build/hosts/syncagtr/syncagtr-worker
isw_need_tools "$worker"
jobs=${SA_LIFETIME_JOBS:-16}
seed=${SA_LIFETIME_SEED:-$RANDOM}
RANDOM=$seed
echo "syncagtr-lifetime: $jobs jobs, seed $seed (SA_LIFETIME_SEED replays it)"
SW_IP=10.99.0.254

isw_topo_create 4
conf=$ISW_TMP/sa.conf
for i in 1 2 3 4; do printf 'l2 add 02:00:00:00:00:%02x %d\n' $i $((i - 1)); done >"$conf"
start_switch() {
	isw_switch_start "$build" --pipeline syncagtr --config "$conf" ||
		isw_fail "inswitch did not start"
}
start_switch
isw_wait_path 1 10.99.0.4 || isw_wait_path 1 10.99.0.4 || isw_fail "h1 never reached h4"

declare -A outcome=()
for ((j = 1; j <= jobs; j++)); do
	case $((RANDOM % 10)) in
	0 | 1 | 2 | 3) fault=none ;;
	4 | 5) fault=worker ;;
	6) fault=workers ;;
	*) fault=switch ;;
	esac
	delay_ms=$((RANDOM % 1500))
	count=$((2 + RANDOM % 7))Mi
	pids=()
	for r in 0 1 2 3; do
		ip netns exec "${ISW_TAG}h$((r + 1))" "$worker" --rank $r --workers 4 --switch-ip $SW_IP \
			--ctl "$ISW_CTL_SOCK" --session 1 --count "$count" --check --give-up-s 5 --json \
			>"$ISW_TMP/j$j.$r.json" 2>"$ISW_TMP/j$j.$r.err" &
		pids+=($!)
	done
	sleep "$(awk -v m=$delay_ms 'BEGIN { printf "%.3f", m / 1000 }')"
	killed=()
	case $fault in
	worker)
		k=$((RANDOM % 4))
		kill -KILL "${pids[$k]}" 2>/dev/null && killed+=($k)
		;;
	workers)
		for k in 0 1 2 3; do kill -KILL "${pids[$k]}" 2>/dev/null && killed+=($k); done
		;;
	switch)
		kill -KILL "$ISW_PID"
		wait "$ISW_PID" 2>/dev/null || true
		ISW_PID=""
		start_switch
		;;
	esac
	ok=0 failed=0 causes=""
	for r in 0 1 2 3; do
		rc=0
		wait "${pids[$r]}" 2>/dev/null || rc=$?
		err=$ISW_TMP/j$j.$r.err
		# The end-to-end check passing what --check found wrong: the one outcome never allowed.
		if grep -q "result checked end to end" "$err" && grep -q "MISMATCH" "$err"; then
			cat "$err" >&2
			isw_fail "job $j ($fault after $delay_ms ms): rank $r's check passed a wrong result"
		fi
		if [ $rc -eq 0 ]; then
			jq -e '.verified == true' "$ISW_TMP/j$j.$r.json" >/dev/null ||
				isw_fail "job $j: rank $r exited 0 without a verified result"
			grep -q "result checked end to end" "$err" && grep -q "result verified" "$err" ||
				isw_fail "job $j: rank $r exited 0 without both checks: $(cat "$err")"
			ok=$((ok + 1))
		elif [[ " ${killed[*]} " == *" $r "* ]]; then
			failed=$((failed + 1)) # killed here: it cannot say anything
		else
			cause=$(grep -E "^syncagtr-worker|MISMATCH" "$err" | grep -v "transport:" |
				head -n 1 || true)
			[ -n "$cause" ] || {
				cat "$err" >&2
				isw_fail "job $j ($fault after $delay_ms ms): rank $r failed without a cause"
			}
			causes=${causes:-$cause}
			failed=$((failed + 1))
		fi
	done
	if [ $ok = 4 ]; then
		result=exact
	elif [ $failed = 4 ]; then
		result=failed
	else
		result=mixed # some finished exact, others failed (a fault after their last result)
	fi
	[ "$fault" = none ] && [ $result != exact ] && {
		cat "$ISW_TMP"/j$j.*.err >&2
		isw_fail "job $j failed with no fault: $causes"
	}
	outcome[$fault-$result]=$((${outcome[$fault-$result]:-0} + 1))
	printf 'job %3d: %-7s after %4d ms, %s a worker: %s%s\n' "$j" "$fault" "$delay_ms" "$count" \
		"$result" "${causes:+ (${causes:0:140})}"
done
echo "syncagtr-lifetime: outcomes (fault-result: jobs):"
for k in $(printf '%s\n' "${!outcome[@]}" | sort); do echo "  $k: ${outcome[$k]}"; done
[ "${outcome[none-exact]:-0}" -gt 0 ] || isw_fail "no job ran without a fault"
echo "syncagtr-lifetime: $jobs jobs, none wrong and called right (seed $seed)"
echo "PASS"
