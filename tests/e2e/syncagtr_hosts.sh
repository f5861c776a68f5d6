#!/usr/bin/env bash
# End to end: SyncAgtr allreduce between hosts in network namespaces through inswitch
# (--pipeline syncagtr on net_af_xdp, or net_af_packet where AF_XDP is unavailable). The workers
# (hosts/syncagtr/syncagtr-worker) register themselves over the control socket and check their
# results against the sum every rank's seed implies.
#   (w) an untimed warm-up (1 Mi int32)
#   (a) 4 workers, 16 Mi int32, exact, on kernel UDP sockets (--transport socket; the warm-up
#       too), window 64: on loss-free links the counters add up (every packet reached the
#       switch, every round completed once, every resend recognised and answered or dropped
#       as pending) and nothing was dropped for any other reason. Whether a timer fired is
#       timing, not behaviour: bench/resends.sh counts the resends
#   (x) as (a) with the workers on AF_XDP (--transport xdp, where the switch has AF_XDP): exact;
#       the packets the switch counts as retransmissions are reported, not bounded (see
#       hosts/README.md, The transport)
#   (b)..(g) on the workers' default transport (auto: AF_XDP where the switch has it; where two
#       workers share a host in (d), the second falls back to sockets)
#   (b) 4 workers, 16 Mi float32, within the quantisation bound
#   (c) 4 workers with 1% drop, 1% duplication and 1% reordering in both directions of every
#       switch port (inswitch fault injection) plus 1% drop on every host's egress (nftables,
#       which only frames sent through the kernel pass): 4 Mi int32 on the default transport
#       and 2 Mi float32 on sockets (smaller, so the case fits the time budget)
#   (d) two sessions at once (10.99.0.254: h1 h2 h3; 10.99.0.253: h3 h4 h5, so h3 is in both)
#   (e) 6 jobs in one run (--repeat), small tensors and 64-value packets: sets keep alternating
#       across jobs
#   (f) a reset while ranks start: after a job left its slots dirty (a float32 run of a
#       different size), ranks 1..3 start first and wait at the rendezvous; rank 0 comes 1 s
#       later with --reset, a new job epoch: the others register again and all start after
#       the reset; exact
#   (g) a SIGKILLed job followed by a new one: four workers killed mid-job leave dirty slots and
#       their registrations; the new job's ranks 1..3 start at once, rank 0 1 s later with
#       --reset: the dead registrations are not live, nobody starts before the reset; exact
#   (h) issue 25: runs with --no-barrier and without --reset (rank 0 starting a new epoch is
#       the tools' default now), checked end to end and against the tensors: after a complete
#       4 Mi run (with the tools of a1619c1 its last window is on set 0 of every slot, where
#       the next run's first window goes: they took its sums for 131,072 of 4,194,304
#       elements, and exited 0 without --check) and after a job SIGKILLed mid-job (those
#       tools: a hang or wrong sums): exact; then after another killed job, --no-barrier --no-reset: every rank
#       refuses before it registers, naming the other run's state, and nothing reaches the
#       switch
#   (i) workers registered by hand, running without --ctl: after 'session reset 1
#       keep-workers', exact; after a plain 'session reset 1' every rank gives up (its packets
#       are sa-epoch drops, counted) naming the registration, never a wrong result; registered
#       again with the same 'worker add' lines, exact
#   syncagtr_hosts.sh BUILD_DIR        (SA_CASES="a c" runs only those cases)
set -euo pipefail
build=$(cd "$1" && pwd)
source "$(dirname "$0")/lib.sh"
isw_need_root
trap isw_cleanup EXIT

worker=$build/hosts/syncagtr/syncagtr-worker
# Worker options for the lossy case: a longer guard (see case_c).
LOSSY=${SA_LOSSY:---timeout-ms 10 --guard-ms 10}
isw_need_tools "$worker"

