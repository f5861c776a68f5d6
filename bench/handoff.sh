#!/usr/bin/env bash
# Two workers on this machine's two CPUs, and what a hand-off between them costs
# (bench/README.md, "Two workers and the hand-off"). A benchmark, not a test: it prints.
#
# Each measurement is a fresh inswitch with two net_pcap input ports replaying the same capture
# (64-byte IPv4/UDP frames of 64 flows, infinite_rx, one rx queue each) and a net_null sink
# (port 2) that every frame leaves by (l2). Cases, interleaved over the runs:
#   1w-l2   one worker polls both inputs; l2 only
#   1w-fc   one worker; flowcount (one SALU per frame, sharded by its bucket's cache line) and l2
#   2w-l2   two workers (-l 0,1), one input each; l2 only: no shared state, no hand-off
#   2w-fc   two workers; flowcount: a frame whose bucket the other worker owns is handed to it
#           through its inbox (about half of them), and resumes there: unsteered input
#   2w-fc-steered  two workers, flowcount, each input carrying only flows whose buckets its own
#           worker owns (what steering on the shard key would deliver): no hand-off. The flows
#           are split by flowcount's bucket hash, computed here as pipelines/flowcount does; the
#           case checks that nothing was handed off, so a drifted copy cannot pass unseen
# and the same for SyncAgtr (the bench's SwitchML traffic: 8 workers, 256 slots of 64 values,
# 308-byte frames, every replica out of port 2), each slot's frames on one input port:
#   1w-sa          one worker, slots 0..127 on port 0 and 128..255 on port 1
#   2w-sa-steered  two workers, even slots on port 0, odd on port 1: each on the worker that owns
#                  it (a slot's owner is slot mod workers); checked: no hand-off
#   2w-sa-range    two workers, slots 0..127 on port 0, 128..255 on port 1: how a NIC steering by
#                  UDP source port would split SwitchML traffic (a worker thread owns a contiguous
#                  slot range and sends from its own port), so half the frames are handed off
#   2w-sa-threads  the same inputs, the session created with "threads 2": the switch owns slots by
#                  the threads' ranges (range t on worker t), as it does to follow such steering
#                  (docs/deploy.md, Steering); checked: no hand-off
# and ASK (the bench's DATA, 258-byte frames of 16 slots of 8-byte Zipf keys, through
# bench/inswitch-bench with its askstamp pipeline, as bench/run.sh's ask case) with two tasks:
# task 1 on channel 0 and task 2 on channel 1, one capture each; task 1 is owned by worker 1,
# task 2 by worker 0 (a task's owner is its index mod workers):
#   1w-ask          one worker, task 1 on port 0, task 2 on port 1
#   2w-ask-steered  two workers, each port carrying the task its worker owns (as one rule per
#                   receiver address steers it); checked: no hand-off
#   2w-ask          two workers, each port carrying the other's task: every frame handed off
# and ATP (the bench's traffic: 8 workers of app 1, aggregators 0..455, each aggregator's 8
# frames followed by its PS ACK; rates are of the input, as bench/run.sh's atp case) split by
# aggregator parity (an aggregator's owner is its index mod workers); the app's PS is port 0 for
# PSIndex 0 and port 1 for PSIndex 1, and port 1's capture carries PSIndex 1, so every ACK comes
# in on its PS port:
#   1w-atp          one worker, even aggregators on port 0, odd on port 1
#   2w-atp-steered  two workers, the same: each port carries its worker's aggregators; checked:
#                   no hand-off
#   2w-atp          two workers, odd aggregators on port 0, even on port 1: every frame handed
#                   off (ATP cannot be steered: docs/deploy.md, Steering)
#   (ATP's outputs leave by ports 0 and 1, which have one tx queue each: worker 1 hands what it
#   sends there to worker 0 in both two-worker cases; "handed off" counts the pipelines' own)
# For each: Mpps out of port 2, a worker's ns per frame (workers / rate), the share of frames
# handed off, and the workers' time shares (stats show). The hand-off's own cost, in a worker's
# ns per frame handed off, is what 2w-fc adds over 2w-l2 beyond what flowcount adds on one
# worker (1w-fc over 1w-l2), divided by the share handed off. With two workers the control
# thread and this script share their CPUs: take the figures as one run's, on a noisy VM.
#
# Besides the report (stdout), OUT/handoff.png (gnuplot, OUT = bench/out or --out DIR): the
# scaling, every case's rate over its pipeline's one-worker case, with lines at 1 and 2.
#
# usage: bench/handoff.sh [--runs N] [--seconds S] [--build DIR] [--out DIR]  (root; sudo otherwise)
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
RUNS=3
SECONDS_=3
BUILD=$ROOT/build
OUT=$ROOT/bench/out
while [ $# -gt 0 ]; do
	case $1 in
	--runs) RUNS=$2; shift 2 ;;
	--seconds) SECONDS_=$2; shift 2 ;;
	--build) BUILD=$(cd "$2" && pwd); shift 2 ;;
	--out) OUT=$2; shift 2 ;;
	*) echo "usage: bench/handoff.sh [--runs N] [--seconds S] [--build DIR] [--out DIR]" >&2; exit 2 ;;
	esac
