#!/usr/bin/env bash
# SyncAgtr over two levels against the same job on one switch, the same hosts, in one run
# (docs/fabric.md). Hosts h1..h4 in network namespaces, each with two interfaces: eth0 to its
# leaf (h1, h2 behind L1; h3, h4 behind L2; both leaves linked to the parent P, the fabric set
# up by inswitch-fabric) and eth1 to a single switch S holding all four. Every switch has
# --idle-sleep-us 200; while one setup runs, the other's switches are stopped (SIGSTOP), so
# neither pays for the other's idle switches. The links between the switches (--links):
# memif (default: shared memory between the switch processes, polled without a syscall, as a
# NIC's PMD is on separate servers) or veth (a veth pair on AF_XDP, like the hosts' links: each
# frame through the kernel on the CPUs the hosts share). Run by run,
# interleaved: a job of --count int32 values per worker through the fabric, then through S
# (syncagtr-worker, its defaults, checked end to end). Per setup: the job's time (the slowest
# rank's) min / median / max over the runs, its goodput per worker (tensor bits / time), the
# workers' smoothed round trip (srtt_ms, median over ranks and runs); the goodput ratio of
# medians (fabric / single), the parent's frames per contribution (its admitted packets over
# its contributions: 1 when nothing is resent) and the round trip the second level adds. To
# stdout and bench/out/fabric.txt, raw figures in bench/out/fabric.tsv. A benchmark: it prints.
# --window W: the workers' window (4 threads; every session gets the 8 x W slots that needs).
# usage: bench/fabric.sh [--runs N] [--count N] [--window W] [--links memif|veth] [--build DIR]
# Needs root (namespaces, AF_XDP).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
RUNS=5
COUNT=16Mi
WINDOW=128
LINKS=memif
BUILD=""
while [ $# -gt 0 ]; do
	case $1 in
	--runs) RUNS=$2; shift 2 ;;
	--count) COUNT=$2; shift 2 ;;
	--window) WINDOW=$2; shift 2 ;;
	--links) LINKS=$2; shift 2 ;;
	--build) BUILD=$(cd "$2" && pwd); shift 2 ;;
	*) echo "usage: bench/fabric.sh [--runs N] [--count N] [--window W] [--links memif|veth] [--build DIR]" >&2; exit 2 ;;
	esac
done
case $LINKS in
memif | veth) ;;
*) echo "bench/fabric.sh: --links memif or veth, not '$LINKS'" >&2; exit 2 ;;
esac
source "$ROOT/bench/lib.sh"
bench_prepare fabric.sh root
TSV=$OUT/fabric.tsv
printf 'run\tsetup\tseconds\tgoodput_gbps\tsrtt_ms\tparent_pkts\tparent_contributions\n' >"$TSV"

source tests/e2e/lib.sh
# a stopped switch takes its SIGTERM only once continued
trap 'for s in L1 L2 P S; do kill -CONT "$(switch_pid $s)" 2>/dev/null || true; done; isw_cleanup' EXIT
switch_pid() { pgrep -f -- "--file-prefix isw-$ISW_TAG-$1 " || true; }
log() { echo "bench: $*" >&2; }
worker=$BUILD/hosts/syncagtr/syncagtr-worker

isw_topo_create 4
for i in 1 2 3 4; do
	ip link add "${ISW_TAG}q$i" type veth peer name eth1 netns "${ISW_TAG}h$i"
	ISW_LINKS+=("${ISW_TAG}q$i")
	ip link set "${ISW_TAG}q$i" up
	isw_ns $i ip link set eth1 address "02:00:00:00:01:0$i"
	isw_ns $i ip addr add "10.97.0.$i/24" dev eth1
	isw_ns $i ip link set eth1 up
	isw_ns $i ethtool -K eth1 tx off >/dev/null 2>&1 || true
done
ISW_FABRIC_LINK=$LINKS
ISW_DRIVERS=net_af_xdp isw_fabric_up "$BUILD"
isw_named_start "$BUILD" S 1 "${ISW_TAG}q1" "${ISW_TAG}q2" "${ISW_TAG}q3" "${ISW_TAG}q4" ||
	isw_fail "S"

TOPO=$ISW_TMP/fabric.topo
isw_fabric_topo syncagtr $((8 * WINDOW)) >"$TOPO"
control/inswitch-fabric apply "$TOPO" >/dev/null
isw_named_ctl S syncagtr session add 1 ip 10.97.0.254 workers 4 slots $((8 * WINDOW)) >/dev/null
for r in 0 1 2 3; do
	isw_named_ctl S syncagtr worker add 1 $r mac "02:00:00:00:01:0$((r + 1))" \
		ip "10.97.0.$((r + 1))" port $r >/dev/null
