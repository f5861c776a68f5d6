#!/usr/bin/env bash
# Host benchmark: how fast jobs finish end to end, hosts and switch together, against what users
# have today: PyTorch's gloo allreduce over TCP (through the switch's l2 path, on the same hosts).
#
# The demo's topology: hosts h1..h5 in network namespaces, joined by veth pairs to inswitch on
# AF_XDP ports (AF_PACKET where AF_XDP is unavailable). In each run, interleaved so that drift in
# the machine's speed hits every case alike:
#   gloo       torch.distributed allreduce (gloo, TCP) of the tensor on h1..h4
#   syncagtr   syncagtr-worker on h1..h4, each transport (--transport socket, xdp), with its
#              end-to-end check after every job (the default) and without it (--no-verify:
#              the cases *-noverify); the report's last table gives the check's cost
#   atp        atp-worker on h1..h4 and atp-ps on h5, each transport, with its end-to-end check
#              (the default) and without it (--no-verify: the cases *-noverify)
# for int32 and float32 tensors of --count elements per worker (default 16 Mi: 64 MiB), and
#   ask        ask-wordcount of the fortunes text (4 times), senders h1, h2, receiver h3 (tuples/s),
#              each transport
# Every job checks its result; a wrong one stops the benchmark. The report gives, per case, the
# slowest worker's time and its goodput (tensor bits / time) as min / median / max over the runs,
# and the ratios of medians to gloo's of the same type and to the same tool on sockets. It goes to
# stdout and bench/out/hosts.txt, the raw figures to bench/out/hosts.tsv, a plot to
# bench/out/hosts.png (gnuplot, installed if missing). A benchmark, not a test: it prints.
#
# With --before REV, every tool also runs as built from commit REV (in a worktree of its own):
# the "before" cases and the report's "x before" column, the tools users had at REV (e.g. 0851cbd,
# the last commit before the shared transport).
# --only "gloo syncagtr" runs only those tools (of gloo syncagtr atp ask).
# usage: bench/hosts.sh [--runs N] [--count C] [--transports "socket xdp"] [--build DIR]
#                       [--before REV] [--only TOOLS]
# Needs root (namespaces, AF_XDP; uses sudo otherwise). About 1 min a run on a 2-vCPU VM.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
RUNS=3
COUNT=16Mi
TRANSPORTS="socket xdp"
BUILD=""
BEFORE=""
ONLY="gloo syncagtr atp ask"
while [ $# -gt 0 ]; do
	case $1 in
	--runs) RUNS=$2; shift 2 ;;
	--count) COUNT=$2; shift 2 ;;
	--transports) TRANSPORTS=$2; shift 2 ;;
	--build) BUILD=$(cd "$2" && pwd); shift 2 ;;
	--before) BEFORE=$2; shift 2 ;;
	--only) ONLY=$2; shift 2 ;;
	*) echo "usage: bench/hosts.sh [--runs N] [--count C] [--transports \"socket xdp\"] [--build DIR] [--before REV] [--only TOOLS]" >&2; exit 2 ;;
	esac
done
if [ "$(id -u)" -ne 0 ]; then
	exec sudo --preserve-env=PATH "$0" --runs "$RUNS" --count "$COUNT" --transports "$TRANSPORTS" \
		${BUILD:+--build "$BUILD"} ${BEFORE:+--before "$BEFORE"} --only "$ONLY"
fi
source "$ROOT/bench/lib.sh"
bench_prepare hosts.sh
bench_gnuplot
TSV=$OUT/hosts.tsv
: >"$TSV"
elems=$(numfmt --from=iec "${COUNT%i}")