# run_workers NAME SESSION SWITCH_IP "HOSTS" [worker options...]: rank r runs on the r-th host
# of HOSTS; all in parallel; fails unless every one exits 0 (which, with --check, means its
# result verified). Prints each rank's JSON summary line. With RANK0_FIRST=1, rank 0 starts
# alone and the others once it is registered (after its --reset, see case_e); with
# RANK0_LAST=S, rank 0 starts S seconds after the others (case_f).
run_workers() {
	local name=$1 sess=$2 ip=$3 hosts=($4) pids=() r rc=0 h k
	shift 4
	for r in "${!hosts[@]}"; do
		h=${hosts[$r]}
		[ "$r" = 0 ] && [ -n "${RANK0_LAST:-}" ] && continue
		isw_ns "$h" "$worker" --rank "$r" --workers "${#hosts[@]}" --switch-ip "$ip" \
			--ctl "$ISW_CTL_SOCK" --session "$sess" --json --quiet "$@" \
			>"$ISW_TMP/$name.$r.json" 2>"$ISW_TMP/$name.$r.err" &
		pids+=($!)
		if [ "$r" = 0 ] && [ "${RANK0_FIRST:-0}" = 1 ]; then
			for ((k = 0; k < 100; k++)); do
				isw_ctl --json syncagtr session show "$sess" 2>/dev/null |
					jq -e '.members | any(.rank == 0)' >/dev/null && break
				sleep 0.1
			done
		fi
	done
	if [ -n "${RANK0_LAST:-}" ]; then
		sleep "$RANK0_LAST"
		isw_ns "${hosts[0]}" "$worker" --rank 0 --workers "${#hosts[@]}" --switch-ip "$ip" \
			--ctl "$ISW_CTL_SOCK" --session "$sess" --json --quiet "$@" \
			>"$ISW_TMP/$name.0.json" 2>"$ISW_TMP/$name.0.err" &
		pids=($! "${pids[@]}")
	fi
	for r in "${!pids[@]}"; do
		if ! wait "${pids[$r]}"; then
			echo "$name: rank $r failed:" >&2
			cat "$ISW_TMP/$name.$r.err" >&2
			rc=1
		fi
	done
	for r in "${!hosts[@]}"; do
		jq -c '{rank, type, elems, seconds, goodput_gbps, retransmits, duplicates, srtt_ms, barrier_seconds, verified}' \
			"$ISW_TMP/$name.$r.json" 2>/dev/null | sed "s/^/$name: /"
	done
	[ "$rc" -eq 0 ] || return 1
	for r in "${!hosts[@]}"; do
		[ "$(jq -r .verified "$ISW_TMP/$name.$r.json")" = true ] || return 1
	done
}

# The goodput of a case: the slowest rank's, in Gbit/s.
goodput() {
	cat "$ISW_TMP/$1".*.json | jq -s 'map(.goodput_gbps) | min'
}

isw_topo_create 5
isw_switch_start "$build" --pipeline syncagtr || isw_fail "inswitch did not start"
echo "inswitch runs on $ISW_DRIVER ports"
# The cabling, as an operator writes it down: the workers register with "port l2" (their
# default --attach), so each is in its session's group before its first packet.
isw_l2_static || isw_fail "l2 add"
# Five AF_XDP attachments reset five links: allow them twice the usual time.
isw_wait_path 1 10.99.0.5 || isw_wait_path 1 10.99.0.5 || isw_fail "h1 never reached h5"

S1=10.99.0.254
S2=10.99.0.253

# Untimed warm-up: the first allreduce after the switch starts runs at a fraction of the speed
# (first touch of its memory without hugepages), which says nothing about the cases.
case_w() {
	run_workers w 1 $S1 "1 2 3 4" --count 1Mi --check --transport socket --window 64 >/dev/null ||
		isw_fail "warm-up allreduce"
	# (a) makes it again at its size; the others at theirs
	isw_ctl syncagtr session del 1 >/dev/null
}

