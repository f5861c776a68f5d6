#!/usr/bin/env bash
# Throughput of inswitch's pipelines on one worker lcore (bench/README.md), in one command.
#
# Builds (scripts/build.sh), writes each case's traffic to a pcap, then measures every case several
# times. Each measurement is a fresh daemon with one worker lcore and two ports:
#   port 0  net_pcap, rx_pcap=CASE.pcap, infinite_rx=1: the capture is loaded into mbufs once and
#           replayed from memory forever (no tx_pcap: net_pcap then drops what is sent to it)
#   port 1  net_null, no-rx=1: discards what the switch sends; no-rx because net_null otherwise
#           *generates* frames, which the switch would process too (doubling its work)
# The case's config sends the traffic from port 0 out of port 1.
#
# Runs are interleaved (run 1 of every case, then run 2 of every case, ...) so that drift in the
# machine's speed hits every case alike, and each case is reported as its median and its ratios to
# the passthrough (l2) median and to its own baseline's median (a passthrough of the same traffic)
# from the same invocation: on a shared, noisy machine only such ratios can be compared between
# reports. See bench/README.md.
#
# usage: bench/run.sh [--runs N] [--seconds S] [--warmup S] [--lcore N] [--only NAME[,NAME...]]
#                     [--testpmd] [--switch OPTIONS] [--build DIR]
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=""        # the build tree (--build); default build/, configured by scripts/build.sh
OUT=$ROOT/bench/out

RUNS=5          # measurements per case (--runs)
MEASURE_S=3     # measured seconds per run (--seconds)
WARMUP_S=1      # seconds between "socket answers" and "stats reset" (--warmup)
LCORE=1         # the worker lcore (--lcore)
ONLY=""         # comma-separated subset of cases (--only); their baselines and l2 are kept
SWITCH_OPTS=""  # more daemon options for every inswitch case (--switch)
WITH_TESTPMD=0  # also measure dpdk-testpmd io forwarding as a reference (--testpmd)
TREE="" CTL="" PCAPGEN="" # the build tree used ($BUILD or build/) and its tools

# Per-frame overhead on the wire that the switch's byte counters do not include: FCS (4),
# preamble + start delimiter (8), inter-frame gap (12).
WIRE_OVERHEAD=24

# ------------------------------------------------------------------------------------------------
# Cases. One add_case call each:
#
#   add_case NAME GENERATOR DAEMON_OPTS CONFIG [BASELINE]
#
#   GENERATOR    the command that writes the case's traffic; the word "pcapgen" stands for the
#                built generator, the word "{pcap}" for the file it must write and the word
#                "{cfg}" for a file of start-up commands it may write (they run after CONFIG's)
#   DAEMON_OPTS  extra inswitch options after "--" (e.g. "--pipeline NAME"); may be empty
#   CONFIG       start-up control commands (--config), separated by ";"
#   BASELINE     the case this one is compared with: a passthrough of the same traffic (the
#                targets are ratios "on the same traffic"); default the first case
#
# An aggregation case also sets CASE_ELEMS[NAME] to the elements each input frame carries: the
# report then gives its aggregated elements per second (input frames/s x elements).
#
# A case whose output is not one frame per input frame sets CASE_RATE[NAME]=in: its ratios
# (vs_l2, vs_base) then compare its *input* rate (in_Mpps) with the passthroughs' Mpps, i.e. cost
# per input frame. CASE_TX_FROM[NAME]=0 counts its output on every port (default 1: ports 1..).
#
# CASE_BIN[NAME] is the daemon a case runs, relative to the build tree (default inswitch; the
# ASK cases run bench/inswitch-bench, which adds the bench-only askstamp pipeline).
# CASE_ABSORBED[NAME] is a control command (e.g. "ask task show 1") whose JSON answer has
# .counters[0].absorbed and .tuples: read when the counters are reset and again at the end, it
# gives the case's absorbed fraction over the measured time.
#
# Traffic enters on port 0 and must leave by port 1: Mpps counts what port 1 sends. The first
# case, l2, is the passthrough every case is also compared with (ratio_to_l2). Frame sizes are
# without FCS (as pcapgen writes them and as the switch counts them).
# ------------------------------------------------------------------------------------------------
BENCH_DST=02:00:00:00:00:02 # the destination MAC of the traffic, which the config sends to port 1
FRAMES=4096                 # frames per capture, each held in an mbuf by net_pcap (see --mbufs)