source tests/e2e/lib.sh
log() { echo "bench: $*" >&2; }
# --before REV: the host tools of commit REV, built in a worktree of their own, run as the
# "before" transport of every tool (they take no --transport): the tools users had then.
BSRC=""
BBUILD=""
before_cleanup() {
	[ -z "$BSRC" ] || git -C "$ROOT" worktree remove --force "$BSRC" 2>/dev/null || true
	[ -z "$BBUILD" ] || rm -rf "$(dirname "$BBUILD")"
}
trap 'isw_cleanup; before_cleanup' EXIT
if [ -n "$BEFORE" ]; then
	BBUILD=$(mktemp -d -t inswitch-before.XXXXXX)/build # in $TMPDIR, /tmp by default
	BSRC=$(dirname "$BBUILD")/src
	log "building the host tools of $BEFORE in $BSRC"
	git -C "$ROOT" worktree add --detach "$BSRC" "$BEFORE" >/dev/null 2>&1 ||
		isw_fail "--before $BEFORE: no such commit"
	{ meson setup "$BBUILD" "$BSRC" && ninja -C "$BBUILD"; } >"$ISW_TMP/before-build.log" 2>&1 || {
		tail -20 "$ISW_TMP/before-build.log" >&2
		isw_fail "--before $BEFORE: the build failed"
	}
	TRANSPORTS="$TRANSPORTS before"
fi

isw_topo_create 5
isw_switch_start "$BUILD" --pipeline syncagtr >/dev/null || isw_fail "inswitch did not start"
log "inswitch on $ISW_DRIVER ports"
isw_l2_static >/dev/null || isw_fail "l2 add"
isw_ctl l2 flood unknown off >/dev/null
isw_wait_path 1 10.99.0.5 || isw_wait_path 1 10.99.0.5 || isw_fail "h1 never reached h5"
for i in 2 3 4; do isw_wait_path $i 10.99.0.1 || isw_fail "h$i never reached h1"; done

# switch_time SECONDS: what the switch's lcore spent per frame in the job just run (stats reset
# before it), in microseconds: the driver's receive calls and the pipelines per frame received,
# the driver's transmit calls per frame sent (stats show's time shares, docs/ctl.md); and the
# frames it received and sent per second of the job's SECONDS, in millions. Four tab-separated
# fields.
switch_time() {
	isw_ctl --json stats show | jq -r --argjson job "$1" '.elapsed_s as $e |
		([.ports[].rx_pkts] | add) as $rx | ([.ports[].tx_pkts] | add) as $tx | .workers[0] |
		([.rx_pct / $rx, .pipeline_pct / $rx, .tx_pct / $tx] | map(. * $e * 1e4)) +
		[($rx + $tx) / $job / 1e6] | map(. * 100 | round / 100) | @tsv'
}

# record CASE RUN FILES...: the slowest worker's seconds of the workers' JSON files.
record() {
	local name=$1 run=$2 s
	shift 2
	jq -s -e 'all(.verified == true)' "$@" >/dev/null || {
		cat "$@" >&2
		isw_fail "$name run $run: a result was wrong"
	}
	s=$(jq -s 'map(.seconds) | max' "$@")
	printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$name" "$run" "$s" \
		"$(awk -v n="$elems" -v s="$s" 'BEGIN { printf "%.4f", n * 32 / s / 1e9 }')" \
		"$(switch_time "$s")" >>"$TSV"
	log "$name run $run: $s s"
}

# waitall NAME PIDS...: fails the benchmark unless every process exited 0.
waitall() {
	local name=$1 p
	shift
	for p in "$@"; do
		wait "$p" || {
			cat "$ISW_TMP/$name".*.err >&2 2>/dev/null || true
			isw_fail "$name: a process failed"
		}
	done
}

gloo_port=29600
run_gloo() {
	local type=$1 run=$2 r pids=()
	isw_ctl stats reset >/dev/null
	gloo_port=$((gloo_port + 1)) # a new rendezvous port a run: no TIME_WAIT in the way
	for r in 0 1 2 3; do
		ip netns exec "${ISW_TAG}h$((r + 1))" env GLOO_SOCKET_IFNAME=eth0 /usr/bin/python3 \
			bench/gloo_allreduce.py --rank $r --workers 4 --master "10.99.0.1:$gloo_port" \
			--count "$elems" --type "$type" >"$ISW_TMP/gloo.$r.json" 2>"$ISW_TMP/gloo.$r.err" &
		pids+=($!)
	done
	waitall gloo "${pids[@]}"
	record "gloo-$type" "$run" "$ISW_TMP"/gloo.[0-3].json
}

