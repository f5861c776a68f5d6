#!/usr/bin/env bash
# End to end: ATP through inswitch (--pipeline atp on net_af_xdp, or net_af_packet where AF_XDP
# is unavailable) with the host tools of hosts/atp/. Ten hosts, two apps at once:
#   app 1: workers h1..h4 (switch ports 0..3), PS h5 (port 4)
#   app 2: workers h6..h9 (switch ports 5..8), PS h10 (port 9)
# The aggregator pool is cut to 256 and each app's hash table takes 2 threads x 64 = 128 of it,
# so the two apps collide on aggregators and the PS's fallback and collision ACKs are exercised.
#   (a) each app 8 Mi int32 values (exact; hosts on AF_XDP, --transport xdp, where the switch
#       has it) and, after it, 2 Mi float32 (within the bound; a few values per thousand packets
#       take the overflow path to the PS)
#   (b) as (a) int32, with 1% drop and 1% duplication in both directions of every switch port
#       (inswitch fault injection), 8 Mi per app, hosts on kernel sockets (--transport socket)
#   (c) app 1 alone with its PS port rate-limited by the switch (port rate 4 ... ecn N), once
#       without and once with --cc: the switch marks what waits in the queue, the PS echoes the
#       mark in its ACKs, and the --cc workers halve their windows (asserted: marks on the PS
#       port, ECN ACKs, minimum and mean window below --window at every worker, exact results)
#   (d) job lifetimes: a job of app 1 (its PS and 4 workers) SIGKILLed while it runs leaves app
#       1's aggregators held; the next job of app 1, with the same seqs, must be exact: (d1) at
#       once, workers 1..3 started first and worker 0 0.5 s later, the switch seeing no data
#       frame of the app before worker 0's (the job forms only once all four have JOINed);
#       (d2) after the aggregator lease (1 s). The held aggregators and their age show first.
#   (e) the sequence of issue 25, without any control socket: workers 0-2 of a job are killed
#       while worker 3 has not started, and the next job of the app starts at once against the
#       same PS: all four exact, verified end to end (the default) and by --check
#       (e1: as the issue has it; e2: the next job's worker 3 JOINs while the dead ones still
#       count, so a job forms with them first; ATP_E_PARTS="e1" runs only e1)
#   (f) the PS killed at a random point of a job and started again at once: every worker either
#       ends exact and verified, or fails naming the cause; none reports a wrong result as right
#   atp_hosts.sh BUILD_DIR        (ATP_CASES="a" runs only those cases; ATP_COUNT=1Mi for (a);
#                                  ATP_SWITCH_ARGS adds daemon options, e.g. "--mbufs 32767")
set -euo pipefail
build=$(cd "$1" && pwd)
source "$(dirname "$0")/lib.sh"
isw_need_root
trap isw_cleanup EXIT

worker=$build/hosts/atp/atp-worker
ps=$build/hosts/atp/atp-ps
isw_need_tools "$worker" "$ps"
COMMON="--threads 2 --window 64 --pool 256"

