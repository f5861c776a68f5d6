#!/usr/bin/env bash
# Training benchmark where communication matters: DDP on four hosts (h1..h4 in network
# namespaces, the e2e topology, inswitch between them on AF_XDP ports), an MLP of 10.4 M
# parameters (bench/train_mlp.py: 41 MB of float32 gradients a step, in DDP's buckets) on
# synthetic data, with the process group
#   gloo       torch.distributed's gloo (TCP through the switch's l2 path)
#   syncagtr   the inswitch backend (import inswitch.torch) through SyncAgtr, session 1
#   atp        the inswitch backend through ATP (app 1, its parameter server on h5)
# interleaved run by run (gloo, syncagtr, atp, gloo, ...) so drift in the machine's speed hits
# every backend alike. The communicators run with their defaults (SyncAgtr: 4 threads, window
# 128; ATP: 1 thread, window 100, scale 2^20), every all_reduce checked end to end.
# A run: 2 warm-up steps, then --steps timed steps (the slowest rank's time of each); its time
# per step is the median of those. The report: per backend, min / median / max over the runs of
# that time, the ratio of medians to gloo's, and the loss curves' largest difference from gloo's
# of the same round (gloo's: from its first run's), the same seeds and data, so only the
# gradient sums' rounding differs; against the bound
# docs/training.md gives for the digits model (1e-3). To stdout and bench/out/train.txt; the
# raw figures in bench/out/train.tsv (run, backend, step, seconds, loss); a plot (time per step
# of every run, and the loss curves) in bench/out/train.png. A benchmark, not a test: it prints.
# --only "B1 B2": only those backends (gloo is always run: the ratios are to it); --switch
# "OPTIONS": more daemon options for the switch (e.g. "--idle-sleep-us 1000").
# usage: bench/train.sh [--runs N] [--steps S] [--only BACKENDS] [--switch OPTIONS]
#                       [--build DIR] [-- train_mlp.py options]
# Needs root (namespaces, AF_XDP). About 1-2 min a run of the three on a 2-vCPU VM.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
RUNS=3
STEPS=10
BUILD=""
ONLY="syncagtr atp"
SWITCH=""
EXTRA=()
while [ $# -gt 0 ]; do
	case $1 in
	--runs) RUNS=$2; shift 2 ;;
	--steps) STEPS=$2; shift 2 ;;
	--only) ONLY=$2; shift 2 ;;
	--switch) SWITCH=$2; shift 2 ;;
	--build) BUILD=$(cd "$2" && pwd); shift 2 ;;
	--) shift; EXTRA=("$@"); break ;;
	*) echo "usage: bench/train.sh [--runs N] [--steps S] [--only BACKENDS] [--switch OPTIONS] [--build DIR] [-- train_mlp.py options]" >&2; exit 2 ;;
	esac
done
source "$ROOT/bench/lib.sh"
bench_prepare train.sh root
TSV=$OUT/train.tsv
printf 'run\tbackend\tstep\tseconds\tloss\n' >"$TSV"

source tests/e2e/lib.sh
trap isw_cleanup EXIT
log() { echo "bench: $*" >&2; }
isw_python "$BUILD"
ls "$BUILD"/hosts/python/_c10d.cpython-*.so >/dev/null 2>&1 ||
	isw_fail "inswitch._c10d is not built (libtorch-dev, pybind11-dev)"

N=4
# both pipelines at once (SyncAgtr's UDP and ATP's EtherType never meet), which together take
# more stateful ALUs than the tofino2 profile has: the unlimited profile (docs/asic-model.md)
isw_train_up "$BUILD" $N --profile unlimited --pipeline atp $SWITCH
log "inswitch on $ISW_DRIVER ports"
isw_ctl atp app add 1 workers $N ports "$(seq -s, 0 $((N - 1)))" ps $N >/dev/null
isw_atp_ps 5 --app 1 --workers $N || isw_fail "no parameter server"
export GLOO_SOCKET_IFNAME=eth0