# tool TRANSPORT: the build directory of that transport's tools (--before's for "before").
tools() {
	if [ "$1" = before ]; then echo "$BBUILD"; else echo "$BUILD"; fi
}

# trarg TRANSPORT: the option that selects it (none for the tools of --before).
trarg() {
	[ "$1" = before ] || echo "--transport $1"
}

# run_sa TYPE TRANSPORT RUN [noverify]: the four SyncAgtr workers (with noverify: --no-verify,
# the case's name ends in -noverify; --check verifies the tensors either way).
run_sa() {
	local type=$1 tr=$2 run=$3 nv=${4:-} r pids=()
	# a new run starts from set 0 in every slot (no worker runs now)
	isw_ctl syncagtr session reset 1 >/dev/null 2>&1 || true
	isw_ctl stats reset >/dev/null
	for r in 0 1 2 3; do
		# shellcheck disable=SC2046 # trarg is zero or two words
		isw_ns $((r + 1)) "$(tools "$tr")/hosts/syncagtr/syncagtr-worker" --rank $r --workers 4 \
			--switch-ip 10.99.0.254 --ctl "$ISW_CTL_SOCK" --session 1 --count "$COUNT" \
			--type "$type" $(trarg "$tr") --check --json --quiet ${nv:+--no-verify} \
			>"$ISW_TMP/sa.$r.json" 2>"$ISW_TMP/sa.$r.err" &
		pids+=($!)
	done
	waitall sa "${pids[@]}"
	record "syncagtr-$type-$tr${nv:+-$nv}" "$run" "$ISW_TMP"/sa.[0-3].json
}

atp_job=100 # --job and --ctl: what tools before the PS named each job needed (they ignore them now)
# run_atp TYPE TRANSPORT RUN [noverify]: app 1's PS and four workers (with noverify:
# --no-verify, the case's name ends in -noverify; --check verifies the tensors either way).
run_atp() {
	local type=$1 tr=$2 run=$3 nv=${4:-} r pids=() ps job=$((++atp_job))
	# shellcheck disable=SC2046
	ip netns exec "${ISW_TAG}h5" "$(tools "$tr")/hosts/atp/atp-ps" --app 1 --dev eth0 --workers 4 \
		$(trarg "$tr") --quiet >/dev/null 2>"$ISW_TMP/atp.ps.err" &
	ps=$!
	sleep 0.3
	isw_ctl stats reset >/dev/null
	for r in 0 1 2 3; do
		# shellcheck disable=SC2046
		isw_ns $((r + 1)) "$(tools "$tr")/hosts/atp/atp-worker" --id $r --workers 4 --app 1 \
			--dev eth0 --count "$COUNT" --type "$type" $(trarg "$tr") --check --json \
			--quiet --ctl "$ISW_CTL_SOCK" --job "$job" ${nv:+--no-verify} \
			>"$ISW_TMP/atp.$r.json" 2>"$ISW_TMP/atp.$r.err" &
		pids+=($!)
	done
	waitall atp "${pids[@]}"
	kill -TERM $ps 2>/dev/null || true
	wait $ps || true
	record "atp-$type-$tr${nv:+-$nv}" "$run" "$ISW_TMP"/atp.[0-3].json
}

# ASK's address is not SyncAgtr's: the switch answers ARP for each with its pipeline's MAC, and
# hosts that cached ASK's would send the next run's SyncAgtr packets to it until the kernel's
# entry expired (up to 45 s), longer than the workers' start barrier waits.
ASK_IP=10.99.0.252

