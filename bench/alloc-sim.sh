#!/usr/bin/env bash
# The allocator's policies at scale (docs/memory.md): bench/alloc-sim (the switch's own planner,
# dataplane/alloc_plan.c, driving a trace-driven simulation) for static, fcfs and edf at every
# load level, on a measured curve of one job's goodput against its region size: --curve FILE,
# else bench/out/alloc-curve.txt when bench/alloc-curve.sh has made one, else the curve measured
# on the development VM and kept in bench/alloc-curve.ref. --link-gbps: what the curve's best
# point stands for (default 25: 25 GbE worker links); only its shape comes from this machine.
# The table (stdout and bench/out/alloc-sim.txt, raw in bench/out/alloc-sim.tsv), the target's
# check (edf meets strictly more deadlines than fcfs and static at every load where no policy
# meets them all, and no fewer anywhere, with an average JCT no more than 10 % above fcfs'),
# and a plot: bench/out/alloc-sim.png
# and, in text, at the end of alloc-sim.txt (gnuplot, installed if missing). A benchmark: it
# prints. No root needed.
# usage: bench/alloc-sim.sh [--curve FILE] [--link-gbps G] [--jobs N] [--seeds S] [--build DIR]
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
CURVE=""
GBPS=25
JOBS=300
SEEDS=5
BUILD=""
usage() {
	echo "usage: bench/alloc-sim.sh [--curve FILE] [--link-gbps G] [--jobs N] [--seeds S] [--build DIR]" >&2
	exit 2
}
while [ $# -gt 0 ]; do
	case $1 in
	--curve) CURVE=$(realpath "$2"); shift 2 ;;
	--link-gbps) GBPS=$2; shift 2 ;;
	--jobs) JOBS=$2; shift 2 ;;
	--seeds) SEEDS=$2; shift 2 ;;
	--build) BUILD=$(cd "$2" && pwd); shift 2 ;;
	*) usage ;;
	esac
done
source "$ROOT/bench/lib.sh"
bench_prepare alloc-sim.sh
if [ -z "$CURVE" ]; then
	CURVE=$ROOT/bench/alloc-curve.ref
	[ -f "$OUT/alloc-curve.txt" ] && CURVE=$OUT/alloc-curve.txt
fi
TSV=$OUT/alloc-sim.tsv
"$BUILD/bench/alloc-sim" --curve "$CURVE" --link-gbps "$GBPS" --jobs "$JOBS" --seeds "$SEEDS" \
	--loads 0.5,1,1.5,2,3,4,6 >"$TSV"

python3 - "$TSV" <<'EOF' | tee "$OUT/alloc-sim.txt"
import csv, sys
lines = open(sys.argv[1]).read().splitlines()
print(lines[0])
rows = list(csv.DictReader(lines[1:], delimiter="\t"))
by = {}
for r in rows:
    by.setdefault(float(r["load"]), {})[r["policy"]] = r
print("%-5s | %-24s | %-30s" % ("load", "deadlines met (share)", "average JCT, s"))
print("%-5s | %7s %7s %7s | %9s %9s %9s" % ("", "static", "fcfs", "edf", "static", "fcfs",
                                            "edf"))
ok = True
for load in sorted(by):
    p = by[load]
    met = {k: float(v["met_share"]) for k, v in p.items()}
    jct = {k: float(v["avg_jct_s"]) for k, v in p.items()}
    print("%-5g | %7.3f %7.3f %7.3f | %9.1f %9.1f %9.1f" % (
        load, met["static"], met["fcfs"], met["edf"], jct["static"], jct["fcfs"], jct["edf"]))
    # where no policy meets every deadline, edf must meet strictly more; elsewhere at least
    # as many (it meets them all there when any policy does)
    if max(met.values()) < 1 and not (met["edf"] > met["fcfs"] and met["edf"] > met["static"]):
        ok = False
    if met["edf"] < max(met.values()):
        ok = False
    if jct["edf"] > 1.1 * jct["fcfs"]:
        ok = False
print("target (edf meets strictly more deadlines than fcfs and static at every load where no "
      "policy meets them all, no fewer anywhere; its average JCT within 10 %% of fcfs'): %s"
      % ("met" if ok else "NOT met"))
EOF

bench_gnuplot
if command -v gnuplot >/dev/null; then
	for pol in static fcfs edf; do
		awk -F'\t' -v p=$pol '$2 == p { print $1 "\t" $7 "\t" $4 }' "$TSV" >"$OUT/alloc-sim.$pol.tsv"
	done
	plot() { # TERMINAL OUTPUT
		gnuplot <<EOF
set terminal $1
set output "$2"
set datafile separator "\t"
set multiplot layout 1,2
set xlabel "load"
set key at 3.4,0.6
set yrange [0:1.05]
set title "deadlines met (share)"
plot "$OUT/alloc-sim.static.tsv" using 1:2 with linespoints title "static", \
     "$OUT/alloc-sim.fcfs.tsv" using 1:2 with linespoints title "fcfs", \
     "$OUT/alloc-sim.edf.tsv" using 1:2 with linespoints title "edf"
set yrange [*:*]
set logscale y
set key default
set key inside top left
set title "average JCT, s"
plot "$OUT/alloc-sim.static.tsv" using 1:3 with linespoints title "static", \
     "$OUT/alloc-sim.fcfs.tsv" using 1:3 with linespoints title "fcfs", \
     "$OUT/alloc-sim.edf.tsv" using 1:3 with linespoints title "edf"
unset multiplot
EOF
	}
	plot "pngcairo size 1100,460 noenhanced" "$OUT/alloc-sim.png" || echo "bench: gnuplot failed" >&2
	plot "dumb size 120,30" "$OUT/alloc-sim.plot.txt" && cat "$OUT/alloc-sim.plot.txt" >>"$OUT/alloc-sim.txt"
	echo "bench: plot $OUT/alloc-sim.png; as text at the end of $OUT/alloc-sim.txt" >&2
fi
