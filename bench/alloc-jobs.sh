#!/usr/bin/env bash
# Three concurrent SyncAgtr jobs on a pool below their peak needs, under each of the allocator's
# policies (docs/memory.md): tests/e2e/alloc_jobs.sh's set-up (six hosts, one switch; job c
# best-effort, a and b with deadlines; each 6 batches of 10 iterations of 256 Ki int32 a worker
# every result checked), without fault injection. First job a alone (fcfs: all the memory it can
# use) gives T, its time alone; the deadlines are then a's 1.5 T and b's 2 T from their starts.
# Then static, fcfs and edf in turn, --runs times: each job's completion time (its start to its
# last batch's end) and whether a and b met their deadlines. To stdout and
# bench/out/alloc-jobs.txt, raw in bench/out/alloc-jobs.tsv. A benchmark: it prints.
# --capacity: the pool the allocator shares (default 48 slots: memory, not the CPUs, limits the
# jobs); --period: how often it plans besides at events (default 200 ms: the jobs last seconds).
# usage: bench/alloc-jobs.sh [--runs N] [--capacity SLOTS] [--period MS] [--build DIR]
# Needs root (namespaces, AF_XDP).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
RUNS=1
CAPACITY=48
PERIOD=200
BUILD=""
while [ $# -gt 0 ]; do
	case $1 in
	--runs) RUNS=$2; shift 2 ;;
	--capacity) CAPACITY=$2; shift 2 ;;
	--period) PERIOD=$2; shift 2 ;;
	--build) BUILD=$(cd "$2" && pwd); shift 2 ;;
	*) echo "usage: bench/alloc-jobs.sh [--runs N] [--capacity SLOTS] [--period MS] [--build DIR]" >&2; exit 2 ;;
	esac
done
source "$ROOT/bench/lib.sh"
bench_prepare alloc-jobs.sh root
TSV=$OUT/alloc-jobs.tsv
printf 'run\tpolicy\tjob\tseconds\tdeadline\tmet\n' >"$TSV"
one() { # RUN POLICY JOBS DEADLINES
	local tmp
	tmp=$(mktemp)
	ALLOC_POLICY=$2 ALLOC_JOBS=$3 ALLOC_DEADLINES=$4 ALLOC_CAPACITY=$CAPACITY ALLOC_FAULTS=0 \
		ALLOC_PERIOD=$PERIOD \
		ALLOC_BATCHES=6 ALLOC_REPEAT=10 ALLOC_COUNT=256 ALLOC_TSV=$tmp \
		tests/e2e/alloc_jobs.sh "$BUILD" >&2 ||
		{ rm -f "$tmp"; return 1; }
	sed "s/^/$1\t/" "$tmp" >>"$TSV"
	rm -f "$tmp"
}
one 0 fcfs a "100000 100000"
T=$(awk -F'\t' '$1 == 0 && $3 == "a" { print $4 }' "$TSV")
DL="$(awk -v t="$T" 'BEGIN { printf "%.1f %.1f", 1.5 * t, 2 * t }')"
echo "bench: a alone took $T s: deadlines a $(cut -d' ' -f1 <<<"$DL") s, b $(cut -d' ' -f2 <<<"$DL") s" >&2
for ((run = 1; run <= RUNS; run++)); do
	for p in static fcfs edf; do
		one $run $p "a b c" "$DL"
	done
done
python3 - "$TSV" "$CAPACITY" "$PERIOD" <<'EOF' | tee "$OUT/alloc-jobs.txt"
import csv, statistics, sys
rows = [r for r in csv.DictReader(open(sys.argv[1]), delimiter="\t")]
alone = [float(r["seconds"]) for r in rows if r["run"] == "0"][0]
print("bench/alloc-jobs.sh: three jobs, pool %s slots (peak need 245 each), planned every %s ms; "
      "a alone: %.1f s; deadlines a %.1f s, b %.1f s"
      % (sys.argv[2], sys.argv[3], alone, 1.5 * alone, 2 * alone))
print("%-7s %-28s %-28s %-10s %s" % ("policy", "a: s (met)", "b: s (met)", "c: s",
                                   "deadlines met"))
for p in ("static", "fcfs", "edf"):
    rs = [r for r in rows if r["policy"] == p and r["run"] != "0"]
    if not rs:
        continue
    runs = sorted({r["run"] for r in rs})
    cell = {}
    for j in "abc":
        js = [r for r in rs if r["job"] == j]
        cell[j] = "%s (%s)" % (" ".join("%.1f" % float(r["seconds"]) for r in js),
                               " ".join(r["met"] for r in js))
    met = sum(r["met"] == "yes" for r in rs)
    print("%-7s %-28s %-28s %-10s %d of %d" % (p, cell["a"], cell["b"],
                                             cell["c"].split(" (")[0], met, 2 * len(runs)))
EOF
