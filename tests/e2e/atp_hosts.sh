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
#   (d) job lifetimes: a job that never completes (it declares 32 workers, one sends, and it is
#       SIGKILLed) leaves app 1's aggregators held; the next job of app 1, with the same seqs,
#       must be exact: (d1) at once, every worker with --ctl (the job's start on the switch:
#       worker 0 frees the app's aggregators and names the job, the others wait for the name),
#       workers 1..3 started first and worker 0 0.5 s later, the switch seeing no frame of the
#       app before worker 0's; (d2) without the control socket, started after the aggregator
#       lease (1 s): the lapsed claims are taken over. The held aggregators and their age show
#       first.
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
	# CTL=1: every worker with the control socket (the job's start: worker 0 resets the app and
	# names the job, the others wait for the name). W0_LAST=S: worker 0 starts S s after the
	# others, and the switch must see no frame of the app meanwhile.
	local ctl=() pkts0
	[ "${CTL:-0}" = 1 ] && ctl=(--ctl "$ISW_CTL_SOCK")
	pkts0=$(isw_ctl --json atp app show "$app" | jq '.counters[0].pkts')
	for r in "${!hosts[@]}"; do
		[ "$r" = 0 ] && [ -n "${W0_LAST:-}" ] && continue
		isw_ns "${hosts[$r]}" "$worker" --id "$r" --workers 4 --app "$app" --dev eth0 \
			$COMMON --transport "${TRANSPORT:-auto}" --json --quiet "${ctl[@]}" "$@" \
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
			$COMMON --transport "${TRANSPORT:-auto}" --json --quiet "${ctl[@]}" "$@" \
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
		jq -c '{id, transport, type, elems, seconds, goodput_gbps, resends, timeouts, collision_acks, overflow_packets, verified}' \
			"$ISW_TMP/$name.$r.json" 2>/dev/null | sed "s/^/$name: /" || true
	done
	jq -c '{rx, full, partial, collisions, overflow, resends, dups, acks, reacks, reassigned, seqs_full, seqs_merged, fallback_share}' \
		"$ISW_TMP/$name.ps.json" 2>/dev/null | sed "s/^/$name PS: /" || true
	[ "$rc" -eq 0 ] || return 1
	for r in "${!hosts[@]}"; do
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
	run_app "$name-app1" 1 "1 2 3 4" 5 --job 1 "$@" &
	p1=$!
	run_app "$name-app2" 2 "6 7 8 9" 10 --job 2 "$@" &
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
			run_app $name 1 "1 2 3 4" 5 --job 3 --count 1Mi --type int32 --check --cc ||
				isw_fail "$name"
		else
			run_app $name 1 "1 2 3 4" 5 --job 3 --count 1Mi --type int32 --check ||
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

# leftover NAME: a job of app 1 that declares 32 workers, sends its first windows from h1 (one
# worker, never resending) and is SIGKILLed: its claims stay held. Prints the pool's view.
leftover() {
	local pid
	ip netns exec "${ISW_TAG}h1" "$worker" --id 5 --workers 32 --app 1 --dev eth0 $COMMON \
		--count 1Mi --timeout-ms 60000 --give-up-s 60 --job 9 --quiet \
		>/dev/null 2>"$ISW_TMP/$1.leftover.err" &
	pid=$!
	sleep 1
	kill -KILL $pid
	wait $pid 2>/dev/null || true
	echo "$1: after the SIGKILLed job: $(isw_ctl --json atp pool show | jq -c '{held, held_lapsed, oldest_held_ms, lease_ms}')"
	[ "$(isw_ctl --json atp pool show | jq .held)" -gt 0 ] || isw_fail "$1: the dead job left nothing held"
}

case_d() {
	leftover d1
	CTL=1 W0_LAST=0.5 run_app d1 1 "1 2 3 4" 5 --job 9 --count 2Mi --type int32 --check ||
		isw_fail "d1: the job after a dead one, started on the switch (--ctl), worker 0 last"
	grep -h "job 9 started" "$ISW_TMP"/d1.[0-3].err | sed "s/^/d1: /"
	echo "d1: exact; switch: $(isw_ctl --json atp app show 1 | jq -c '.counters[0] | {collisions, lapsed, resends}')"
	leftover d2
	sleep 1.2
	echo "d2: 1.2 s later: $(isw_ctl --json atp pool show | jq -c '{held, held_lapsed, oldest_held_ms}')"
	[ "$(isw_ctl --json atp pool show | jq .held_lapsed)" -gt 0 ] || isw_fail "d2: no lapsed aggregator shows"
	local before
	before=$(isw_ctl --json atp app show 1 | jq '.counters[0].lapsed')
	run_app d2 1 "1 2 3 4" 5 --job 9 --count 2Mi --type int32 --check ||
		isw_fail "d2: the job after a dead one, past the lease"
	echo "d2: exact; switch: $(isw_ctl --json atp app show 1 | jq -c '.counters[0] | {collisions, lapsed, resends}')"
	[ "$(isw_ctl --json atp app show 1 | jq '.counters[0].lapsed')" -gt "$before" ] ||
		isw_fail "d2: no claim took a lapsed aggregator over"
}

# shellcheck disable=SC2086 # the list of cases
isw_cases ${ATP_CASES:-a b c d}
isw_cases_ran
echo "PASS"