# (a) int32, exact. Nothing is lost on these links, and every worker was in the session's group
# before its first packet (port l2) and started after all had registered. What the protocol
# guarantees then, whatever the timers do on a loaded host (how often they fire is a timing
# figure: bench/resends.sh): every result exact; every frame a worker sent reached the switch
# (session pkts = the workers' frames: the start barrier's 4 x 64 a worker, the job's packets,
# resends included); every round completed once (completions = each worker's first sends, the
# same for all four, plus its barrier's); every resend recognised as one (switch retransmits =
# the workers' resends, the barrier's included), each either dropped as pending
# (sa-retx-pending: its slot still waited for another worker) or answered from the shadow copy
# (a duplicate result at the worker; one whose answer came after its thread finished is not
# counted, hence at most); and no drop of any other reason (no-group, ...) since the switch
# started, the warm-up included.
case_a() {
	local c drops retx frames first dups bretx bar=$((4 * 4 * 64))
	isw_ctl syncagtr session reset 1 >/dev/null 2>&1 || true
	run_workers a 1 $S1 "1 2 3 4" --count 16Mi --type int32 --check --transport socket --window 64 ||
		isw_fail "(a) int32 allreduce"
	echo "(a) 4 workers, 16 Mi int32: verified, goodput $(goodput a) Gbit/s"
	c=$(isw_ctl --json syncagtr session show 1 | jq -c '.counters[0]')
	drops=$(isw_ctl --json stats show | jq -c '[.drops[] | {(.pipeline + "/" + .reason): .count}] | add // {}')
	retx=$(cat "$ISW_TMP"/a.*.json | jq -s 'map(.retransmits) | add')
	dups=$(cat "$ISW_TMP"/a.*.json | jq -s 'map(.duplicates) | add')
	frames=$(cat "$ISW_TMP"/a.*.json | jq -s 'map(.frames.tx) | add')
	first=$(cat "$ISW_TMP"/a.*.json | jq -s -c 'map(.packets - .retransmits + 4 * 64) | unique')
	# the barrier's resends: frames beyond its first sends and the job's packets
	bretx=$((frames - bar - $(cat "$ISW_TMP"/a.*.json | jq -s 'map(.packets) | add')))
	echo "(a) workers sent $frames frames ($retx resends in the job, of them" \
		"$(cat "$ISW_TMP"/a.*.json | jq -s 'map(.rack_resends) | add') on the order of answers;" \
		"$bretx in the barrier;" \
		"$dups duplicate results; rounds per worker $first); switch session 1:" \
		"$(echo "$c" | jq -c '{pkts, completions, retransmits, drop_retx_pending}'); drops $drops" \
		"(warm-up's resends: $(cat "$ISW_TMP"/w.*.json | jq -s 'map(.retransmits) | add'))"
	[ "$(echo "$c" | jq .pkts)" = "$frames" ] ||
		isw_fail "(a) the switch saw $(echo "$c" | jq .pkts) packets, the workers sent $frames"
	[ "$first" = "[$(echo "$c" | jq .completions)]" ] ||
		isw_fail "(a) rounds per worker $first, completions $(echo "$c" | jq .completions)"
	[ "$bretx" -ge 0 ] && [ "$(echo "$c" | jq .retransmits)" = "$((retx + bretx))" ] ||
		isw_fail "(a) the switch counted $(echo "$c" | jq .retransmits) retransmissions, the workers $retx + $bretx"
	[ "$(echo "$c" | jq ".drop_retx_pending + $dups <= $retx + $bretx")" = true ] ||
		isw_fail "(a) more answered or dropped resends ($dups + $(echo "$c" | jq .drop_retx_pending)) than resends"
	[ "$(echo "$drops" | jq -c 'del(.["syncagtr/sa-retx-pending"])')" = "{}" ] ||
		isw_fail "(a) the switch dropped packets: $drops"
	# The next cases take the default window (128): a session of their size
	isw_ctl syncagtr session del 1 >/dev/null
}

