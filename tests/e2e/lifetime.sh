# shellcheck shell=bash
# What the job-lifetime tests (ask_lifetime.sh, atp_lifetime.sh, syncagtr_lifetime.sh) share, to
# be sourced after lib.sh: the seeded draws, the verdict on a job's workers, and the count of
# outcomes.
#
#   lt_begin NAME VAR       LT_JOBS = $VAR_JOBS (16 by default); RANDOM seeded with $VAR_SEED
#                           (else a random one, said, so a failure can be replayed)
#   lt_judge_workers J FAULT DELAY
#                           after the caller started the job's workers (pids in LT_PIDS) and
#                           SIGKILLed some (their indexes in LT_KILLED): waits for each, judging
#                           it with the caller's functions
#                             lt_wrong I J   its end-to-end check passed a result its --check
#                                            found wrong (the one outcome never allowed)
#                             lt_exact I J   exit 0 came with a verified, exact result
#                             lt_cause I J   prints the line in which it names why it failed
#                           (I the worker's index); sets LT_RESULT (exact, failed, or mixed: some
#                           finished exact, others failed) and LT_CAUSE (the first cause)
#   lt_sleep_ms MS          sleeps MS milliseconds (the fault's moment)
#   lt_kill_workers one|all SIGKILLs one worker of LT_PIDS (drawn) or all, noted in LT_KILLED
#   lt_restart_switch       SIGKILLs the switch and starts it again with the caller's
#                           start_switch (its config file brings back what it had)
#   lt_count J FAULT DELAY WHAT RESULT CAUSE [FILE...]
#                           one outcome more, and its line; a job without a fault must be exact
#                           (else the test fails, showing the FILEs)
#   lt_report NAME          the outcomes; fails unless some job ran without a fault

declare -A LT_OUTCOME=()

lt_begin() {
	local jobs=${2}_JOBS seed=${2}_SEED
	LT_JOBS=${!jobs:-16}
	LT_SEED=${!seed:-$RANDOM}
	RANDOM=$LT_SEED
	echo "$1: $LT_JOBS jobs, seed $LT_SEED (${2}_SEED replays it)"
}

lt_sleep_ms() {
	sleep "$(awk -v m="$1" 'BEGIN { printf "%.3f", m / 1000 }')"
}

lt_kill_workers() {
	local k
	LT_KILLED=()
	if [ "$1" = one ]; then
		k=$((RANDOM % ${#LT_PIDS[@]}))
		kill -KILL "${LT_PIDS[$k]}" 2>/dev/null && LT_KILLED+=("$k")
	else
		for k in "${!LT_PIDS[@]}"; do
			kill -KILL "${LT_PIDS[$k]}" 2>/dev/null && LT_KILLED+=("$k")
		done
	fi
	return 0
}

lt_restart_switch() {
	kill -KILL "$ISW_PID"
	wait "$ISW_PID" 2>/dev/null || true
	ISW_PID=""
	start_switch
}

lt_judge_workers() {
	local j=$1 fault=$2 delay=$3 i rc ok=0 failed=0 cause
	LT_CAUSE=""
	for i in "${!LT_PIDS[@]}"; do
		rc=0
		wait "${LT_PIDS[$i]}" 2>/dev/null || rc=$?
		lt_wrong "$i" "$j" && isw_fail "job $j ($fault after $delay ms): worker $i's check passed a wrong result"
		if [ $rc -eq 0 ]; then
			lt_exact "$i" "$j" || isw_fail "job $j: worker $i exited 0 without a verified, exact result"
			ok=$((ok + 1))
			continue
		fi
		failed=$((failed + 1))
		[[ " ${LT_KILLED[*]} " == *" $i "* ]] && continue # killed here: it cannot say anything
		cause=$(lt_cause "$i" "$j")
		[ -n "$cause" ] || isw_fail "job $j ($fault after $delay ms): worker $i failed without a cause"
		LT_CAUSE=${LT_CAUSE:-$cause}
	done
	if [ $ok = ${#LT_PIDS[@]} ]; then
		LT_RESULT=exact
	elif [ $failed = ${#LT_PIDS[@]} ]; then
		LT_RESULT=failed
	else
		LT_RESULT=mixed
	fi
}

lt_count() {
	local j=$1 fault=$2 delay=$3 what=$4 result=$5 cause=$6
	shift 6
	if [ "$fault" = none ] && [ "$result" != exact ]; then
		cat "$@" >&2 2>/dev/null || true
		isw_fail "job $j failed with no fault: $cause"
	fi
	LT_OUTCOME[$fault-$result]=$((${LT_OUTCOME[$fault-$result]:-0} + 1))
	printf 'job %3d: %-8s after %4d ms%s: %s%s\n' "$j" "$fault" "$delay" "${what:+, $what}" \
		"$result" "${cause:+ (${cause:0:140})}"
}

lt_report() {
	local k
	echo "$1: outcomes (fault-result: jobs):"
	for k in $(printf '%s\n' "${!LT_OUTCOME[@]}" | sort); do echo "  $k: ${LT_OUTCOME[$k]}"; done
	[ "${LT_OUTCOME[none-exact]:-0}" -gt 0 ] || isw_fail "no job ran without a fault"
	echo "$1: $LT_JOBS jobs, none wrong and called right (seed $LT_SEED)"
}