define_cases() {
	add_case l2 "pcapgen bench {pcap} --size 64 --count $FRAMES --dst $BENCH_DST" \
		"" "l2 add $BENCH_DST 1"
	# 308 bytes: the frame size of SwitchML (64 elements) and ATP packets (docs/syncagtr.md,
	# docs/atp.md), so the passthrough the aggregation cases are compared with.
	add_case l2-308 "pcapgen bench {pcap} --size 308 --count $FRAMES --dst $BENCH_DST" \
		"" "l2 add $BENCH_DST 1"
	# SyncAgtr: SwitchML packets of 64 elements (308 bytes) from 8 workers of one session, slots
	# 0..255 set 0 then set 1, so the replayed capture aggregates correctly for ever (pcaps/README.md).
	# The workers are registered on port 1, so each completion's 8 replicas go out to net_null:
	# 8 frames out per 8 in. 8 x 256 x 2 = 4096 frames, as for l2 (see --mbufs below).
	add_case syncagtr \
		"pcapgen syncagtr-bench {pcap} --workers 8 --slots 256 --elems 64 --config {cfg}" \
		"--pipeline syncagtr" "" l2-308
	CASE_ELEMS[syncagtr]=64
	# ATP: 308-byte frames of 8 workers of app 1 to aggregators 0..454, each aggregator's 8
	# frames followed by the PS's ACK that frees it, so the replay aggregates for ever
	# (pcaps/README.md). One input port, so workers and PS are both behind port 0 (the config is
	# `atp app add 1 workers 8 ports 0 ps 0`): completions and ACK copies leave by port 0, which
	# net_pcap counts and drops. 9 frames in, 2 out per aggregate: the ratios are of the input
	# rate. 455 x 9 = 4095 frames.
	add_case atp "pcapgen atp-bench {pcap} --workers 8 --agtrs 455 --config {cfg}" \
		"--pipeline atp" "" l2-308
	CASE_ELEMS[atp]=62
	CASE_RATE[atp]=in
	CASE_TX_FROM[atp]=0
	# ASK: 4096 DATA frames (258 bytes) of task 1, channel 0, 16 slots of 8-byte Zipf keys, all
	# valid. ASK keeps a window and `seen` rings per channel, so replayed seqs would be repeats
	# or stale: both cases run inswitch-bench with the bench-only askstamp pipeline first, which
	# gives every DATA frame the next seq of its channel (bench/askstamp.c). l2-ask is the
	# passthrough of the same traffic (stamped, then l2 to port 1); ask aggregates it (the task's
	# receiver is behind port 1) and forwards every frame, absorbed slots cleared: 1 out per 1 in.
	add_case l2-ask "pcapgen ask-bench {pcap} --dst $BENCH_DST --config /dev/null" \
		"--pipeline askstamp" "l2 add $BENCH_DST 1"
	CASE_BIN[l2-ask]=bench/inswitch-bench
	add_case ask "pcapgen ask-bench {pcap} --dst $BENCH_DST --config {cfg}" \
		"--pipeline askstamp --pipeline ask" "" l2-ask
	CASE_BIN[ask]=bench/inswitch-bench
	CASE_ELEMS[ask]=16
	CASE_ABSORBED[ask]="ask task show 1"
}

# A reference, not inswitch: dpdk-testpmd io forwarding of the l2 traffic (--testpmd).
define_reference_cases() {
	add_case testpmd-io "pcapgen bench {pcap} --size 64 --count $FRAMES --dst $BENCH_DST" "" ""
	CASE_RUNNER[testpmd-io]=testpmd
}

# ------------------------------------------------------------------------------------------------
CASES=()
declare -A CASE_GEN CASE_OPTS CASE_CONFIG CASE_BASE CASE_RUNNER CASE_PCAP CASE_ELEMS CASE_RATE
declare -A CASE_TX_FROM CASE_BIN CASE_ABSORBED
START_DATE=$(date -u '+%Y-%m-%dT%H:%M:%SZ')
TMP=""
RESULTS=""    # one JSON line per measurement, appended by measure_*
DAEMON_PID="" # the daemon (or testpmd) being measured, for cleanup

# shellcheck disable=SC2034 # CASE_ELEMS and CASE_RATE are read by name, through case_map
add_case() {
	CASES+=("$1")
	CASE_GEN[$1]=$2
	CASE_OPTS[$1]=$3
	CASE_CONFIG[$1]=$4
	CASE_BASE[$1]=${5:-${CASES[0]}}
	[ -n "${CASE_GEN[${CASE_BASE[$1]}]+x}" ] || die "$1: baseline ${CASE_BASE[$1]} is not defined before it"
	CASE_RUNNER[$1]=inswitch
	CASE_ELEMS[$1]=0
	CASE_RATE[$1]=out
	CASE_TX_FROM[$1]=1
	CASE_BIN[$1]=inswitch
	CASE_ABSORBED[$1]=""
}