case_x() {
	local c
	[ "$ISW_DRIVER" = net_af_xdp ] || {
		echo "(x) skipped: the switch has no AF_XDP here, so neither have the hosts"
		return 0
	}
	local p0
	isw_ctl syncagtr session reset 1 >/dev/null 2>&1 || true
	# (a) deleted the session: then the workers make it, from 0 packets
	p0=$(isw_ctl --json syncagtr session show 1 2>/dev/null | jq '.counters[0].pkts // 0' || true)
	run_workers x 1 $S1 "1 2 3 4" --count 16Mi --type int32 --check --transport xdp ||
		isw_fail "(x) int32 allreduce on AF_XDP"
	[ "$(cat "$ISW_TMP"/x.*.json | jq -s -r 'map(.transport) | unique | join(",")')" = xdp ] ||
		isw_fail "(x) a worker did not use AF_XDP"
	c=$(isw_ctl --json syncagtr session show 1 | jq -c '.counters[0] | {pkts, completions, retransmits}')
	# frames the workers' sockets handed to the kernel, and those the switch's session saw
	echo "(x) 4 workers on AF_XDP, 16 Mi int32: verified, goodput $(goodput x) Gbit/s; workers" \
		"resent $(cat "$ISW_TMP"/x.*.json | jq -s 'map(.retransmits) | add'), sent" \
		"$(cat "$ISW_TMP"/x.*.json | jq -s 'map(.frames.tx) | add') frames; the switch saw" \
		"$(($(jq .pkts <<<"$c") - p0)) of them: $c"
}

# (b) float32 within the quantisation bound. A new run starts from set 0 in every slot: clear
# the slots first (no worker is running, so no barrier is needed).
case_b() {
	isw_ctl syncagtr session reset 1 >/dev/null 2>&1 || true
	run_workers b 1 $S1 "1 2 3 4" --count 16Mi --type float32 --check ||
		isw_fail "(b) float32 allreduce"
	echo "(b) 4 workers, 16 Mi float32: verified, goodput $(goodput b) Gbit/s," \
		"max |error| $(cat "$ISW_TMP"/b.*.json | jq -s 'map(.max_err) | max')"
}

# nft_loss on|off|count: 1% drop of SwitchML packets on every worker host's egress; count prints
# how many it dropped. Only the kernel's transmit path passes the egress hook: workers on AF_XDP
# send around it (hosts/README.md, The transport), and the switch's faults stay.
nft_loss() {
	local i
	for i in 1 2 3 4; do
		if [ "$1" = count ]; then
			isw_ns "$i" nft list table netdev loss 2>/dev/null | grep -o 'packets [0-9]*' || true
			continue
		fi
		if [ "$1" = off ]; then
			isw_ns "$i" nft delete table netdev loss 2>/dev/null || true
			continue
		fi
		isw_ns "$i" nft -f - <<-EOF || return 1
			table netdev loss {
				chain egress {
					type filter hook egress device eth0 priority 0;
					udp dport 48864 numgen random mod 100 < 1 counter drop
				}
			}
		EOF
	done
}

# (c) loss, duplication, reordering on every link.
case_c() {
	local nft=off retx dups
	isw_faults on drop 1 dup 1 reorder 1 depth 8
	command -v nft >/dev/null && nft_loss on && nft=on
	isw_ctl syncagtr session reset 1 >/dev/null 2>&1 || true
	run_workers c1 1 $S1 "1 2 3 4" --count 4Mi --type int32 --check $LOSSY ||
		isw_fail "(c) int32 allreduce with faults"
	isw_ctl syncagtr session reset 1 >/dev/null
	# float32 on kernel sockets, whose frames the hosts' nftables loss drops too
	run_workers c2 1 $S1 "1 2 3 4" --count 2Mi --type float32 --check $LOSSY --transport socket ||
		isw_fail "(c) float32 allreduce with faults"
	if [ $nft = on ]; then
		nft=$(nft_loss count | awk '{ n += $2 } END { print n + 0 }')
		[ "$nft" -gt 0 ] || isw_fail "(c) the hosts' nftables loss dropped nothing"
		nft="$nft dropped"
	fi
	retx=$(cat "$ISW_TMP"/c1.*.json "$ISW_TMP"/c2.*.json | jq -s 'map(.retransmits) | add')
	dups=$(cat "$ISW_TMP"/c1.*.json "$ISW_TMP"/c2.*.json | jq -s 'map(.duplicates) | add')
	echo "(c) with faults (port 0: $(isw_ctl --json port show 0 |
		jq -c '.fault | {rx: (.rx | {dropped, duplicated, reordered}), tx: (.tx | {dropped, duplicated, reordered})}');" \
		"host egress drop: $nft): 4 Mi int32 at $(goodput c1) Gbit/s," \
		"2 Mi float32 at $(goodput c2) Gbit/s, verified; $retx retransmits, $dups duplicate results"
	[ "$retx" -gt 0 ] || isw_fail "(c) no retransmission happened: the faults did not bite"
	isw_faults off
	nft_loss off
}