# run_app NAME APP "WORKER_HOSTS" PS_HOST [worker options...]: the PS, then the 4 workers in
# parallel; fails unless every worker exits 0 (with --check: verified). Leaves per-host JSON.
run_app() {
	local name=$1 app=$2 hosts=($3) psh=$4 pids=() r rc=0 pspid
	shift 4
	# ip netns exec directly (not the isw_ns function), so $! is the PS itself for the kill.
	ip netns exec "${ISW_TAG}h$psh" "$ps" --app "$app" --dev eth0 --workers 4 $COMMON \
		--transport "${TRANSPORT:-auto}" --json --quiet \
		>"$ISW_TMP/$name.ps.json" 2>"$ISW_TMP/$name.ps.err" &
	pspid=$!
	sleep 0.3
	# W0_LAST=S: worker 0 starts S s after the others, and the switch must see no data frame
	# of the app meanwhile (JOINs are not counted in pkts).
	local pkts0
	pkts0=$(isw_ctl --json atp app show "$app" | jq '.counters[0].pkts')
	for r in "${!hosts[@]}"; do
		[ "$r" = 0 ] && [ -n "${W0_LAST:-}" ] && continue
		isw_ns "${hosts[$r]}" "$worker" --id "$r" --workers 4 --app "$app" --dev eth0 \
			$COMMON --transport "${TRANSPORT:-auto}" --json --quiet "$@" \
			>"$ISW_TMP/$name.$r.json" \
			2>"$ISW_TMP/$name.$r.err" &
		pids+=($!)
	done
	if [ -n "${W0_LAST:-}" ]; then
		sleep "$W0_LAST"
		[ "$(isw_ctl --json atp app show "$app" | jq '.counters[0].pkts')" = "$pkts0" ] || {
			echo "$name: workers 1..3 sent before worker 0 started the job" >&2
			rc=1
		}
		isw_ns "${hosts[0]}" "$worker" --id 0 --workers 4 --app "$app" --dev eth0 \
			$COMMON --transport "${TRANSPORT:-auto}" --json --quiet "$@" \
			>"$ISW_TMP/$name.0.json" \
			2>"$ISW_TMP/$name.0.err" &
		pids=($! "${pids[@]}")
	fi
	for r in "${!pids[@]}"; do
		if ! wait "${pids[$r]}"; then
			echo "$name: worker $r failed:" >&2
			cat "$ISW_TMP/$name.$r.err" >&2
			rc=1
		fi
	done
	kill -TERM "$pspid" 2>/dev/null || true
	wait "$pspid" || rc=1
	for r in "${!hosts[@]}"; do
		jq -c '{id, transport, type, elems, job, jobs, seconds, goodput_gbps, resends, timeouts, collision_acks, overflow_packets, checked_packets, unchecked_packets, verified}' \
			"$ISW_TMP/$name.$r.json" 2>/dev/null | sed "s/^/$name: /" || true
	done
	jq -c '{rx, full, partial, collisions, overflow, resends, dups, acks, reacks, reassigned, seqs_full, seqs_merged, fallback_share}' \
		"$ISW_TMP/$name.ps.json" 2>/dev/null | sed "s/^/$name PS: /" || true
	[ "$rc" -eq 0 ] || return 1
	for r in "${!hosts[@]}"; do
		# verified: every check that ran passed (the checksums, and --check if given)
		[ "$(jq -r .verified "$ISW_TMP/$name.$r.json")" = true ] || return 1
		# the transport asked for is the one used
		case ${TRANSPORT:-auto} in
		xdp | socket) [ "$(jq -r .transport "$ISW_TMP/$name.$r.json")" = "$TRANSPORT" ] || {
			echo "$name: worker $r used $(jq -r .transport "$ISW_TMP/$name.$r.json")" >&2
			return 1
		} ;;
		esac
	done
}

# both NAME [worker options...]: app 1 and app 2 at the same time.
both() {
	local name=$1 p1 p2
	shift
	run_app "$name-app1" 1 "1 2 3 4" 5 "$@" &
	p1=$!
	run_app "$name-app2" 2 "6 7 8 9" 10 "$@" &
	p2=$!
	wait $p1 || isw_fail "$name: app 1"
	wait $p2 || isw_fail "$name: app 2"
}

goodput() {
	cat "$ISW_TMP/$1".[0-9].json | jq -s 'map(.goodput_gbps) | min'
}

summary() {
	local name=$1 app
	for app in 1 2; do
		echo "$name app $app: goodput $(goodput "$name-app$app") Gbit/s (slowest worker);" \
			"PS: $(jq -r '"\(.full) full, \(.partial) partial (fallback share \(.fallback_share)), \(.collisions) collisions, \(.reassigned) new aggregators, \(.resends) resends, \(.acks) ACKs"' \
				"$ISW_TMP/$name-app$app.ps.json")"
	done
	isw_ctl --json atp app show | jq -c '.counters[] | {app, pkts, aggregated, completions, collisions, resends, flushes, overflow, to_ps, acks, freed, drops}' |
		sed "s/^/$name switch: /"
}

isw_topo_create 10
isw_switch_start "$build" --pipeline atp ${ATP_SWITCH_ARGS:-} || isw_fail "inswitch did not start"
echo "inswitch runs on $ISW_DRIVER ports"
isw_ctl atp pool resize 256 >/dev/null || isw_fail "atp pool resize"
isw_ctl atp app add 1 workers 4 ports 0,1,2,3 ps 4 >/dev/null || isw_fail "atp app add 1"
isw_ctl atp app add 2 workers 4 ports 5,6,7,8 ps 9 >/dev/null || isw_fail "atp app add 2"
# Attaching XDP resets the links: give them time to come back (ATP frames are not routed, so
# there is nothing to ping through the atp pipeline).
sleep 2