# The fortunes text four times over (1.8 M tuples): a job of about a second, so that starting the
# processes is not most of it.
ask_input=()
for _ in 1 2 3 4; do
	for f in /usr/share/games/fortunes/*; do
		[[ -f $f && $f != *.dat && $f != *.u8 ]] && ask_input+=(--input "$f")
	done
done
run_ask() {
	local tr=$1 run=$2 line
	isw_ctl stats reset >/dev/null
	local src=$ROOT
	[ "$tr" != before ] || src=$BSRC
	# shellcheck disable=SC2046
	"$src/hosts/ask/ask-wordcount" --build "$(tools "$tr")/hosts/ask" --receiver-ns "${ISW_TAG}h3" \
		--receiver-ip 10.99.0.3 --switch-ip "$ASK_IP" --senders "${ISW_TAG}h1,${ISW_TAG}h2" \
		"${ask_input[@]}" --slots 16 --key-bytes 16 --aa-size 2048 --window 64 \
		--swap-threshold 2000 --ctl "$ISW_CTL_SOCK" --ctl-bin "$BUILD/inswitch-ctl" \
		--receiver-mac 02:00:00:00:00:03 --switch-port 2 --sender-ports 0,1 $(trarg "$tr") \
		>"$ISW_TMP/ask.out" 2>"$ISW_TMP/ask.err" || {
		cat "$ISW_TMP/ask.out" "$ISW_TMP/ask.err" >&2
		isw_fail "ask-wordcount ($tr) run $run failed"
	}
	line=$(grep '^time:' "$ISW_TMP/ask.out")
	# time: S s, T tuples/s: seconds, and (in the goodput column) M tuples/s
	printf 'ask-wordcount-%s\t%s\t%s\t%s\t%s\n' "$tr" "$run" "$(echo "$line" | awk '{print $2}')" \
		"$(echo "$line" | awk '{printf "%.4f", $4 / 1e6}')" \
		"$(switch_time "$(echo "$line" | awk '{print $2}')")" >>"$TSV"
	log "ask-wordcount-$tr run $run: $line"
}

pipeline() {
	local p out
	for p in syncagtr atp ask; do
		[ "$p" = "$1" ] || isw_ctl pipeline disable $p >/dev/null 2>&1 || true
	done
	out=$(isw_ctl pipeline enable "$1" 2>&1) || [[ $out == *"already enabled"* ]] ||
		isw_fail "pipeline enable $1: $out"
}

# only TOOL: whether --only lists it
only() { [[ " $ONLY " == *" $1 "* ]]; }

for ((run = 1; run <= RUNS; run++)); do
	pipeline syncagtr
	for type in int32 float32; do
		! only gloo || run_gloo $type $run
		only syncagtr || continue
		for tr in $TRANSPORTS; do
			run_sa $type "$tr" $run
			# the tools of --before have no end-to-end check to turn off
			[ "$tr" = before ] || run_sa $type "$tr" $run noverify
		done
	done
	if only atp; then
		pipeline atp
		isw_ctl atp app add 1 workers 4 ports 0,1,2,3 ps 4 >/dev/null
		for type in int32 float32; do
			for tr in $TRANSPORTS; do
				run_atp $type "$tr" $run
				[ "$tr" = before ] || run_atp $type "$tr" $run noverify
			done
		done
	fi
	if only ask; then
		pipeline ask
		isw_ctl ask config set ip "$ASK_IP" >/dev/null
		for tr in $TRANSPORTS; do run_ask $tr $run; done
	fi
done

# The report: per case min / median / max of seconds and goodput, ratios of medians.
report() {
	sort -k1,1 -k4,4g "$TSV" | awk -F'\t' '
	{ n[$1]++; g[$1, n[$1]] = $4; s[$1, n[$1]] = $3; order[$1] = order[$1] ? order[$1] : ++cases; name[order[$1]] = $1
	  srx[$1] += $5; spl[$1] += $6; stx[$1] += $7; sfr[$1] += $8 }
	function med(arr, c, k) { k = n[c]; return k % 2 ? arr[c, (k + 1) / 2] : (arr[c, k / 2] + arr[c, k / 2 + 1]) / 2 }
	END {
		for (i = 1; i <= cases; i++) { c = name[i]; mg[c] = med(g, c) }
		printf "%-24s %5s  %-27s %-24s %8s %9s %9s  %s\n", "case", "runs", "seconds min/med/max",
		       "Gbit/s min/med/max", "x gloo", "x socket", "x before", "switch us/frame rx pipe tx, Mframes/s"
		for (i = 1; i <= cases; i++) {
			c = name[i]; k = n[c]
			# seconds sorted too: the fastest run has the highest goodput
			split(c, p, "-"); ref = "gloo-" p[2]; sfx = p[4] != "" ? "-" p[4] : ""
			sock = p[1] "-" p[2] "-socket" sfx; bef = p[1] "-" p[2] "-before"
			xg = (c !~ /^ask/ && (ref in mg)) ? sprintf("%.2f", mg[c] / mg[ref]) : "-"
			xs = (p[3] != "" && (sock in mg)) ? sprintf("%.2f", mg[c] / mg[sock]) : "-"
			xb = (p[3] != "" && (bef in mg)) ? sprintf("%.2f", mg[c] / mg[bef]) : "-"
			printf "%-24s %5d  %7.3f %7.3f %7.3f    %6.3f %6.3f %6.3f  %8s %9s %9s  %5.2f %5.2f %5.2f   %5.2f\n", c, k,
			       s[c, k], med(s, c), s[c, 1], g[c, 1], mg[c], g[c, k], xg, xs, xb,
			       srx[c] / k, spl[c] / k, stx[c] / k, sfr[c] / k
		}
	}'
}
# The end-to-end check's cost: each SyncAgtr and ATP case's median seconds with the check (the
# default) and without (--no-verify).
check_cost() {
	grep -q -- '-noverify	' "$TSV" || return 0
	echo
	echo "The end-to-end check (every job, by default): median seconds with and without it"
	sort -k1,1 -k3,3g "$TSV" | awk -F'\t' '
	$1 ~ /^(syncagtr|atp)/ { n[$1]++; x[$1, n[$1]] = $3 }
	function med(c, m) { m = n[c]; return m % 2 ? x[c, (m + 1) / 2] : (x[c, m / 2] + x[c, m / 2 + 1]) / 2 }
	END {
		printf "%-24s %9s %11s %8s\n", "case", "checked", "--no-verify", "cost"
		for (c in n) {
			if (c ~ /-noverify$/ || !((c "-noverify") in n)) continue
			with = med(c); without = med(c "-noverify")
			printf "%-24s %9.3f %11.3f %7.1f%%\n", c, with, without,
			       100 * (with - without) / without
		}
	}' | sort
}

{
	echo "bench/hosts.sh: $(date -u '+%F %T') UTC, $(nproc) CPUs, $ISW_DRIVER ports, $RUNS runs," \
		"$COUNT elements per worker ($((elems * 4 / 1048576)) MiB), 4 workers"
	echo "(ask-wordcount-*: 'seconds' is the job's time, 'Gbit/s' is M tuples/s)"
	echo "(switch us/frame: its lcore's time per frame received in the driver's receive calls and in the"
	echo " pipelines, per frame sent in the driver's transmit calls, mean of the runs; on AF_XDP veth"
	echo " ports the driver's calls are the kernel's copies out of and into the hosts; Mframes/s:"
	echo " frames the switch received and sent, per second of the job)"
	report
	check_cost
} | tee "$OUT/hosts.txt"

if command -v gnuplot >/dev/null; then
	report | awk 'NR > 1 && $1 !~ /^ask/ { print $1, $7, $6, $8 }' >"$OUT/hosts.dat"
	gnuplot <<EOF
set terminal pngcairo size 1100,560 noenhanced
set rmargin 10
set bmargin 9
set output "$OUT/hosts.png"
set title "Allreduce of $COUNT int32/float32 per worker, 4 workers through inswitch ($RUNS runs: median, min-max)"
set ylabel "Gbit/s per worker (slowest worker)"
set style data histogram
set style histogram errorbars gap 1 lw 1
set style fill solid 0.6
set boxwidth 0.8
set xtics rotate by -30
set yrange [0:*]
set grid ytics
plot "$OUT/hosts.dat" using 2:3:4:xtic(1) notitle
EOF
	log "plot: $OUT/hosts.png"
fi