port=29700
# run_one RUN BACKEND: the four ranks; rank 0's JSON into the TSV
run_one() {
	local run=$1 b=$2 r pids=() env=()
	case $b in
	syncagtr) env=(INSWITCH_SWITCH_IP=10.99.0.254 INSWITCH_CTL="$ISW_CTL_SOCK") ;;
	atp) env=(INSWITCH_PROTOCOL=atp INSWITCH_APP=1 INSWITCH_DEV=eth0) ;;
	esac
	port=$((port + 1)) # a new rendezvous port a run: no TIME_WAIT in the way
	for ((r = 0; r < N; r++)); do
		isw_ns $((r + 1)) env "${env[@]}" "$py" bench/train_mlp.py --rank $r --workers $N \
			--master "10.99.0.1:$port" --backend "$([ "$b" = gloo ] && echo gloo || echo inswitch)" \
			--steps "$STEPS" "${EXTRA[@]}" >"$ISW_TMP/t.$r.json" 2>"$ISW_TMP/t.$r.err" &
		pids+=($!)
	done
	for p in "${pids[@]}"; do
		wait "$p" || {
			tail -n 20 "$ISW_TMP"/t.*.err >&2
			isw_fail "$b run $run: a rank failed"
		}
	done
	jq -r --arg run "$run" --arg b "$b" '[.seconds, .losses] | transpose | to_entries[] |
		[$run, $b, .key, .value[0], .value[1]] | @tsv' "$ISW_TMP/t.0.json" >>"$TSV"
	cp "$ISW_TMP/t.0.json" "$OUT/train.$b.$run.json"
	if [ "$b" != gloo ]; then
		jq -e '.comm.fallbacks == 0 and .comm.verified == .comm.jobs' "$ISW_TMP/t.0.json" \
			>/dev/null || isw_fail "$b run $run: $(jq -c .comm "$ISW_TMP/t.0.json")"
	fi
	log "$b run $run: median $(jq '.seconds | sort | if length % 2 == 1 then .[length / 2 | floor]
		else (.[length / 2 - 1] + .[length / 2]) / 2 end' "$ISW_TMP/t.0.json") s a step"
}

for ((run = 1; run <= RUNS; run++)); do
	for b in gloo $ONLY; do
		run_one $run $b
	done
done

"$py" - "$TSV" "$RUNS" "$STEPS" <<'EOF' | tee "$OUT/train.txt"
import csv, statistics, sys
rows = list(csv.DictReader(open(sys.argv[1]), delimiter="\t"))
runs = {}
for r in rows:
    runs.setdefault((r["backend"], r["run"]), []).append((float(r["seconds"]), float(r["loss"])))
med = {}
for (b, run), v in runs.items():
    med.setdefault(b, []).append(statistics.median(s for s, _ in v))
gloo = statistics.median(med["gloo"])
print("bench/train.sh: %s runs of %s timed steps, MLP of %s; time per step (the median of a run's "
      "steps), over the runs:" % (sys.argv[2], sys.argv[3], "10.4 M parameters"))
print("%-10s %9s %9s %9s %9s   %s" % ("backend", "min s", "median s", "max s", "x gloo",
                                      "largest |loss - gloo's loss| over steps and runs"))
# each run's losses against gloo's of the same round; gloo's against its first run's
ref = {run: [l for _, l in v] for (b, run), v in runs.items() if b == "gloo"}
for b in ("gloo", "syncagtr", "atp"):
    if b not in med:
        continue
    m = med[b]
    d = max(abs(l - ref["1" if b == "gloo" else run][i]) for (bb, run), v in runs.items()
            if bb == b for i, (_, l) in enumerate(v))
    print("%-10s %9.3f %9.3f %9.3f %9.2f   %.2e" % (b, min(m), statistics.median(m), max(m),
                                                  statistics.median(m) / gloo, d))
EOF

command -v gnuplot >/dev/null || { log "no gnuplot: no plot"; exit 0; }
gnuplot <<EOF
set terminal pngcairo size 1000,420
set output "$OUT/train.png"
set datafile separator "\t"
set multiplot layout 1,2 title "bench/train.sh: DDP, 4 hosts, MLP of 10.4 M parameters"
set xlabel "run"
set xtics 1
set ylabel "time per step (s), each timed step"
set key top left
plot for [b in "gloo $ONLY"] "$TSV" every ::1 using (strcol(2) eq b ? \$1 + 0.1 * (b eq "syncagtr") + 0.2 * (b eq "atp") : 1/0):4 with points title b
set xlabel "step"
set xtics auto
set ylabel "loss (rank 0's batch), run 1"
plot for [b in "gloo $ONLY"] "$TSV" every ::1 using (strcol(2) eq b && \$1 == 1 ? \$3 : 1/0):5 with linespoints title b
unset multiplot
EOF
log "plot: $OUT/train.png"