case_a() {
	# AF_XDP on the hosts where the switch has it (the same kernel support), else the default
	TRANSPORT=auto
	[ "$ISW_DRIVER" = net_af_xdp ] && TRANSPORT=xdp
	both a1 --count "${ATP_COUNT:-8Mi}" --type int32 --check
	TRANSPORT=auto
	summary a1
	both a2 --count 2Mi --type float32 --check
	summary a2
}

case_b() {
	isw_faults on ${ATP_FAULTS:-drop 1 dup 1}
	TRANSPORT=socket both b --count 8Mi --type int32 --check --timeout-ms 10
	summary b
	echo "b: faults on port 0: $(isw_ctl --json port show 0 |
		jq -c '.fault | {rx: (.rx | {dropped, duplicated}), tx: (.tx | {dropped, duplicated})}')"
	isw_faults off
}

# queue_json: the PS port's egress queue counters, one line.
queue_json() {
	isw_ctl --json port show 4 | jq -c '.egress_queue | {max_depth, ecn_marked, queue_drops}'
}

case_c() {
	local rate=${ATP_ECN_RATE:-20m} name r q
	for name in c-plain c-cc; do
		# Fresh counters and an empty queue for each run: the limit off and on again.
		isw_ctl port rate 4 off >/dev/null
		isw_ctl stats reset >/dev/null
		isw_ctl port rate 4 "$rate" queue 512 ecn 32 >/dev/null || isw_fail "port rate"
		if [ $name = c-cc ]; then
			run_app $name 1 "1 2 3 4" 5 --count 1Mi --type int32 --check --cc ||
				isw_fail "$name"
		else
			run_app $name 1 "1 2 3 4" 5 --count 1Mi --type int32 --check ||
				isw_fail "$name"
		fi
		q=$(queue_json)
		echo "$name: PS port 4 limited to $rate, queue 512, ECN above 32: $q"
		[ "$(jq -r .ecn_marked <<<"$q")" -gt 0 ] || isw_fail "c: $name: the switch marked nothing"
		for r in 0 1 2 3; do
			jq -c '{id, window, ecn_acks, min_cwnd, mean_cwnd, goodput_gbps, resends, timeouts}' \
				"$ISW_TMP/$name.$r.json" | sed "s/^/$name: /"
		done
	done
	isw_ctl port rate 4 off >/dev/null
	# The PS echoed the marks, and every --cc worker backed off below its window.
	jq -s -e 'all(.ecn_acks > 0 and .min_cwnd < .window and .mean_cwnd < .window)' "$ISW_TMP"/c-cc.[0-9].json >/dev/null ||
		isw_fail "c: a --cc worker saw no ECN ACK or never shrank its window"
	jq -s -e 'all(.ecn_acks > 0)' "$ISW_TMP"/c-plain.[0-9].json >/dev/null ||
		isw_fail "c: ECN did not reach the workers without --cc either"
}

# pkts APP: the app's frames that passed the switch's checks so far.
pkts() { isw_ctl --json atp app show "$1" | jq '.counters[0].pkts'; }

# worker_bg NAME HOST ID [options...]: one worker of app 1 in the background, its pid in $!.
worker_bg() {
	local name=$1 h=$2 id=$3
	shift 3
	# ip netns exec directly (not the isw_ns function), so $! is the worker itself.
	ip netns exec "${ISW_TAG}h$h" "$worker" --id "$id" --workers 4 --app 1 --dev eth0 $COMMON \
		--json --quiet "$@" >"$ISW_TMP/$name.$id.json" 2>"$ISW_TMP/$name.$id.err" &
	ISW_STOP_PIDS+=($!) # stopped by isw_cleanup if the case fails before it waits
}

# ps_bg NAME: app 1's PS on h5 in the background, its pid in $!.
ps_bg() {
	ip netns exec "${ISW_TAG}h5" "$ps" --app 1 --dev eth0 --workers 4 $COMMON --json \
		>"$ISW_TMP/$1.ps.json" 2>"$ISW_TMP/$1.ps.err" &
	ISW_STOP_PIDS+=($!)
}

# leftover NAME: a job of app 1 (its PS and 4 workers) SIGKILLed while its frames flow: its
# claims stay held. Prints the pool's view.
leftover() {
	local pids=() r p0
	ps_bg "$1.leftover"
	pids+=($!)
	sleep 0.3
	p0=$(pkts 1)
	for r in 0 1 2 3; do
		worker_bg "$1.leftover" $((r + 1)) $r --count 64Mi
		pids+=($!)
	done
	for ((r = 0; r < 100; r++)); do
		[ "$(pkts 1)" -gt $((p0 + 5000)) ] && break
		sleep 0.1
	done
	kill -KILL "${pids[@]}"
	wait "${pids[@]}" 2>/dev/null || true
	echo "$1: after the SIGKILLed job: $(isw_ctl --json atp pool show | jq -c '{held, held_lapsed, oldest_held_ms, lease_ms}')"
	[ "$(isw_ctl --json atp pool show | jq .held)" -gt 0 ] || isw_fail "$1: the dead job left nothing held"
}