done
if [ "$(id -u)" -ne 0 ]; then
	exec sudo "$0" --runs "$RUNS" --seconds "$SECONDS_" --build "$BUILD" --out "$OUT"
fi
mkdir -p "$OUT"
for b in inswitch bench/inswitch-bench; do
	[ -x "$BUILD/$b" ] || { echo "handoff: no $BUILD/$b (scripts/build.sh first)" >&2; exit 1; }
done
[ "$(nproc)" -ge 2 ] || { echo "handoff: needs two CPUs" >&2; exit 1; }

TMP=$(mktemp -d -t inswitch-handoff.XXXXXX) # in $TMPDIR, /tmp by default
PID=""
cleanup() {
	[ -z "$PID" ] || { kill "$PID" 2>/dev/null; wait "$PID" 2>/dev/null || true; }
	rm -rf "$TMP" "/var/run/dpdk/handoff-$$"
}
trap cleanup EXIT
log() { echo "handoff: $*" >&2; }

"$BUILD/pcaps/pcapgen" bench "$TMP/in.pcap" --size 64 --count 4096 --flows 64 \
	--dst 02:00:00:00:00:02 >/dev/null
# The steered inputs: 256 flows split by the owner of their bucket's cache line (flowcount:
# bucket = the 5-tuple hash below & 4095, shard = bucket / 8, owner = shard mod 2 workers).
"$BUILD/pcaps/pcapgen" bench "$TMP/many.pcap" --size 64 --count 8192 --flows 256 \
	--dst 02:00:00:00:00:02 >/dev/null
