#!/usr/bin/env bash
# End to end: inswitch one-armed on a NIC it shares with the kernel (docs/deploy.md, One-armed).
# A server namespace has one NIC (eth0, the kernel's 10.99.0.200) on the uplink of a ToR
# bridge; six hosts behind the ToR (tests/e2e/lib.sh, isw_one_armed_create).
# inswitch runs in the server on net_af_xdp with --xdp-shared eth0 and the three aggregation
# pipelines, so its XDP program hands it only their frames and the switch's own addresses.
#   (a) the kernel keeps its traffic: h6 holds one TCP session to the server's own address
#       (tests/e2e/tcp_stream.py) from before the jobs start until after they end; every byte
#       arrives in order on that one connection, and the program passed it to the kernel
#   (b) at the same time, through the one port: SyncAgtr (4 workers h1-h4, 4 Mi int32, results
#       multicast back out of the ingress port, one copy per worker), ATP (the same 4 workers,
#       2 Mi int32, its PS on h5 behind the same port) and an ASK WordCount (senders h1-h4, the
#       receiver h6): every result exact
#   (c) a crash: inswitch SIGKILLed leaves its program on the NIC; the kernel's address still
#       answers (the program passes what no socket takes); the next start removes the stale
#       program, says so, and a SyncAgtr job through it is exact; a normal stop detaches it
#   one_armed.sh BUILD_DIR
set -euo pipefail
build=$(cd "$1" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
source "$here/lib.sh"
isw_need_root
trap isw_cleanup EXIT

sa=$build/hosts/syncagtr/syncagtr-worker
atpw=$build/hosts/atp/atp-worker
atpps=$build/hosts/atp/atp-ps
isw_need_tools "$sa" "$atpw" "$atpps" "$build/hosts/ask/ask-sender" \
	"$build/hosts/ask/ask-receiver" "$build/hosts/ask/ask-count"
SRV=10.99.0.200
SRV_MAC=02:00:00:00:00:c8
SA_IP=10.99.0.254
ASK_IP=10.99.0.252
ATP_OPTS=(--threads 2 --window 64 --pool 256)

isw_one_armed_create 6
start() {
	# One-armed needs inswitch's own XDP program, so AF_XDP only.
	ISW_DRIVERS=net_af_xdp isw_switch_start "$build" --xdp-shared eth0 --profile unlimited \
		--pipeline syncagtr --pipeline atp --pipeline ask || isw_fail "inswitch did not start"
	# The switch answers for its addresses with the NIC's own MAC, as it would on a real NIC
	# left out of promiscuous mode.
	isw_ctl syncagtr switch mac $SRV_MAC >/dev/null
	isw_ctl syncagtr session add 1 ip $SA_IP workers 4 >/dev/null
	isw_ctl ask config set ip $ASK_IP mac $SRV_MAC >/dev/null
	isw_ctl atp pool resize 256 >/dev/null
	isw_ctl atp app add 1 workers 4 ports 0 ps 0 >/dev/null || isw_fail "atp app add"
}
start
xdp_json() { isw_ctl --json port xdp | jq -c '.ports[0]'; }
x=$(xdp_json)
echo "port xdp: $x"
[ "$(jq -r .mode <<<"$x")" = shared ] || isw_fail "the port is not shared with the kernel"
jq -e '(.addresses | sort) == ["10.99.0.252", "10.99.0.254"] and .ethertypes == ["0x0700"]' \
	<<<"$x" >/dev/null || isw_fail "the program does not take the pipelines' addresses: $x"
for i in 1 2 3 4 5 6; do
	isw_wait_path $i $SRV || isw_fail "h$i does not reach the server's kernel"
done
isw_wait_path 1 $SA_IP || isw_fail "h1 does not reach the switch's SyncAgtr address"

# ---- (a) a TCP session to the server's kernel, held across the jobs ----
# ip netns exec execs: $! is the process itself, for the cleanup's kill.
ip netns exec "${ISW_TAG}srv" /usr/bin/python3 "$here/tcp_stream.py" serve $SRV 5001 \
	"$ISW_TMP/tcp.srv" &
tcp_srv=$!
for _ in $(seq 50); do
	isw_srv ss -ltn | grep -q ':5001' && break
	sleep 0.1
done
ip netns exec "${ISW_TAG}h6" /usr/bin/python3 "$here/tcp_stream.py" send $SRV 5001 \
	"$ISW_TMP/tcp.stop" >"$ISW_TMP/tcp.cli" &
tcp_cli=$!
ISW_STOP_PIDS+=("$tcp_srv" "$tcp_cli")
sleep 1

# ---- (b) three jobs at once ----
syncagtr_job() {
	local name=$1 r pids=() rc=0
	for r in 0 1 2 3; do
		isw_ns $((r + 1)) "$sa" --rank $r --workers 4 --switch-ip $SA_IP --ctl "$ISW_CTL_SOCK" \
			--session 1 --attach 0 --count "$2" --type int32 --check --json --quiet \
			>"$ISW_TMP/$name.$r.json" 2>"$ISW_TMP/$name.$r.err" &
		pids+=($!)
	done
	for r in 0 1 2 3; do
		wait "${pids[$r]}" || {
			echo "$name: rank $r failed: $(cat "$ISW_TMP/$name.$r.err")" >&2
			rc=1
		}
	done
	[ $rc = 0 ] && jq -s -e 'length == 4 and all(.verified == true)' \
		"$ISW_TMP/$name".[0-3].json >/dev/null
}

atp_job() {
	local r pids=() rc=0 pspid
	ip netns exec "${ISW_TAG}h5" "$atpps" --app 1 --dev eth0 --workers 4 "${ATP_OPTS[@]}" \
		--json --quiet >"$ISW_TMP/atp.ps.json" 2>"$ISW_TMP/atp.ps.err" &
	pspid=$!
	sleep 0.3
	for r in 0 1 2 3; do
		isw_ns $((r + 1)) "$atpw" --id $r --workers 4 --app 1 --dev eth0 "${ATP_OPTS[@]}" \
			--count 2Mi --type int32 --check --json --quiet \
			>"$ISW_TMP/atp.$r.json" 2>"$ISW_TMP/atp.$r.err" &
		pids+=($!)
	done
	for r in 0 1 2 3; do
		wait "${pids[$r]}" || {
			echo "atp: worker $r failed: $(cat "$ISW_TMP/atp.$r.err")" >&2
			rc=1
		}
	done
	kill -TERM $pspid 2>/dev/null || true
	wait $pspid || rc=1
	[ $rc = 0 ] && jq -s -e 'length == 4 and all(.verified == true)' \
		"$ISW_TMP"/atp.[0-3].json >/dev/null
}

# A text of 300 k words over a skewed vocabulary of 20 k (awk's generator, fixed seed).
awk 'BEGIN { srand(7); for (i = 0; i < 300000; i++) printf "w%d%s", int(rand() ^ 3 * 20000),
	(i % 16 == 15) ? "\n" : " " }' >"$ISW_TMP/text"
