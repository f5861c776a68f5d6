#!/usr/bin/env bash
# The curve the memory allocator's model stands on (docs/memory.md): one SyncAgtr job's goodput
# as a function of its region size, measured. Four hosts in network namespaces, one switch on
# their veth ports (net_af_xdp, --idle-sleep-us 200); for each window W of --windows, session 1
# is made again with W slots (a slot keeps one packet in flight: its two sets hold the round
# being summed and the previous round's result, kept for resends) and the four workers (syncagtr-worker, 1 thread, window W, 256-value
# packets, checked end to end) allreduce --rounds x W packets of int32 each (every slot used
# --rounds times); --runs runs a point, interleaved
# point by point. Prints per region size the median goodput a worker and the workers' smoothed
# round trip, to stdout and bench/out/alloc-curve.txt; bench/alloc-sim reads that file
# ("units goodput_gbps" lines). A benchmark: it prints.
# usage: bench/alloc-curve.sh [--runs N] [--rounds R] [--windows W1,W2,...] [--build DIR]
# Needs root (namespaces, AF_XDP).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
RUNS=3
ROUNDS=64
WINDOWS=1,2,4,8,16,32,64,128,256,512,1024,2048
BUILD=""
usage() {
	echo "usage: bench/alloc-curve.sh [--runs N] [--rounds R] [--windows W1,W2,...] [--build DIR]" >&2
	exit 2
}
while [ $# -gt 0 ]; do
	case $1 in
	--runs) RUNS=$2; shift 2 ;;
	--rounds) ROUNDS=$2; shift 2 ;;
	--windows) WINDOWS=$2; shift 2 ;;
	--build) BUILD=$(cd "$2" && pwd); shift 2 ;;
	*) usage ;;
	esac
done
[[ $RUNS =~ ^[1-9][0-9]*$ && $ROUNDS =~ ^[1-9][0-9]*$ && $WINDOWS =~ ^[1-9][0-9]*(,[1-9][0-9]*)*$ ]] || usage
source "$ROOT/bench/lib.sh"
bench_prepare alloc-curve.sh root
TSV=$OUT/alloc-curve.tsv
printf 'run\tslots\twindow\tseconds\tgoodput_gbps\tsrtt_ms\n' >"$TSV"

source tests/e2e/lib.sh
trap isw_cleanup EXIT
worker=$BUILD/hosts/syncagtr/syncagtr-worker
isw_topo_create 4
ISW_DRIVERS=net_af_xdp isw_switch_start "$BUILD" --pipeline syncagtr --idle-sleep-us 200 || isw_fail "no switch"

for ((run = 1; run <= RUNS; run++)); do
	for w in ${WINDOWS//,/ }; do
		isw_ctl syncagtr session del 1 >/dev/null 2>&1 || true
		isw_ctl syncagtr session add 1 ip 10.99.0.254 workers 4 slots "$w" >/dev/null
		for r in 0 1 2 3; do
			isw_ctl syncagtr worker add 1 $r mac "02:00:00:00:00:0$((r + 1))" \
				ip "10.99.0.$((r + 1))" port $r >/dev/null
		done
		pids=()
		for r in 0 1 2 3; do
			isw_ns $((r + 1)) "$worker" --rank $r --workers 4 --switch-ip 10.99.0.254 \
				--count $((ROUNDS * w * 256)) --threads 1 --window "$w" --json --quiet \
				>"$ISW_TMP/$r.json" 2>"$ISW_TMP/$r.err" &
			pids[r]=$!
		done
		for r in 0 1 2 3; do
			wait "${pids[$r]}" || isw_fail "window $w rank $r: $(cat "$ISW_TMP/$r.err")"
		done
		secs=$(cat "$ISW_TMP"/?.json | jq -s 'map(.seconds) | max')
		gb=$(cat "$ISW_TMP"/?.json | jq -s 'map(.goodput_gbps) | min')
		rtt=$(cat "$ISW_TMP"/?.json | jq -s 'map(.srtt_ms) | sort | (.[1] + .[2]) / 2')
		printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$run" "$w" "$w" "$secs" "$gb" "$rtt" >>"$TSV"
		echo "bench: run $run, $w slots: $gb Gbit/s a worker, srtt $rtt ms" >&2
	done
done

python3 - "$TSV" "$RUNS" "$ROUNDS" <<'EOF' | tee "$OUT/alloc-curve.txt"
import csv, statistics, sys
rows = list(csv.DictReader(open(sys.argv[1]), delimiter="\t"))
print("# bench/alloc-curve.sh: one SyncAgtr job of 4 workers, 1 thread, window W = slots, "
      "%s x W packets of 256 int32 each, median of %s runs" % (sys.argv[3], sys.argv[2]))
print("# units goodput_gbps (a worker) srtt_ms")
for s in sorted({int(r["slots"]) for r in rows}):
    rs = [r for r in rows if int(r["slots"]) == s]
    print("%d %.4f %.3f" % (s, statistics.median(float(r["goodput_gbps"]) for r in rs),
                            statistics.median(float(r["srtt_ms"]) for r in rs)))
EOF
