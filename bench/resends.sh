#!/usr/bin/env bash
# How often the hosts' retransmission timers fire on loss-free links: a timing figure, not a
# test (the e2e tests assert what the protocols guarantee, however often a timer fires).
#   syncagtr  tests/e2e/syncagtr_hosts.sh cases w and a: 4 workers, 16 Mi int32 on kernel UDP
#             sockets, window 64 (after a 1 Mi warm-up); per run the workers' resends (the
#             job's, the warm-up's), the duplicate results, the switch's retransmissions and
#             sa-retx-pending drops
#   ask       tests/e2e/ask_hosts.sh case a: WordCount of the fortunes text, 4 senders on
#             sockets; per run the resent DATA packets the switch saw (repeats) and the
#             receiver's FETCH replays
# With --busy, a shell busy loop runs on one CPU during each run (as the suite must pass with
# one). Each run prints the 1-minute load average at its start: other work on the machine
# lengthens the round trips too.
# usage: bench/resends.sh [--runs N] [--busy] [--build DIR] [--only "syncagtr ask"]
# Needs root (network namespaces). About 20 s a syncagtr run, 8 s an ask run, on a 2-vCPU VM.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
RUNS=10
BUSY=0
BUILD=$ROOT/build
ONLY="syncagtr ask"
while [ $# -gt 0 ]; do
	case $1 in
	--runs) RUNS=$2; shift 2 ;;
	--busy) BUSY=1; shift ;;
	--build) BUILD=$(cd "$2" && pwd); shift 2 ;;
	--only) ONLY=$2; shift 2 ;;
	*) echo "usage: bench/resends.sh [--runs N] [--busy] [--build DIR] [--only \"syncagtr ask\"]" >&2; exit 2 ;;
	esac
done
busy_pid=""
stop_busy() { [ -z "$busy_pid" ] || kill "$busy_pid" 2>/dev/null || true; busy_pid=""; }
trap stop_busy EXIT

# one TOOL: one run; prints its figures on one line
one() {
	local out rc=0
	[ "$BUSY" = 0 ] || { (while :; do :; done) & busy_pid=$!; }
	if [ "$1" = syncagtr ]; then
		out=$(SA_CASES="w a" "$ROOT/tests/e2e/syncagtr_hosts.sh" "$BUILD" 2>&1) || rc=$?
		stop_busy
		echo "$out" | grep -m1 '^(a) workers sent' |
			sed -E 's/.*\(([0-9]+) resends in the job, ([0-9]+) in the barrier; ([0-9]+) duplicate.*"retransmits":([0-9]+),"drop_retx_pending":([0-9]+).*warm-up.s resends: ([0-9]+).*/resends \1 barrier \2 warm-up \6 duplicates \3 switch-retransmits \4 retx-pending \5/' |
			tr -d '\n'
	else
		out=$(ASK_CASES=a "$ROOT/tests/e2e/ask_hosts.sh" "$BUILD" 2>&1) || rc=$?
		stop_busy
		echo "$out" | grep -m1 '^a: switch' | jq -R -r 'sub("^a: switch "; "") | fromjson |
			"repeats \(.repeats) of \(.pkts) packets, fetch-replays \(.fetch_replays)"' |
			tr -d '\n'
	fi
	[ "$rc" = 0 ] && echo " (test passed)" ||
		echo " (test FAILED, status $rc: $(echo "$out" | grep -m1 -E '^FAIL|failed' || true))"
}

echo "bench/resends.sh: $RUNS runs, busy loop $([ "$BUSY" = 1 ] && echo on || echo off), build $BUILD"
for ((i = 1; i <= RUNS; i++)); do
	for tool in $ONLY; do
		echo "$tool run $i (load $(cut -d' ' -f1 /proc/loadavg)): $(one "$tool")"
	done
done