die() {
	echo "bench: $*" >&2
	exit 1
}

log() { echo "bench: $*" >&2; }

usage() {
	sed -n '/^# usage:/,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'
	cat <<EOF

  --runs N      measurements per case, interleaved across cases (default $RUNS)
  --seconds S   measured seconds per run (default $MEASURE_S)
  --warmup S    seconds the switch runs before the counters are reset (default $WARMUP_S)
  --lcore N     the worker lcore (default $LCORE)
  --only LIST   measure only these cases (comma-separated), with their baselines and l2
  --testpmd     also measure dpdk-testpmd io forwarding (package dpdk-dev) as a reference
  --switch OPTS more daemon options for every case's switch (e.g. "--idle-sleep-us 200")
  --build DIR   use the build tree DIR (already configured; run.sh runs ninja in it) instead
                of build/ (configured and built by scripts/build.sh)
  --out DIR     where report.txt, report.json and report.png go (default bench/out)
Writes the report to stdout and to OUT/report.txt, its JSON to OUT/report.json and, with
gnuplot (package gnuplot-nox), OUT/report.png: each case's Mpps (median, min-max) and its
ratio to its baseline; progress goes to stderr.
EOF
}

parse_args() {
	while [ $# -gt 0 ]; do
		case $1 in
		--runs) RUNS=${2:?--runs needs N}; shift 2 ;;
		--seconds) MEASURE_S=${2:?--seconds needs S}; shift 2 ;;
		--warmup) WARMUP_S=${2:?--warmup needs S}; shift 2 ;;
		--lcore) LCORE=${2:?--lcore needs N}; shift 2 ;;
		--only) ONLY=${2:?--only needs a list}; shift 2 ;;
		--testpmd) WITH_TESTPMD=1; shift ;;
		--switch) SWITCH_OPTS=${2?--switch needs OPTIONS}; shift 2 ;;
		--build) BUILD=${2:?--build needs DIR}; shift 2 ;;
		--out) OUT=${2:?--out needs DIR}; shift 2 ;;
		-h | --help) usage; exit 0 ;;
		*) usage >&2; exit 2 ;;
		esac
	done
	# Whole numbers only: bash arithmetic below (testpmd's stats count) has no fractions.
	[[ $RUNS =~ ^[1-9][0-9]*$ ]] || die "--runs must be a positive integer"
	[[ $MEASURE_S =~ ^[1-9][0-9]*$ ]] || die "--seconds must be a positive integer"
	[[ $WARMUP_S =~ ^[0-9]+$ ]] || die "--warmup must be a whole number of seconds"
	[[ $LCORE =~ ^[0-9]+$ ]] || die "--lcore must be a number"
	if [ -n "$BUILD" ]; then
		[ -f "$BUILD/build.ninja" ] || die "--build $BUILD: not a configured build tree"
		BUILD=$(cd "$BUILD" && pwd)
	fi
	TREE=${BUILD:-$ROOT/build}
	CTL=$TREE/inswitch-ctl
	PCAPGEN=$TREE/pcaps/pcapgen
}

# Keeps the cases named in --only, their baselines (and theirs) and the first case, in their
# defined order.
select_cases() {
	[ -n "$ONLY" ] || return 0
	local c want=",${CASES[0]},"
	for c in ${ONLY//,/ }; do
		[ -n "${CASE_GEN[$c]+x}" ] || die "no case '$c' (cases: ${CASES[*]})"
		while [[ $want != *",$c,"* ]]; do # a baseline is always defined before its cases
			want+="$c,"
			c=${CASE_BASE[$c]}
		done
	done
	local keep=()
	for c in "${CASES[@]}"; do
		[[ $want == *",$c,"* ]] && keep+=("$c")
	done
	CASES=("${keep[@]}")
}

cleanup() {
	if [ -n "$DAEMON_PID" ] && kill -0 "$DAEMON_PID" 2>/dev/null; then
		kill -TERM "$DAEMON_PID" 2>/dev/null || true
		wait "$DAEMON_PID" 2>/dev/null || true
	fi
	[ -z "$TMP" ] || rm -rf "$TMP"
}

check_tools() {
	command -v jq >/dev/null || die "jq is missing (scripts/deps.sh installs it)"
	if [ "$WITH_TESTPMD" = 1 ]; then
		command -v dpdk-testpmd >/dev/null ||
			die "--testpmd needs dpdk-testpmd (apt-get install dpdk-dev)"
	fi
}

build() {
	if [ -n "$BUILD" ]; then
		log "building (ninja -C $BUILD)"
		ninja -C "$BUILD" >&2
	else
		log "building (scripts/build.sh)"
		"$ROOT/scripts/build.sh" >&2
	fi
}

# Writes every case's pcap and config file into $TMP.
make_traffic() {
	local c w words
	for c in "${CASES[@]}"; do
		CASE_PCAP[$c]=$TMP/$c.pcap
		: >"$TMP/$c.gen.cfg"
		read -ra words <<<"${CASE_GEN[$c]}"
		for w in "${!words[@]}"; do
			case ${words[$w]} in
			pcapgen) words[w]=$PCAPGEN ;;
			"{pcap}") words[w]=${CASE_PCAP[$c]} ;;
			"{cfg}") words[w]=$TMP/$c.gen.cfg ;;
			esac
		done
		"${words[@]}" >&2 || die "$c: traffic generator failed: ${CASE_GEN[$c]}"
		{
			tr ';' '\n' <<<"${CASE_CONFIG[$c]}" | sed 's/^ *//'
			cat "$TMP/$c.gen.cfg"
		} >"$TMP/$c.cfg"
	done
}