case_d() {
	local before
	leftover d1
	before=$(isw_ctl --json atp app show 1 | jq '.counters[0].lapsed')
	W0_LAST=0.5 run_app d1 1 "1 2 3 4" 5 --count 2Mi --type int32 --check ||
		isw_fail "d1: the job after a dead one, at once, worker 0 last"
	echo "d1: exact; switch: $(isw_ctl --json atp app show 1 | jq -c '{job: .apps[0].job, jobs: .counters[0].jobs, lapsed: .counters[0].lapsed, collisions: .counters[0].collisions, resends: .counters[0].resends}')"
	leftover d2
	sleep 1.2
	echo "d2: 1.2 s later: $(isw_ctl --json atp pool show | jq -c '{held, held_lapsed, oldest_held_ms}')"
	[ "$(isw_ctl --json atp pool show | jq .held_lapsed)" -gt 0 ] || isw_fail "d2: no lapsed aggregator shows"
	before=$(isw_ctl --json atp app show 1 | jq '.counters[0].lapsed')
	run_app d2 1 "1 2 3 4" 5 --count 2Mi --type int32 --check ||
		isw_fail "d2: the job after a dead one, past the lease"
	echo "d2: exact; switch: $(isw_ctl --json atp app show 1 | jq -c '.counters[0] | {collisions, lapsed, resends}')"
	[ "$(isw_ctl --json atp app show 1 | jq '.counters[0].lapsed')" -gt "$before" ] ||
		isw_fail "d2: no claim took a lapsed aggregator over"
}

# done_ok NAME ID: worker ID of NAME exited 0 with every check passed (--check included).
done_ok() {
	jq -e '.ok == true and .verified == true and .check == true' "$ISW_TMP/$1.$2.json" >/dev/null 2>&1
}

# e_run NAME: the next job's workers 0..3 (those not started yet) at once, then their verdicts.
# Fails unless all four end exact, verified end to end and by --check, in one job.
e_run() {
	local name=$1 pids=() r rc=0
	for r in 0 1 2 3; do
		[ -s "$ISW_TMP/$name.started.$r" ] && { pids+=("$(cat "$ISW_TMP/$name.started.$r")"); continue; }
		worker_bg "$name" $((r + 1)) $r --count 2Mi --check
		pids+=($!)
	done
	for r in 0 1 2 3; do
		wait "${pids[$r]}" || rc=1
		jq -c '{id, job, jobs, joins, ok, verified, checksum, check, checked_packets, resends}' "$ISW_TMP/$name.$r.json" 2>/dev/null | sed "s/^/$name: /" || true
		done_ok "$name" $r || {
			echo "$name: worker $r:" >&2
			cat "$ISW_TMP/$name.$r.err" >&2
			rc=1
		}
	done
	[ "$(jq -s 'map(.job) | unique | length' "$ISW_TMP/$name".[0-3].json)" = 1 ] || {
		echo "$name: the workers ran different jobs" >&2
		rc=1
	}
	return $rc
}

atp_job_drops() { isw_ctl --json stats show | jq '[.drops[]? | select(.reason == "atp-job") | .count] | add // 0'; }

case_e() {
	local pspid pids=() r rc=0 drops0
	drops0=$(atp_job_drops)
	ps_bg e
	pspid=$!
	sleep 0.3
	# (e1) A job whose workers 0-2 start and are killed while worker 3 has not started ...
	for r in 0 1 2; do
		worker_bg e1-dead $((r + 1)) $r --count 8Mi
		pids+=($!)
	done
	sleep 0.7
	kill -KILL "${pids[@]}"
	wait "${pids[@]}" 2>/dev/null || true
	# ... and the next job of the app at once, the same tools, no control socket.
	e_run e1 || rc=1
	if [[ " ${ATP_E_PARTS:-e1 e2} " == *" e2 "* ]]; then
		case_e2 || rc=1
	fi
	kill -TERM "$pspid" 2>/dev/null || true
	wait "$pspid" || true
	jq -c '{rx, joins, announces, jobs, other_job, fallback_share}' "$ISW_TMP/e.ps.json" 2>/dev/null | sed "s/^/e PS: /" || true
	echo "e: switch: $(isw_ctl --json atp app show 1 | jq -c '{job: .apps[0].job, jobs: .counters[0].jobs, joins: .counters[0].joins, announces: .counters[0].announces, lapsed: .counters[0].lapsed, drops: .counters[0].drops}'), atp-job drops: $(($(atp_job_drops) - drops0))"
	[ "$rc" = 0 ] || isw_fail "e: the next job after a job's workers 0-2 were killed before its worker 3 started"
}