# (d) two sessions at once; h3 is rank 2 of session 1 and rank 0 of session 2, with its
# session-2 worker on other UDP ports. Session 1 is made again for 3 workers.
case_d() {
	local d1 d2
	isw_ctl syncagtr session del 1 >/dev/null 2>&1 || true
	run_workers d1 1 $S1 "1 2 3" --count 4Mi --type int32 --check --seed 7 &
	d1=$!
	run_workers d2 2 $S2 "3 4 5" --count 4Mi --type float32 --check --seed 8 \
		--worker-port 5000 &
	d2=$!
	wait $d1 || isw_fail "(d) session 1"
	wait $d2 || isw_fail "(d) session 2"
	echo "(d) two sessions at once: int32 on $S1 at $(goodput d1) Gbit/s," \
		"float32 on $S2 at $(goodput d2) Gbit/s, both verified"
	isw_ctl syncagtr session del 1 >/dev/null
}

# (e) several jobs in one run, with small tensors: the last job of a slice ends mid-cycle.
# Rank 0 resets the session itself (--reset) and registers; the others start after that (they
# must not send before the reset: README, "the barrier problem").
case_e() {
	RANK0_FIRST=1 run_workers e 1 $S1 "1 2 3 4" --count 100003 --elems 64 --repeat 6 --check \
		--reset || isw_fail "(e) repeated jobs"
	echo "(e) 6 jobs of 100003 int32 in one run (64-value packets, rank 0 --reset): verified"
}

case_f() {
	local e0 e1
	isw_ctl syncagtr session reset 1 >/dev/null
	run_workers f0 1 $S1 "1 2 3 4" --count 3Mi --type float32 --check >/dev/null ||
		isw_fail "(f) the job before"
	e0=$(isw_ctl --json syncagtr session show 1 | jq '.sessions[0].epoch')
	RANK0_LAST=1 run_workers f 1 $S1 "1 2 3 4" --count 1Mi --type int32 --check --reset ||
		isw_fail "(f) ranks 1..3 first, rank 0 resetting 1 s later"
	e1=$(isw_ctl --json syncagtr session show 1 | jq '.sessions[0].epoch')
	echo "(f) a reset while ranks start (rank 0 1 s after the others, --reset): verified;" \
		"session epoch $e0 -> $e1"
	[ "$e1" -gt "$e0" ] || isw_fail "(f) the session's epoch did not move"
}

# pkts: what session 1 has counted (0 while it does not exist)
pkts() {
	local n
	n=$(isw_ctl --json syncagtr session show 1 2>/dev/null | jq '.counters[0].pkts') || n=0
	echo "${n:-0}"
}

# killed_job: four workers of session 1 SIGKILLed mid-job (once their packets are flowing, past
# the barrier's 1024, and 1.5 s more): dirty slots and four registrations left behind.
killed_job() {
	local h k p0 pids=()
	p0=$(pkts)
	for h in 1 2 3 4; do
		ip netns exec "${ISW_TAG}h$h" "$worker" --rank $((h - 1)) --workers 4 --switch-ip $S1 \
			--ctl "$ISW_CTL_SOCK" --session 1 --count 32Mi --quiet >/dev/null 2>&1 &
		pids+=($!)
	done
	for ((k = 0; k < 300; k++)); do
		[ "$(pkts)" -gt $((p0 + 20000)) ] && break
		sleep 0.1
	done
	sleep 1.5
	kill -KILL "${pids[@]}" 2>/dev/null || true
	wait "${pids[@]}" 2>/dev/null || true
}