# ------------------------------------------------------------------------------------------------
# One measurement of inswitch; appends one JSON line to $RESULTS. (Not called in a subshell, so
# that cleanup always knows the daemon's pid.)

ctl() { "$CTL" --socket "$1" --json "${@:2}"; }

# The daemon loads the whole capture before it opens its socket, so a large pcap takes a while.
wait_for_ctl() {
	local sock=$1 logf=$2 _
	for _ in $(seq 300); do
		ctl "$sock" version >/dev/null 2>&1 && return 0
		kill -0 "$DAEMON_PID" 2>/dev/null || { cat "$logf" >&2; die "inswitch exited at start"; }
		sleep 0.1
	done
	cat "$logf" >&2
	die "inswitch did not answer on $sock within 30 s"
}

# $1: the exit statuses that are normal, space-separated (default 0).
wait_for_exit() {
	local ok=${1:-0} _ rc=0
	for _ in $(seq 100); do
		kill -0 "$DAEMON_PID" 2>/dev/null || break
		sleep 0.1
	done
	if kill -0 "$DAEMON_PID" 2>/dev/null; then
		log "the measured process did not stop within 10 s; sending SIGTERM"
		kill -TERM "$DAEMON_PID"
	fi
	wait "$DAEMON_PID" || rc=$?
	DAEMON_PID=""
	[[ " $ok " == *" $rc "* ]] || log "warning: the measured process exited with status $rc"
}

# The case's absorbed and tuples counters (CASE_ABSORBED) as [absorbed, tuples].
absorbed_counters() {
	local probe
	read -ra probe <<<"${CASE_ABSORBED[$1]}"
	ctl "$2" "${probe[@]}" | jq -c '.counters[0] | [.absorbed, .tuples]'
}