python3 - "$TMP/many.pcap" "$TMP/own0.pcap" "$TMP/own1.pcap" <<'PY'
import struct, sys
M = 0xFFFFFFFF
def owner(f):  # f: an Ethernet + IPv4 + UDP frame
    ihl = (f[14] & 15) * 4
    src, dst = struct.unpack_from('<II', f, 26)
    h = (src * 0x9E3779B1 & M) ^ (dst * 0x85EBCA6B & M) ^ f[23]
    (ports,) = struct.unpack_from('<I', f, 14 + ihl)
    h ^= ports * 0xC2B2AE35 & M
    h ^= h >> 16
    return ((h & 4095) // 8) % 2
data = open(sys.argv[1], 'rb').read()
out = [bytearray(data[:24]), bytearray(data[:24])]
off = 24
while off < len(data):
    incl = struct.unpack_from('<I', data, off + 8)[0]
    rec = data[off:off + 16 + incl]
    out[owner(rec[16:])] += rec
    off += 16 + incl
for i in (0, 1):
    open(sys.argv[2 + i], 'wb').write(out[i])
PY
echo "l2 add 02:00:00:00:00:02 2" >"$TMP/cfg"

# The SyncAgtr inputs: the bench capture split by slot (the pool index, bytes 48-49 of a frame).
"$BUILD/pcaps/pcapgen" syncagtr-bench "$TMP/sa.pcap" --workers 8 --slots 256 --elems 64 \
	--config "$TMP/sa.cfg"
sed -i 's/ port 1$/ port 2/' "$TMP/sa.cfg"
sed 's/^\(syncagtr session add .*\)$/\1 threads 2/' "$TMP/sa.cfg" >"$TMP/sa-threads.cfg"
grep -q ' threads 2$' "$TMP/sa-threads.cfg" || { echo "handoff: no session in sa.cfg" >&2; exit 1; }
python3 "$ROOT/pcaps/split_frames.py" "$TMP/sa.pcap" "$TMP/sa" 48 0x7fff 128

# The ATP inputs (the aggregator: bytes 44-45; PSIndex 1: flag byte 39, 0x20).
"$BUILD/pcaps/pcapgen" atp-bench "$TMP/atp.pcap" --workers 8 --agtrs 456 --config /dev/null \
	>/dev/null
echo "atp app add 1 workers 8 ports 0,1 ps 0 ps1 1" >"$TMP/atp.cfg"
python3 "$ROOT/pcaps/split_frames.py" "$TMP/atp.pcap" "$TMP/atp" 44 0xffff 228 --or-byte 39 0x20

# The ASK inputs: the bench capture as task 1, channel 0, and a copy as task 2, channel 1 (the
# ASK header's task and channel, bytes 44-47 of a frame); the receiver behind the sink, port 2.
"$BUILD/pcaps/pcapgen" ask-bench "$TMP/ask1.pcap" --dst 02:00:00:00:00:02 \
	--config "$TMP/ask1.cfg" >/dev/null
python3 - "$TMP/ask1.pcap" "$TMP/ask2.pcap" <<'PY'
import struct, sys
data = bytearray(open(sys.argv[1], 'rb').read())
off = 24
while off < len(data):
    incl = struct.unpack_from('<I', data, off + 8)[0]
    struct.pack_into('>HH', data, off + 16 + 44, 2, 1)
    off += 16 + incl
open(sys.argv[2], 'wb').write(data)
PY
{
	sed 's/,1 channels 1 /,2 channels 1 /' "$TMP/ask1.cfg"
	sed 's/^ask task add 1 \(.*\),1 channels 1 /ask task add 2 \1,2 channels 2 /' "$TMP/ask1.cfg"
} >"$TMP/ask.cfg"
[ "$(grep -c ',2 channels' "$TMP/ask.cfg")" = 2 ] || { echo "handoff: ASK config" >&2; exit 1; }

# measure CASE LCORES IN0 IN1 CONFIG PIPELINE-OPTS...: one fresh daemon, IN0 and IN1 the captures
# of ports 0 and 1, CONFIG its start-up commands; appends a JSON line to the results.
measure() {
	local c=$1 lcores=$2 in0=$3 in1=$4 cfg=$5 sock=$TMP/ctl.sock stats _
	shift 5
	rm -f "$sock"
	"$BUILD/${BIN:-inswitch}" --no-huge -m 1024 --no-pci -l "$lcores" --no-shconf \
		--file-prefix "handoff-$$" --log-level='*:warning' \
		--vdev "net_pcap0,rx_pcap=$in0,infinite_rx=1" \
		--vdev "net_pcap1,rx_pcap=$in1,infinite_rx=1" --vdev net_null0,no-rx=1 \
		-- --ctl "$sock" --config "$cfg" "$@" >"$TMP/$c.log" 2>&1 &
	PID=$!
	for _ in $(seq 100); do
		"$BUILD/inswitch-ctl" -s "$sock" version >/dev/null 2>&1 && break
		kill -0 "$PID" 2>/dev/null || { cat "$TMP/$c.log" >&2; exit 1; }
		sleep 0.1
	done
	sleep 1
	"$BUILD/inswitch-ctl" -s "$sock" stats reset >/dev/null
	sleep "$SECONDS_"
	stats=$("$BUILD/inswitch-ctl" -s "$sock" --json stats show)
	"$BUILD/inswitch-ctl" -s "$sock" shutdown >/dev/null
	wait "$PID" || true
	PID=""
	jq -c --arg c "$c" --argjson in "$([ "${RATE:-out}" = in ] && echo true || echo false)" '.elapsed_s as $t | (.workers | length) as $n |
		{case: $c, workers: $n,
		 mpps: ((if $in then .ports[0].rx_pkts + .ports[1].rx_pkts else .ports[2].tx_pkts end)
		        / $t / 1e6),
		 handed: (([.pipelines[].handed_off] | add) / ([.ports[0, 1].rx_pkts] | add)),
		 drops: ([.drops[].count] | add // 0),
		 shares: [.workers[] | {rx_pct, pipeline_pct, tx_pct, idle_pct, cpu_pct, waited_pct,
		                        backpressure}]}' \
		<<<"$stats" >>"$TMP/results.jsonl"
	log "$c: $(tail -n 1 "$TMP/results.jsonl" | jq -r '"\(.mpps * 1000 | round / 1000) Mpps, handed \(.handed * 1000 | round / 1000); per worker \(.shares | map({pipeline_pct, idle_pct, waited_pct, backpressure}) | tostring)"')"
}

# none_handed CASE: the steered case just measured handed nothing off (its split matched the owners).
none_handed() {
	[ "$(tail -n 1 "$TMP/results.jsonl" | jq .handed)" = 0 ] || {
		echo "handoff: $1 handed frames off: its inputs were not split by owner" >&2
		exit 1
	}
}

for run in $(seq "$RUNS"); do
	measure 1w-l2 1 "$TMP/in.pcap" "$TMP/in.pcap" "$TMP/cfg"
	measure 1w-fc 1 "$TMP/in.pcap" "$TMP/in.pcap" "$TMP/cfg" --pipeline flowcount
	measure 2w-l2 0,1 "$TMP/in.pcap" "$TMP/in.pcap" "$TMP/cfg"
	measure 2w-fc 0,1 "$TMP/in.pcap" "$TMP/in.pcap" "$TMP/cfg" --pipeline flowcount
	measure 2w-fc-steered 0,1 "$TMP/own0.pcap" "$TMP/own1.pcap" "$TMP/cfg" --pipeline flowcount
	none_handed 2w-fc-steered
	measure 1w-sa 1 "$TMP/sa-lo.pcap" "$TMP/sa-hi.pcap" "$TMP/sa.cfg" --pipeline syncagtr
	measure 2w-sa-steered 0,1 "$TMP/sa-even.pcap" "$TMP/sa-odd.pcap" "$TMP/sa.cfg" \
		--pipeline syncagtr
	none_handed 2w-sa-steered
	measure 2w-sa-range 0,1 "$TMP/sa-lo.pcap" "$TMP/sa-hi.pcap" "$TMP/sa.cfg" --pipeline syncagtr
	measure 2w-sa-threads 0,1 "$TMP/sa-lo.pcap" "$TMP/sa-hi.pcap" "$TMP/sa-threads.cfg" \
		--pipeline syncagtr
	none_handed 2w-sa-threads
	BIN=bench/inswitch-bench measure 1w-ask 1 "$TMP/ask1.pcap" "$TMP/ask2.pcap" "$TMP/ask.cfg" \
		--pipeline askstamp --pipeline ask
	BIN=bench/inswitch-bench measure 2w-ask-steered 0,1 "$TMP/ask2.pcap" "$TMP/ask1.pcap" \
		"$TMP/ask.cfg" --pipeline askstamp --pipeline ask
	none_handed 2w-ask-steered
	BIN=bench/inswitch-bench measure 2w-ask 0,1 "$TMP/ask1.pcap" "$TMP/ask2.pcap" "$TMP/ask.cfg" \
		--pipeline askstamp --pipeline ask
	RATE=in measure 1w-atp 1 "$TMP/atp-even.pcap" "$TMP/atp-odd-x.pcap" "$TMP/atp.cfg" \
		--pipeline atp
	RATE=in measure 2w-atp-steered 0,1 "$TMP/atp-even.pcap" "$TMP/atp-odd-x.pcap" \
		"$TMP/atp.cfg" --pipeline atp
	none_handed 2w-atp-steered
	RATE=in measure 2w-atp 0,1 "$TMP/atp-odd.pcap" "$TMP/atp-even-x.pcap" "$TMP/atp.cfg" \
		--pipeline atp
	log "run $run of $RUNS done"
done

jq -rs '
	def median: sort | if length % 2 == 1 then .[length / 2 | floor]
	                   else (.[length / 2 - 1] + .[length / 2]) / 2 end;
	def r2: . * 100 | round / 100;
	group_by(.case) | map({key: .[0].case, value: {
		workers: .[0].workers, mpps: (map(.mpps) | median),
		mpps_all: map(.mpps | r2), handed: (map(.handed) | median),
		drops: (map(.drops) | add), shares: .[0].shares}}) | from_entries as $m
	| def ns($c): $m[$c].workers / $m[$c].mpps * 1000;
	  "case    workers  Mpps (median; runs)            ns/frame/worker  handed off  drops",
	  ($m | to_entries[] | "\(.key)   \(.value.workers)        \(.value.mpps | r2) (\(.value.mpps_all | map(tostring) | join(" ")))"
	     + "    \(ns(.key) | r2)    \(.value.handed | r2)    \(.value.drops)"),
	  "",
	  "two workers against one: l2 \(($m["2w-l2"].mpps / $m["1w-l2"].mpps) | r2)x;"
	  + " flowcount steered \(($m["2w-fc-steered"].mpps / $m["1w-fc"].mpps) | r2)x,"
	  + " unsteered \(($m["2w-fc"].mpps / $m["1w-fc"].mpps) | r2)x",
	  ((ns("2w-sa-range") - ns("2w-sa-steered")) / $m["2w-sa-range"].handed) as $sah
	  | "syncagtr: two workers steered \(($m["2w-sa-steered"].mpps / $m["1w-sa"].mpps) | r2)x one,"
	  + " split by slot range \(($m["2w-sa-range"].mpps / $m["1w-sa"].mpps) | r2)x (handed off"
	  + " \($m["2w-sa-range"].handed | r2)): \($sah | r2) ns a frame handed off;"
	  + " by slot range with the session'"'"'s threads \(($m["2w-sa-threads"].mpps / $m["1w-sa"].mpps) | r2)x",
	  "atp (input rate): two workers on their own aggregators \(($m["2w-atp-steered"].mpps / $m["1w-atp"].mpps) | r2)x one,"
	  + " on the other'"'"'s (every frame handed off) \(($m["2w-atp"].mpps / $m["1w-atp"].mpps) | r2)x",
	  "ask (two tasks): two workers steered \(($m["2w-ask-steered"].mpps / $m["1w-ask"].mpps) | r2)x one,"
	  + " unsteered (every frame handed off) \(($m["2w-ask"].mpps / $m["1w-ask"].mpps) | r2)x",
	  "flowcount on one worker: +\((ns("1w-fc") - ns("1w-l2")) | r2) ns a frame",
	  "a hand-off: \(((ns("2w-fc") - ns("2w-fc-steered")) / $m["2w-fc"].handed) | r2)"
	  + " ns of a worker per frame handed off (2w-fc over 2w-fc-steered; share \($m["2w-fc"].handed | r2))",
	  "",
	  "time shares of the first run of each case (stats show, per worker):",
	  ($m | to_entries[] | "  \(.key): \(.value.shares | map(tostring) | join(" "))")
' "$TMP/results.jsonl"

# The scaling plot: each case over its pipeline's one-worker case (1w-l2 for 2w-l2, ...).
if command -v gnuplot >/dev/null; then
	jq -rs 'def median: sort | if length % 2 == 1 then .[length / 2 | floor]
	                         else (.[length / 2 - 1] + .[length / 2]) / 2 end;
		group_by(.case) | map({c: .[0].case, m: (map(.mpps) | median)}) as $cs
		| ($cs | map({key: .c, value: .m}) | from_entries) as $m
		| $cs[] | select(.c | startswith("2w-"))
		| (.c | split("-")[1]) as $f
		| [.c, (.m / $m["1w-" + $f] * 100 | round / 100)] | @tsv' \
		"$TMP/results.jsonl" >"$TMP/scaling.tsv"
	gnuplot <<EOF || log "gnuplot failed"
set terminal pngcairo size 1100,560 noenhanced
set output "$OUT/handoff.png"
set datafile separator "\t"
set title "Two workers against one: each case's rate over its pipeline's one-worker case ($RUNS runs, median)"
set style data histogram
set style fill solid 0.6
set boxwidth 0.8
set grid ytics
set yrange [0:2.4]
set xtics rotate by -30
set ylabel "x one worker"
plot "$TMP/scaling.tsv" using 2:xtic(1) notitle lc rgb "#4472c4", 1 title "one worker" lc rgb "#888888" dt 2, 2 title "linear" lc rgb "#70ad47" dt 2
EOF
	log "plot: $OUT/handoff.png"
fi