case_g() {
	killed_job
	echo "(g) after the SIGKILL: $(isw_ctl --json syncagtr session show 1 |
		jq -c '{sessions: [.sessions[0] | {registered, epoch, live}], pkts: .counters[0].pkts}')"
	RANK0_LAST=1 run_workers g 1 $S1 "1 2 3 4" --count 2Mi --type int32 --check --reset ||
		isw_fail "(g) the job after a SIGKILLed one"
	echo "(g) a SIGKILLed job, then ranks 1..3 at once and rank 0 1 s later with --reset: verified"
}

# h_run NAME: the four ranks, 4 Mi int32, --no-barrier and no reset option, checked against the
# tensors too; fails unless exact, and unless every rank ran the end-to-end check.
h_run() {
	local r
	run_workers "$1" 1 $S1 "1 2 3 4" --count 4Mi --type int32 --no-barrier --check || return 1
	for r in 0 1 2 3; do
		[ "$(jq -r .verify "$ISW_TMP/$1.$r.json")" = true ] || return 1
	done
}

case_h() {
	local r e0 e1 p0 p1 s pids=()
	run_workers h0 1 $S1 "1 2 3 4" --count 4Mi --type int32 --check >/dev/null ||
		isw_fail "(h) the complete run before"
	h_run h1 || isw_fail "(h) --no-barrier after a complete run: not exact"
	echo "(h) --no-barrier after a complete 4 Mi run: exact and verified"

	killed_job
	s=$(isw_ctl --json syncagtr session show 1)
	e0=$(jq '.sessions[0].epoch' <<<"$s")
	echo "(h) after the SIGKILL: $(jq -c '.sessions[0] | {epoch, epoch_pkts, registered}' <<<"$s")"
	# (a switch from before the epoch has no epoch_pkts: all its packets count)
	[ "$(jq '.sessions[0].epoch_pkts // .counters[0].pkts' <<<"$s")" -gt 0 ] ||
		isw_fail "(h) the killed job left no state"
	h_run h2 || isw_fail "(h) --no-barrier after a killed job: not exact"
	e1=$(isw_ctl --json syncagtr session show 1 | jq '.sessions[0].epoch')
	[ "$e1" -gt "$e0" ] || isw_fail "(h) no new epoch (epoch $e0 -> $e1)"
	echo "(h) --no-barrier after a killed job: exact and verified; epoch $e0 -> $e1"

	killed_job
	p0=$(pkts)
	for r in 0 1 2 3; do
		isw_ns $((r + 1)) "$worker" --rank $r --workers 4 --switch-ip $S1 --ctl "$ISW_CTL_SOCK" \
			--session 1 --count 4Mi --no-barrier --no-reset --check --json --quiet \
			>"$ISW_TMP/h3.$r.json" 2>"$ISW_TMP/h3.$r.err" &
		pids[r]=$!
	done
	for r in 0 1 2 3; do
		if wait "${pids[$r]}"; then
			isw_fail "(h) rank $r ran --no-barrier --no-reset on a killed job's slots"
		fi
		grep -q "holds another run's state" "$ISW_TMP/h3.$r.err" ||
			isw_fail "(h) rank $r was not refused for the other run's state: $(cat "$ISW_TMP/h3.$r.err")"
	done
	p1=$(pkts)
	[ "$p1" = "$p0" ] || isw_fail "(h) $((p1 - p0)) packets of a refused run reached the slots"
	echo "(h) then --no-barrier --no-reset after a killed job: refused by every rank:" \
		"$(head -c 300 "$ISW_TMP/h3.0.err")"
}