ask_job() {
	isw_ctl ask task del 1 >/dev/null 2>&1 || true
	isw_ctl ask task add 1 receiver "02:00:00:00:00:06,10.99.0.6,42405,0" channels 4 \
		window 64 slots 16 key-bytes 16 op add aa-size 2048 senders 0 >/dev/null
	"$here/../../hosts/ask/ask-wordcount" --build "$build/hosts/ask" \
		--receiver-ns "${ISW_TAG}h6" --receiver-ip 10.99.0.6 --switch-ip $ASK_IP \
		--data-to $ASK_IP \
		--senders "${ISW_TAG}h1,${ISW_TAG}h2,${ISW_TAG}h3,${ISW_TAG}h4" \
		--input "$ISW_TMP/text" --slots 16 --key-bytes 16 --aa-size 2048 --window 64 \
		--swap-threshold 2000 --timeout-s 120 >"$ISW_TMP/ask.out" 2>&1 &&
		grep -q "result verified" "$ISW_TMP/ask.out"
}

t0=$(date +%s.%N)
syncagtr_job sa 4Mi &
p_sa=$!
atp_job &
p_atp=$!
ask_job &
p_ask=$!
rc=0
wait $p_sa || { echo "b: SyncAgtr failed" >&2; rc=1; }
wait $p_atp || { echo "b: ATP failed" >&2; rc=1; }
wait $p_ask || { echo "b: ASK failed:" >&2; tail -n 20 "$ISW_TMP/ask.out" >&2; rc=1; }
[ $rc = 0 ] || isw_fail "b: a job through the one-armed switch failed"
t1=$(date +%s.%N)
echo "b: SyncAgtr, ATP and ASK jobs at once, all exact, in $(awk -v a="$t0" -v b="$t1" \
	'BEGIN { printf "%.1f", b - a }') s"
