#!/usr/bin/env bash
# End to end: ATP job lifetimes under crashes (docs/atp.md, Job lifetime). JOBS allreduce jobs
# of app 1 (workers h1..h4 on switch ports 0..3, its PS on h5, port 4), one after the other
# against one long-lived PS and one app registration (from the switch's config file), no
# control socket. During or between jobs, at a random moment, one of: nothing, one worker
# SIGKILLed, every worker SIGKILLed, the PS SIGKILLed (and a new one started at once), the
# switch SIGKILLed and started again at once (the app back from its config file). Every job
# must end either exact (each worker: exit 0, its end-to-end check and --check both passed) or
# with a non-zero exit and a message naming the cause from every worker still alive; a worker
# whose end-to-end check passed a result --check found wrong fails the test at once. The
# outcomes are counted and printed. Seeded (ATP_LIFETIME_SEED), so a failure can be replayed.
#   atp_lifetime.sh BUILD_DIR      (ATP_LIFETIME_JOBS=100 for the full run, 16 by default)
set -euo pipefail
build=$(cd "$1" && pwd)
source "$(dirname "$0")/lib.sh"
isw_need_root
trap isw_cleanup EXIT

worker=$build/hosts/atp/atp-worker
ps=$build/hosts/atp/atp-ps
isw_need_tools "$worker" "$ps"
COMMON=(--threads 2 --window 64 --pool 256)
jobs=${ATP_LIFETIME_JOBS:-16}
seed=${ATP_LIFETIME_SEED:-$RANDOM}
RANDOM=$seed
echo "atp-lifetime: $jobs jobs, seed $seed (ATP_LIFETIME_SEED replays it)"

isw_topo_create 5
conf=$ISW_TMP/atp.conf
printf 'atp pool resize 256\natp app add 1 workers 4 ports 0,1,2,3 ps 4\n' >"$conf"
start_switch() {
	isw_switch_start "$build" --pipeline atp --config "$conf" || isw_fail "inswitch did not start"
}
start_switch
sleep 2 # attaching XDP resets the links

PS_PID=""
start_ps() {
	ip netns exec "${ISW_TAG}h5" "$ps" --app 1 --dev eth0 --workers 4 "${COMMON[@]}" --quiet \
		>>"$ISW_TMP/ps.out" 2>>"$ISW_TMP/ps.err" &
	PS_PID=$!
	ISW_STOP_PIDS+=("$PS_PID")
}
start_ps
sleep 0.3

declare -A outcome=()
for ((j = 1; j <= jobs; j++)); do
	case $((RANDOM % 12)) in
	0 | 1 | 2 | 3) fault=none ;;
	4 | 5) fault=worker ;;
	6) fault=workers ;;
	7 | 8) fault=ps ;;
	*) fault=switch ;;
	esac
	delay_ms=$((RANDOM % 1200))
	count=$((1 + RANDOM % 4))Mi
	pids=()
	for r in 0 1 2 3; do
		ip netns exec "${ISW_TAG}h$((r + 1))" "$worker" --id $r --workers 4 --app 1 --dev eth0 \
			"${COMMON[@]}" --count "$count" --check --give-up-s 5 --json --quiet \
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
	ps)
		kill -KILL "$PS_PID"
		wait "$PS_PID" 2>/dev/null || true
		start_ps
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
		jf=$ISW_TMP/j$j.$r.json
		# The end-to-end check passing what --check found wrong: the one outcome never allowed.
		if [ -s "$jf" ] && jq -e '.checksum == true and .check == false' "$jf" >/dev/null 2>&1; then
			cat "$jf" "$ISW_TMP/j$j.$r.err" >&2
			isw_fail "job $j ($fault after $delay_ms ms): worker $r's check passed a wrong result"
		fi
		if [ $rc -eq 0 ]; then
			jq -e '.ok == true and .verified == true and .check == true' "$jf" >/dev/null ||
				isw_fail "job $j: worker $r exited 0 without a verified, exact result: $(cat "$jf")"
			ok=$((ok + 1))
		elif [[ " ${killed[*]} " == *" $r "* ]]; then
			failed=$((failed + 1)) # killed here: it cannot say anything
		else
			cause=$(grep -E "^atp-worker" "$ISW_TMP/j$j.$r.err" | head -n 1 || true)
			[ -n "$cause" ] || {
				cat "$ISW_TMP/j$j.$r.err" >&2
				isw_fail "job $j ($fault after $delay_ms ms): worker $r failed without a cause"
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
		result=mixed # some finished exact, others failed (a fault after their last ACK)
	fi
	[ "$fault" = none ] && [ $result != exact ] && {
		cat "$ISW_TMP"/j$j.*.err >&2
		isw_fail "job $j failed with no fault: $causes"
	}
	outcome[$fault-$result]=$((${outcome[$fault-$result]:-0} + 1))
	printf 'job %3d: %-7s after %4d ms, %s a worker: %s%s\n' "$j" "$fault" "$delay_ms" "$count" \
		"$result" "${causes:+ (${causes:0:140})}"
	# The PS must outlive the jobs; a switch restarted here lost nothing of the next job.
	kill -0 "$PS_PID" 2>/dev/null || start_ps
done
kill -TERM "$PS_PID" 2>/dev/null || true
wait "$PS_PID" 2>/dev/null || true
echo "atp-lifetime: outcomes (fault-result: jobs):"
for k in $(printf '%s\n' "${!outcome[@]}" | sort); do echo "  $k: ${outcome[$k]}"; done
[ "${outcome[none-exact]:-0}" -gt 0 ] || isw_fail "no job ran without a fault"
echo "atp-lifetime: $jobs jobs, none wrong and called right (seed $seed)"
echo "PASS"