# hand_run NAME [options...]: the four ranks without --ctl (registered by hand), 1 Mi int32,
# checked against the tensors; the exit status of each in $ISW_TMP/NAME.R.rc
hand_run() {
	local name=$1 r pids=()
	shift
	for r in 0 1 2 3; do
		isw_ns $((r + 1)) "$worker" --rank $r --workers 4 --switch-ip $S1 --count 1Mi --check \
			--json --quiet "$@" >"$ISW_TMP/$name.$r.json" 2>"$ISW_TMP/$name.$r.err" &
		pids[r]=$!
	done
	for r in 0 1 2 3; do
		wait "${pids[$r]}" && echo 0 >"$ISW_TMP/$name.$r.rc" || echo $? >"$ISW_TMP/$name.$r.rc"
	done
}

# hand_ok NAME WHAT: every rank of hand_run NAME exited 0 with its result verified
hand_ok() {
	local r
	for r in 0 1 2 3; do
		if [ "$(cat "$ISW_TMP/$1.$r.rc")" != 0 ] ||
			[ "$(jq -r .verified "$ISW_TMP/$1.$r.json")" != true ]; then
			isw_fail "(i) $2: rank $r: $(cat "$ISW_TMP/$1.$r.err")"
		fi
	done
}

case_i() {
	local r d0 d1
	isw_ctl syncagtr session show 1 >/dev/null 2>&1 ||
		isw_ctl syncagtr session add 1 ip $S1 workers 4 slots 512 threads 4 >/dev/null
	for r in 0 1 2 3; do
		isw_ctl syncagtr worker del 1 $r >/dev/null 2>&1 || true
		isw_ctl syncagtr worker add 1 $r mac "$(printf '02:00:00:00:00:%02x' $((r + 1)))" \
			ip 10.99.0.$((r + 1)) port l2 >/dev/null || isw_fail "(i) worker add"
	done
	isw_ctl syncagtr session reset 1 keep-workers >/dev/null
	hand_run i1
	hand_ok i1 "hand-registered, after keep-workers"
	echo "(i) workers registered by hand, reset with keep-workers: exact and verified"

	isw_ctl syncagtr session reset 1 >/dev/null
	d0=$(isw_ctl --json syncagtr session show 1 | jq '.counters[0].drop_epoch')
	hand_run i2 --give-up-s 3
	for r in 0 1 2 3; do
		[ "$(cat "$ISW_TMP/i2.$r.rc")" != 0 ] ||
			isw_fail "(i) rank $r ran on a registration of an earlier epoch"
		[ "$(jq -r .verified "$ISW_TMP/i2.$r.json" 2>/dev/null)" != true ] ||
			isw_fail "(i) rank $r verified a result it cannot have"
		grep -q "registered since the session's last reset" "$ISW_TMP/i2.$r.err" ||
			isw_fail "(i) rank $r did not say why: $(cat "$ISW_TMP/i2.$r.err")"
	done
	d1=$(isw_ctl --json syncagtr session show 1 | jq '.counters[0].drop_epoch')
	[ "$d1" -gt "$d0" ] || isw_fail "(i) the switch counted no sa-epoch drop"
	echo "(i) after a plain reset, every rank gave up ($((d1 - d0)) sa-epoch drops):" \
		"$(head -c 200 "$ISW_TMP/i2.0.err")"

	for r in 0 1 2 3; do
		isw_ctl syncagtr worker add 1 $r mac "$(printf '02:00:00:00:00:%02x' $((r + 1)))" \
			ip 10.99.0.$((r + 1)) port l2 >/dev/null || isw_fail "(i) worker add again"
	done
	# the failed run left its barrier's packets in the slots: a reset that keeps the workers
	isw_ctl syncagtr session reset 1 keep-workers >/dev/null
	hand_run i3
	hand_ok i3 "registered again"
	echo "(i) registered again with the same lines: exact and verified"
	for r in 0 1 2 3; do isw_ctl syncagtr worker del 1 $r >/dev/null; done
}

# shellcheck disable=SC2086 # the list of cases
isw_cases ${SA_CASES:-w a x b c d e f g h i}
isw_cases_ran
isw_ctl syncagtr session show
echo "PASS"