jq -s -c '{goodput_gbps: (map(.goodput_gbps) | min), transport: (map(.transport) | unique),
	retransmits: (map(.retransmits) | add)}' "$ISW_TMP"/sa.[0-3].json | sed 's/^/b: SyncAgtr /'
jq -s -c '{goodput_gbps: (map(.goodput_gbps) | min), transport: (map(.transport) | unique)}' \
	"$ISW_TMP"/atp.[0-3].json | sed 's/^/b: ATP /'
jq -c '{full, partial, acks}' "$ISW_TMP/atp.ps.json" | sed 's/^/b: ATP PS /'
echo "b: ASK $(grep -v '^$' "$ISW_TMP/ask.out" | tail -n 3 | tr '\n' ' ')"
echo "b: switch SyncAgtr session 1: $(isw_ctl --json syncagtr session show 1 |
	jq -c '.counters[0] | {pkts, completions, retransmits}')"
echo "b: switch ATP app 1: $(isw_ctl --json atp app show 1 |
	jq -c '.counters[0] | {pkts, aggregated, completions, to_ps, acks}')"
echo "b: switch ASK task 1: $(isw_ctl --json ask task show 1 | jq -c '.counters[0] | {absorbed, swaps, fetched}')"

# ---- (a) the TCP session, checked once the jobs are done ----
touch "$ISW_TMP/tcp.stop"
wait $tcp_cli || isw_fail "a: the TCP client failed (session lost?)"
wait $tcp_srv || isw_fail "a: the TCP server failed"
read -r conns sbytes ssum <"$ISW_TMP/tcp.srv"
read -r cbytes csum <"$ISW_TMP/tcp.cli"
echo "a: TCP to the server's kernel: $cbytes bytes sent on $conns connection(s), $sbytes received"
[ "$conns" = 1 ] || isw_fail "a: the session was re-established ($conns connections)"
[ "$sbytes" = "$cbytes" ] && [ "$ssum" = "$csum" ] || isw_fail "a: the stream arrived altered"
[ "$cbytes" -ge $((8 * 65536)) ] || isw_fail "a: the session carried too little to mean anything"
x=$(xdp_json)
echo "a: port xdp: $(jq -c '{to_switch, to_kernel, no_socket}' <<<"$x")"
[ "$(jq .to_kernel <<<"$x")" -ge $((cbytes / 65536)) ] || isw_fail "a: the kernel got too few frames"
[ "$(jq .no_socket <<<"$x")" = 0 ] || isw_fail "a: frames of the switch found no socket"
[ "$(jq .to_switch <<<"$x")" -gt 0 ] || isw_fail "a: the switch got nothing"
ISW_CASES_DONE=$((ISW_CASES_DONE + 2))

# ---- (c) a crash, and the next start ----
kill -KILL "$ISW_PID"
wait "$ISW_PID" 2>/dev/null || true
ISW_PID=""
isw_srv ip link show eth0 | grep -q 'prog/xdp' || isw_fail "c: no program left after the crash?"
isw_ns 2 ping -c 2 -W 1 $SRV >/dev/null || isw_fail "c: the kernel's address is lost after a crash"
start
grep -q "removed the XDP program" "$ISW_LOG" || isw_fail "c: the stale program was not replaced"
echo "c: $(grep "removed the XDP program" "$ISW_LOG")"
isw_wait_path 1 $SA_IP || isw_fail "c: h1 does not reach the switch after the restart"
syncagtr_job sa2 1Mi || isw_fail "c: SyncAgtr after the restart"
isw_switch_stop
! isw_srv ip link show eth0 | grep -q 'prog/xdp' || isw_fail "c: a normal stop left the program"
echo "c: after a normal stop the NIC has no XDP program"
ISW_CASES_DONE=$((ISW_CASES_DONE + 1))
isw_cases_ran "a b c"
echo PASS