measure_inswitch() {
	local c=$1 run=$2
	local sock=$TMP/ctl.sock logf=$TMP/$c.$run.log opts stats
	local abs0="" abs1="" absorbed=null daemon=$TREE/${CASE_BIN[$c]}
	read -ra opts <<<"${CASE_OPTS[$c]} $SWITCH_OPTS"
	rm -f "$sock"
	# -m 1024 without hugepages is plenty: the default pool is 16383 mbufs (~40 MB), of which
	# net_pcap keeps one per frame of the capture (it refuses to start if they do not fit). A case
	# with a capture near that size passes --mbufs in its DAEMON_OPTS: in infinite_rx mode a failed
	# allocation is counted nowhere, net_pcap just delivers nothing and the rate sags.
	"$daemon" --no-huge -m 1024 --no-pci -l "$LCORE" --no-shconf --file-prefix "bench-$$" \
		--log-level='*:warning' \
		--vdev "net_pcap0,rx_pcap=${CASE_PCAP[$c]},infinite_rx=1" --vdev net_null0,no-rx=1 \
		-- --ctl "$sock" --config "$TMP/$c.cfg" "${opts[@]}" >"$logf" 2>&1 &
	DAEMON_PID=$!
	wait_for_ctl "$sock" "$logf"
	sleep "$WARMUP_S"
	ctl "$sock" stats reset >/dev/null
	[ -z "${CASE_ABSORBED[$c]}" ] || abs0=$(absorbed_counters "$c" "$sock")
	sleep "$MEASURE_S"
	stats=$(ctl "$sock" stats show)
	[ -z "${CASE_ABSORBED[$c]}" ] || abs1=$(absorbed_counters "$c" "$sock")
	ctl "$sock" shutdown >/dev/null
	wait_for_exit
	if [ -n "$abs0" ]; then
		absorbed=$(jq -n --argjson a "$abs0" --argjson b "$abs1" \
			'if $b[1] > $a[1] then ($b[0] - $a[0]) / ($b[1] - $a[1]) else null end')
	fi

	# Output ports are all but port 0 (only port 1 today). elapsed_s is the daemon's own TSC time
	# since "stats reset", so the sleeps' jitter does not enter the rate.
	jq -c --arg c "$c" --argjson run "$run" --argjson ovh "$WIRE_OVERHEAD" \
		--argjson from "${CASE_TX_FROM[$c]}" --argjson absorbed "$absorbed" '
		(.ports[$from:] | map(.tx_pkts) | add) as $pkts
		| (.ports[$from:] | map(.tx_bytes) | add) as $bytes
		| .elapsed_s as $t
		| {case: $c, runner: "inswitch", run: $run, elapsed_s: $t,
		   tx_pkts: $pkts, tx_bytes: $bytes, rx_pkts: .ports[0].rx_pkts,
		   frame_bytes: (if $pkts > 0 then $bytes / $pkts else 0 end),
		   mpps: ($pkts / $t / 1e6), in_mpps: (.ports[0].rx_pkts / $t / 1e6),
		   gbps_l2: ($bytes * 8 / $t / 1e9),
		   gbps_wire: (($bytes + $ovh * $pkts) * 8 / $t / 1e9),
		   drops: ([.drops[].count] | add // 0),
		   drop_reasons: (.drops | map("\(.pipeline)/\(.reason)=\(.count)") | join(",")),
		   absorbed_fraction: $absorbed}' \
		<<<"$stats" >>"$RESULTS"
}

# ------------------------------------------------------------------------------------------------
# One measurement of dpdk-testpmd io forwarding, same ports and lcore, as a reference. testpmd has
# no control socket: it prints every port's counters each --stats-period second, with the rate
# since the previous print measured on its TSC. The first print comes at start (rate 0), the next
# WARMUP_S are the warm-up, the MEASURE_S after that are averaged.

measure_testpmd() {
	local c=$1 run=$2
	local logf=$TMP/$c.$run.log main=0 need _
	[ "$LCORE" -ne 0 ] || main=1 # testpmd's main lcore only prints; it forwards on the other
	need=$((1 + WARMUP_S + MEASURE_S))
	# stdbuf: testpmd writes with stdio, which would hold the prints back in a pipe or file.
	stdbuf -oL dpdk-testpmd --no-huge -m 1024 --no-pci -l "$main,$LCORE" --main-lcore "$main" \
		--no-shconf --file-prefix "bench-$$" --log-level='*:warning' \
		--vdev "net_pcap0,rx_pcap=${CASE_PCAP[$c]},infinite_rx=1" --vdev net_null0,no-rx=1 \
		-- --forward-mode=io --auto-start --stats-period 1 </dev/null >"$logf" 2>&1 &
	DAEMON_PID=$!
	# Wait for one print more than needed: the last one may be half written when it is stopped.
	for _ in $(seq $((need * 10 + 300))); do
		[ "$(grep -c 'Port statistics' "$logf")" -gt "$need" ] && break
		kill -0 "$DAEMON_PID" 2>/dev/null || { cat "$logf" >&2; die "dpdk-testpmd exited"; }
		sleep 0.1
	done
	kill -INT "$DAEMON_PID"
	wait_for_exit "0 130" # 130: it may re-raise the SIGINT

	# One line per print: port 1's Tx-pps and TX-errors, port 0's Rx-bps/Rx-pps (for the frame size).
	awk '/NIC statistics for port/ { for (i = 1; i <= NF; i++) if ($i == "port") p = $(i + 1) }
	     /TX-errors:/ && p == 1 { err = $4 }
	     /Rx-pps:/ && p == 0    { rpps = $2; rbps = $4 }
	     /Tx-pps:/ && p == 1    { print $2, err, rpps, rbps }' "$logf" |
		jq -Rsc --arg c "$c" --argjson run "$run" --argjson ovh "$WIRE_OVERHEAD" \
			--argjson w "$WARMUP_S" --argjson s "$MEASURE_S" '
		[split("\n")[] | select(length > 0) | split(" ") | map(tonumber)]
		| .[1 + $w : 1 + $w + $s] as $rows
		| ($rows | map(.[0]) | add / length) as $pps
		| ($rows | map(if .[2] > 0 then .[3] / .[2] / 8 else 0 end) | add / length) as $fb
		| ($rows | map(.[2]) | add / length) as $rpps
		| {case: $c, runner: "testpmd", run: $run, elapsed_s: $s,
		   tx_pkts: ($pps * $s | floor), tx_bytes: ($pps * $s * $fb | floor), rx_pkts: null,
		   frame_bytes: $fb, mpps: ($pps / 1e6), in_mpps: ($rpps / 1e6),
		   gbps_l2: ($pps * $fb * 8 / 1e9), gbps_wire: ($pps * ($fb + $ovh) * 8 / 1e9),
		   drops: ($rows[-1][1] - $rows[0][1]), drop_reasons: ""}' >>"$RESULTS"
}

# ------------------------------------------------------------------------------------------------
# The report: header, table, per-run figures, one JSON line.

# One of the CASE_* arrays, named by $1, as a JSON object {case: string} over $CASES.
case_map() {
	local -n m=$1
	local c
	for c in "${CASES[@]}"; do printf '%s\t%s\n' "$c" "${m[$c]}"; done |
		jq -Rsc 'split("\n") | map(select(length > 0) | split("\t") | {(.[0]): .[1]}) | add'
}

summarize() {
	local order
	order=$(printf '%s\n' "${CASES[@]}" | jq -R . | jq -sc .)
	jq -sc --argjson order "$order" --argjson bases "$(case_map CASE_BASE)" \
		--argjson elems "$(case_map CASE_ELEMS | jq -c 'map_values(tonumber)')" \
		--argjson rates "$(case_map CASE_RATE)" --argjson bins "$(case_map CASE_BIN)" \
		--argjson probes "$(case_map CASE_ABSORBED)" \
		--arg l2 "${CASES[0]}" \
		--argjson runs "$RUNS" --argjson seconds "$MEASURE_S" --argjson warmup "$WARMUP_S" \
		--argjson lcore "$LCORE" --arg date "$START_DATE" \
		--argjson nproc "$(nproc)" --arg cpu "$(cpu_model)" --arg dpdk "$(dpdk_version)" \
		--arg commit "$(git -C "$ROOT" describe --always --dirty 2>/dev/null || echo unknown)" '
		def median: sort | if length % 2 == 1 then .[length / 2 | floor]
		                   else (.[length / 2 - 1] + .[length / 2]) / 2 end;
		def r3: . * 1000 | round / 1000;
		. as $all
		| [$order[] as $c | [$all[] | select(.case == $c)]
		   | {name: $c, runner: .[0].runner, baseline: $bases[$c], ratio_of: $rates[$c],
		      frame_bytes: (.[0].frame_bytes | round),
		      runs: length, mpps: map(.mpps | r3),
		      median_mpps: (map(.mpps) | median | r3),
		      min_mpps: (map(.mpps) | min | r3), max_mpps: (map(.mpps) | max | r3),
		      median_in_mpps: (map(.in_mpps) | median | r3),
		      elems_per_pkt: $elems[$c],
		      median_melems: (if $elems[$c] > 0
		                      then map(.in_mpps * $elems[$c]) | median | r3 else null end),
		      median_gbps_l2: (map(.gbps_l2) | median | r3),
		      median_gbps_wire: (map(.gbps_wire) | median | r3),
		      drops: (map(.drops) | add),
		      drop_reasons: (map(.drop_reasons | select(. != "")) | unique | join(" "))}
		   + (if $bins[$c] != "inswitch" then {daemon: $bins[$c]} else {} end)
		   + (if $probes[$c] != "" then
		        {absorbed_from: $probes[$c],
		         absorbed_fraction: map(.absorbed_fraction | if . then r3 else . end),
		         median_absorbed_fraction: (map(.absorbed_fraction // 0) | median | r3),
		         min_absorbed_fraction: (map(.absorbed_fraction // 0) | min | r3),
		         max_absorbed_fraction: (map(.absorbed_fraction // 0) | max | r3)}
		      else {} end)]
		| (map({(.name): .median_mpps}) | add) as $med
		| def rate: if .ratio_of == "in" then .median_in_mpps else .median_mpps end;
		  def ratio($to): if $med[$to] > 0 then rate / $med[$to] | r3 else null end;
		  {date: $date, machine: {nproc: $nproc, cpu: $cpu}, dpdk: $dpdk, commit: $commit,
		   lcore: $lcore, runs: $runs, seconds: $seconds, warmup_s: $warmup, passthrough: $l2,
		   cases: map(. + {ratio_to_l2: ratio($l2), ratio_to_baseline: ratio(.baseline)})}'
}

# The CPU's name, family and model, and whether it has the AVX-512 subsets (F, DQ, BW, VL) ASK's
# vector path needs: the ratios depend on them (bench/README.md, "Why 0.5 is out of reach").
cpu_model() {
	local name fam model avx=no
	name=$(lscpu | sed -n 's/^Model name: *//p' | head -1)
	fam=$(lscpu | sed -n 's/^CPU family: *//p' | head -1)
	model=$(lscpu | sed -n 's/^Model: *//p' | head -1)
	if grep -qw avx512f /proc/cpuinfo && grep -qw avx512dq /proc/cpuinfo &&
		grep -qw avx512bw /proc/cpuinfo && grep -qw avx512vl /proc/cpuinfo; then
		avx=yes
	fi
	echo "$name (family ${fam:-?}, model ${model:-?}; AVX-512 F/DQ/BW/VL: $avx)"
}
dpdk_version() { pkg-config --modversion libdpdk 2>/dev/null || echo unknown; }

report() {
	local s=$1
	jq -r '"inswitch benchmark  \(.date)  commit \(.commit)",
	       "machine: \(.machine.nproc) CPUs, \(.machine.cpu); DPDK \(.dpdk); no hugepages",
	       "setup: one worker on lcore \(.lcore); port 0 net_pcap (capture replayed from memory,"
	       + " infinite_rx=1) -> switch -> port 1 net_null (no-rx=1)",
	       "runs: \(.runs) per case, interleaved; each a fresh daemon, \(.warmup_s) s warm-up,"
	       + " then \(.seconds) s measured from \"stats reset\""' <<<"$s"
	cat <<EOF
Mpps: frames sent out of port 1 / elapsed (the daemon's TSC); in_Mpps: frames received on port 0
/ elapsed; Melem/s: in_Mpps x the elements each input frame carries (aggregation cases). Gbit/s
L2: bytes sent without FCS x 8 / elapsed. Gbit/s wire: plus $WIRE_OVERHEAD B per frame (FCS 4,
preamble+SFD 8, inter-frame gap 12).
drops: frames the switch dropped, any reason (e.g. tx-full: port 1 did not take a whole burst);
summed over the runs, should be 0.
NOTE: a shared, noisy machine (CPU speed can swing 2x): only the ratios within one report are
comparable; do not compare absolute Mpps between reports.

EOF
	jq -r '.cases[] | [.name, .frame_bytes, .runs, .median_mpps, .min_mpps, .max_mpps,
	                   .median_in_mpps, .median_melems,
	                   .median_gbps_l2, .median_gbps_wire, .ratio_to_l2, .ratio_to_baseline,
	                   .baseline, .drops] | @tsv' <<<"$s" |
		awk -F'\t' 'BEGIN { f = "%-12s %5s %4s %8s %6s %6s %7s %8s %8s %9s %6s %7s %-8s %6s\n"
		                    printf f, "case", "frame", "runs", "med_Mpps", "min", "max", "in_Mpps",
		                           "Melem/s", "Gb/s_L2", "Gb/s_wire", "vs_l2", "vs_base", "base",
		                           "drops" }
		             { el = $8 == "" ? "-" : sprintf("%.1f", $8)
		               printf "%-12s %5d %4d %8.2f %6.2f %6.2f %7.2f %8s %8.2f %9.2f %6.3f %7.3f %-8s %6d\n",
		                      $1, $2, $3, $4, $5, $6, $7, el, $9, $10, $11, $12, $13, $14 }'
	jq -r '"(vs_l2: median Mpps / median Mpps of \(.passthrough), the 64-byte passthrough; vs_base: / that"
	       + " of base,",
	       " the passthrough of the same traffic; both from this invocation. frame: bytes without FCS)",
	       "",
	       "Mpps per run, in run order:",
	       (.cases[] | "  \(.name): \(.mpps | map(tostring) | join("  "))"),
	       (.cases[] | select(.ratio_of == "in")
	        | "\(.name): vs_l2 and vs_base are of its input rate (in_Mpps), its Mpps counts"
	          + " every port"),
	       (.cases[] | select(.drop_reasons != "") | "drops in \(.name): \(.drop_reasons)"),
	       (.cases[] | select(.daemon)
	        | "\(.name) is measured with \(.daemon): inswitch plus bench-only pipelines"
	          + " (bench/README.md)"),
	       (.cases[] | select(.absorbed_from)
	        | "\(.name): \(.elems_per_pkt) tuples per input frame, \(.median_melems) M tuples/s;"
	          + " absorbed fraction \(.median_absorbed_fraction)"
	          + " (\(.min_absorbed_fraction)-\(.max_absorbed_fraction); per run"
	          + " \(.absorbed_fraction | map(tostring) | join("  "))): absorbed / tuples of"
	          + " `\(.absorbed_from)` over the measured time"),
	       (.cases[] | select(.runner == "testpmd")
	        | "\(.name) is dpdk-testpmd --forward-mode=io on the same ports and traffic,"
	          + " from its own per-second rates: a reference, not inswitch")' <<<"$s"
	echo
	jq -c . <<<"$s"
}

# ASK against a host core: after each run of the ask case, bench/ask-reduce on the same CPU (the
# worker lcore's, free between daemons) merges the bench capture's tuples into the receiver's
# table, the reduceByKey the switch takes off the receiver (bench/README.md).
measure_host_reduce() {
	taskset -c "$LCORE" "$TREE/bench/ask-reduce" --json --rounds 5 >>"$TMP/reduce.jsonl" ||
		die "bench/ask-reduce failed"
	log "run $1/$RUNS host reduceByKey: $(tail -n 1 "$TMP/reduce.jsonl" | jq -r .best_mtuples) M tuples/s"
}

host_reduce_report() {
	local ask
	ask=$(summarize <"$RESULTS" | jq '.cases[] | select(.name == "ask") | .median_melems')
	jq -rs --argjson ask "$ask" --arg lcore "$LCORE" '
		def median: sort | if length % 2 == 1 then .[length / 2 | floor]
		                   else (.[length / 2 - 1] + .[length / 2]) / 2 end;
		map(.best_mtuples) as $h
		| "",
		  "ASK against a host core: the lcore of the ask case takes in \($ask) M tuples/s (median);",
		  "one host core merges the same tuples into the receiver table at \($h | median) M tuples/s",
		  "(bench/ask-reduce on CPU \($lcore) after each run, median of the runs, each the best of 5;",
		  "per run \($h | map(tostring) | join("  "))): ratio \($ask / ($h | median) * 100 | round / 100)"
		' "$TMP/reduce.jsonl"
}

# plot JSON PNG: the summary as two bar charts, one above the other: every case's Mpps (median,
# min-max bars; the input rate for the cases whose ratios are of it) and its ratio to its
# baseline.
plot() {
	if ! command -v gnuplot >/dev/null; then
		log "no gnuplot (apt-get install gnuplot-nox): no $2"
		return 0
	fi
	jq -r '.cases[] | [.name, (if .ratio_of == "in" then .median_in_mpps else .median_mpps end),
		(if .ratio_of == "in" then .median_in_mpps else .min_mpps end),
		(if .ratio_of == "in" then .median_in_mpps else .max_mpps end),
		(.ratio_to_baseline // 0)] | @tsv' "$1" >"$TMP/plot.tsv"
	local title
	title=$(jq -r '"inswitch bench \(.date) \(.commit): \(.machine.cpu), lcore \(.lcore), \(.runs) runs of \(.seconds) s"' "$1")
	gnuplot <<EOF || die "gnuplot failed"
set terminal pngcairo size 1100,800 noenhanced
set output "$2"
set datafile separator "\t"
set multiplot layout 2,1 title "$title"
set style data histogram
set style fill solid 0.6
set boxwidth 0.8
set grid ytics
set yrange [0:*]
set xtics rotate by -30
set style histogram errorbars gap 1 lw 1
set ylabel "Mpps (median, min-max)"
plot "$TMP/plot.tsv" using 2:3:4:xtic(1) notitle lc rgb "#4472c4"
set style histogram clustered gap 1
set ylabel "ratio to its baseline (vs_base)"
set yrange [0:1.2]
plot "$TMP/plot.tsv" using 5:xtic(1) notitle lc rgb "#ed7d31", 0.7 title "0.7" lc rgb "#888888" dt 2
unset multiplot
EOF
	log "plot: $2"
}

# ------------------------------------------------------------------------------------------------
main() {
	parse_args "$@"
	check_tools
	trap cleanup EXIT
	trap 'exit 130' INT # so that the EXIT trap runs and stops the daemon
	trap 'exit 143' TERM
	TMP=$(mktemp -d /tmp/inswitch-bench.XXXXXX)
	mkdir -p "$OUT"

	define_cases
	[ "$WITH_TESTPMD" = 0 ] || define_reference_cases
	select_cases
	build
	make_traffic

	RESULTS=$TMP/results.jsonl
	local run c
	for run in $(seq "$RUNS"); do
		for c in "${CASES[@]}"; do
			"measure_${CASE_RUNNER[$c]}" "$c" "$run"
			log "run $run/$RUNS $c: $(tail -n 1 "$RESULTS" |
				jq -r '"\(.mpps * 1000 | round / 1000) Mpps, drops \(.drops)"')"
			[ "$c" != ask ] || measure_host_reduce "$run"
		done
	done

	summarize <"$RESULTS" >"$OUT/report.json"
	report "$(cat "$OUT/report.json")" | tee "$OUT/report.txt"
	[ ! -s "$TMP/reduce.jsonl" ] || host_reduce_report | tee -a "$OUT/report.txt"
	plot "$OUT/report.json" "$OUT/report.png"
}

main "$@"