case_e2() {
	local pids=() r jobs0
	# (e2) The same, but the next job's worker 3 JOINs while the dead job's workers still count:
	# they are deaf (the switch drops what it sends to their ports), so a job forms with them
	# and worker 3 sends in it, alone; then they die and the next job's workers 0-2 start.
	pids=()
	for r in 0 1 2; do
		isw_ctl port fault $r tx drop 100 >/dev/null
		worker_bg e2-dead $((r + 1)) $r --count 8Mi
		pids+=($!)
	done
	sleep 0.5
	jobs0=$(isw_ctl --json atp app show 1 | jq '.counters[0].jobs // 0')
	worker_bg e2 4 3 --count 2Mi --check
	echo $! >"$ISW_TMP/e2.started.3"
	for ((r = 0; r < 100; r++)); do
		[ "$(isw_ctl --json atp app show 1 | jq '.counters[0].jobs // 0')" -gt "$jobs0" ] && break
		sleep 0.05
	done
	kill -KILL "${pids[@]}"
	wait "${pids[@]}" 2>/dev/null || true
	for r in 0 1 2; do isw_ctl port fault $r tx off >/dev/null; done
	e_run e2 || return 1
	# a job formed with the deaf workers, and worker 3 followed the next one
	[ "$(jq .jobs "$ISW_TMP/e2.3.json")" -ge 2 ] || {
		echo "e2: worker 3 never ran in a job with the dead workers" >&2
		return 1
	}
}

case_f() {
	local pspid pids=() r delay ok=0 failed=0
	ps_bg f1
	pspid=$!
	sleep 0.3
	for r in 0 1 2 3; do
		worker_bg f $((r + 1)) $r --count 16Mi --check --give-up-s 5
		pids+=($!)
	done
	# the PS dies at a random point of the job (its frames flowing), and a new one starts
	delay=$(awk -v s=$RANDOM 'BEGIN { srand(s); printf "%.2f", 0.3 + rand() * 1.5 }')
	sleep "$delay"
	kill -KILL "$pspid"
	wait "$pspid" 2>/dev/null || true
	ps_bg f2
	pspid=$!
	for r in 0 1 2 3; do
		if wait "${pids[$r]}"; then
			# a success is a verified, exact result
			done_ok f $r || isw_fail "f: worker $r exited 0 without a verified result: $(cat "$ISW_TMP/f.$r.json")"
			ok=$((ok + 1))
		else
			# a failure names its cause, and is never a wrong result taken for right
			grep -Eq 'no ACK|result check failed|superseded|no job' "$ISW_TMP/f.$r.err" ||
				isw_fail "f: worker $r failed without naming the cause: $(cat "$ISW_TMP/f.$r.err")"
			echo "f: worker $r failed: $(grep -Eo '(no ACK|result check failed|superseded|no job)[^;]*' "$ISW_TMP/f.$r.err" | head -1)"
			failed=$((failed + 1))
		fi
		jq -e '.check == false' "$ISW_TMP/f.$r.json" >/dev/null 2>&1 && jq -e '.ok == true' "$ISW_TMP/f.$r.json" >/dev/null 2>&1 &&
			isw_fail "f: worker $r reported a wrong result as right"
	done
	kill -TERM "$pspid" 2>/dev/null || true
	wait "$pspid" || true
	echo "f: PS killed after $delay s and started again: $ok workers exact and verified, $failed failed naming the cause; new PS: $(jq -c '{rx, joins, jobs, reacks, acks}' "$ISW_TMP/f2.ps.json" 2>/dev/null)"
	grep -h "atp-ps: app" "$ISW_TMP/f2.ps.err" | sed "s/^/f: /" || true
}

# shellcheck disable=SC2086 # the list of cases
isw_cases ${ATP_CASES:-a b c d e f}
isw_cases_ran
echo "PASS"
