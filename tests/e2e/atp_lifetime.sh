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
source "$(dirname "$0")/lifetime.sh"
isw_need_root
trap isw_cleanup EXIT

worker=$build/hosts/atp/atp-worker
ps=$build/hosts/atp/atp-ps
isw_need_tools "$worker" "$ps"
COMMON=(--threads 2 --window 64 --pool 256)
lt_begin atp-lifetime ATP_LIFETIME

# The verdicts on worker I of job J (lifetime.sh, lt_judge_workers), from its JSON and stderr.
lt_wrong() {
	local jf=$ISW_TMP/j$2.$1.json
	[ -s "$jf" ] && jq -e '.checksum == true and .check == false' "$jf" >/dev/null 2>&1 &&
		cat "$jf" "$ISW_TMP/j$2.$1.err" >&2
}
lt_exact() {
	jq -e '.ok == true and .verified == true and .check == true' "$ISW_TMP/j$2.$1.json" >/dev/null
}
lt_cause() {
	grep -E "^atp-worker" "$ISW_TMP/j$2.$1.err" | head -n 1
}

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

for ((j = 1; j <= LT_JOBS; j++)); do
	case $((RANDOM % 12)) in
	0 | 1 | 2 | 3) fault=none ;;
	4 | 5) fault=worker ;;
	6) fault=workers ;;
	7 | 8) fault=ps ;;
	*) fault=switch ;;
	esac
	delay_ms=$((RANDOM % 1200))
	count=$((1 + RANDOM % 4))Mi
	LT_PIDS=()
	for r in 0 1 2 3; do
		ip netns exec "${ISW_TAG}h$((r + 1))" "$worker" --id $r --workers 4 --app 1 --dev eth0 \
			"${COMMON[@]}" --count "$count" --check --give-up-s 5 --json --quiet \
			>"$ISW_TMP/j$j.$r.json" 2>"$ISW_TMP/j$j.$r.err" &
		LT_PIDS+=($!)
	done
	lt_sleep_ms $delay_ms
	LT_KILLED=()
	case $fault in
	worker) lt_kill_workers one ;;
	workers) lt_kill_workers all ;;
	ps)
		kill -KILL "$PS_PID"
		wait "$PS_PID" 2>/dev/null || true
		start_ps
		;;
	switch) lt_restart_switch ;;
	esac
	lt_judge_workers "$j" "$fault" "$delay_ms"
	lt_count "$j" "$fault" "$delay_ms" "$count a worker" "$LT_RESULT" "$LT_CAUSE" \
		"$ISW_TMP"/j$j.*.err
	# The PS must outlive the jobs.
	kill -0 "$PS_PID" 2>/dev/null || start_ps
done
kill -TERM "$PS_PID" 2>/dev/null || true
wait "$PS_PID" 2>/dev/null || true
lt_report atp-lifetime
echo "PASS"