done
log "four switches on net_af_xdp ports, $LINKS links between the fabric's; the fabric applied"

# one RUN SETUP: the four ranks through the setup's switches, a row of the TSV
one() {
	local run=$1 setup=$2 ip r pids=() p0 k0 p1 k1 secs gb rtt others s
	ip=$([ "$setup" = fabric ] && echo 10.99.0.254 || echo 10.97.0.254)
	others=$([ "$setup" = fabric ] && echo S || echo L1 L2 P)
	p0=$(isw_named_ctl P --json syncagtr session show 1 | jq '.counters[0].pkts')
	k0=$(isw_named_ctl P --json syncagtr session show 1 | jq '.counters[0].contributions')
	for s in $others; do kill -STOP "$(switch_pid "$s")"; done
	for r in 0 1 2 3; do
		isw_ns $((r + 1)) "$worker" --rank $r --workers 4 --switch-ip "$ip" --count "$COUNT" \
			--threads 4 --window "$WINDOW" --json --quiet \
			>"$ISW_TMP/$setup.$r.json" 2>"$ISW_TMP/$setup.$r.err" &
		pids[r]=$!
	done
	for r in 0 1 2 3; do
		wait "${pids[$r]}" || isw_fail "$setup run $run rank $r: $(cat "$ISW_TMP/$setup.$r.err")"
	done
	for s in $others; do kill -CONT "$(switch_pid "$s")"; done
	p1=$(isw_named_ctl P --json syncagtr session show 1 | jq '.counters[0].pkts')
	k1=$(isw_named_ctl P --json syncagtr session show 1 | jq '.counters[0].contributions')
	secs=$(cat "$ISW_TMP/$setup".?.json | jq -s 'map(.seconds) | max')
	gb=$(cat "$ISW_TMP/$setup".?.json | jq -s 'map(.goodput_gbps) | min')
	rtt=$(cat "$ISW_TMP/$setup".?.json | jq -s 'map(.srtt_ms) | sort | (.[1] + .[2]) / 2')
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$run" "$setup" "$secs" "$gb" "$rtt" \
		$((p1 - p0)) $((k1 - k0)) >>"$TSV"
	log "$setup run $run: $secs s, $gb Gbit/s a worker, srtt $rtt ms"
	# both setups' sessions stay registered; a reset that keeps them clears the slots
	isw_named_ctl S syncagtr session reset 1 keep-workers >/dev/null
	for s in L1 L2 P; do isw_named_ctl $s syncagtr session reset 1 keep-workers >/dev/null; done
}

for ((run = 1; run <= RUNS; run++)); do
	one $run fabric
	one $run single
done

python3 - "$TSV" "$RUNS" "$COUNT" "$WINDOW" "$LINKS" <<'EOF' | tee "$OUT/fabric.txt"
import csv, statistics, sys
rows = list(csv.DictReader(open(sys.argv[1]), delimiter="\t"))
by = {s: [r for r in rows if r["setup"] == s] for s in ("fabric", "single")}
print("bench/fabric.sh: %s runs of %s int32 a worker, 4 workers, window %s; fabric = two "
      "leaves and a parent (%s links between them), single = one switch"
      % (sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5]))
print("%-7s %8s %8s %8s %12s %9s" % ("setup", "min s", "median s", "max s", "Gbit/s med",
                                      "srtt ms"))
med = {}
for s, rs in by.items():
    t = [float(r["seconds"]) for r in rs]
    g = statistics.median(float(r["goodput_gbps"]) for r in rs)
    rtt = statistics.median(float(r["srtt_ms"]) for r in rs)
    med[s] = (g, rtt)
    print("%-7s %8.3f %8.3f %8.3f %12.3f %9.3f" % (s, min(t), statistics.median(t), max(t), g,
                                                   rtt))
fr = [int(r["parent_pkts"]) / max(1, int(r["parent_contributions"])) for r in by["fabric"]]
print("goodput fabric / single: %.2f (target 0.8); the parent's frames per contribution: "
      "%.3f (median; %.3f..%.3f); round trip added by the second level: %.3f ms"
      % (med["fabric"][0] / med["single"][0], statistics.median(fr), min(fr), max(fr),
         med["fabric"][1] - med["single"][1]))
EOF
