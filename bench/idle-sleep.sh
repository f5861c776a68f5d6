#!/usr/bin/env bash
# What --idle-sleep-us costs and saves (docs/deploy.md, Sharing the CPU): a benchmark, it prints.
#   full load  the l2 case of bench/run.sh (a capture replayed for ever into one lcore) with and
#              without --idle-sleep-us US, in turn, ROUNDS rounds of one run each: the input
#              rate of each (Mpps, median and all), and the ratio of medians. A worker that
#              always finds packets never naps: this is the cost of the check in the loop.
#   idle       a switch on two net_null ports that receive nothing, for S seconds after a
#              counter reset, with and without the option, in turn: the share of the time the
#              kernel ran the lcore's thread (stats show's cpu_pct, from schedstat) and the
#              share spent napping (napped_pct).
# To stdout and bench/out/idle-sleep.txt.
# usage: bench/idle-sleep.sh [--rounds N] [--seconds S] [--us US] [--build DIR]
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
ROUNDS=5
SECS=2
US=200
BUILD=""
while [ $# -gt 0 ]; do
	case $1 in
	--rounds) ROUNDS=$2; shift 2 ;;
	--seconds) SECS=$2; shift 2 ;;
	--us) US=$2; shift 2 ;;
	--build) BUILD=$(cd "$2" && pwd); shift 2 ;;
	*) echo "usage: bench/idle-sleep.sh [--rounds N] [--seconds S] [--us US] [--build DIR]" >&2; exit 2 ;;
	esac
done
cd "$ROOT"
if [ -z "$BUILD" ]; then
	scripts/build.sh >/dev/null
	BUILD=$ROOT/build
fi
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
OUT=$ROOT/bench/out
mkdir -p "$OUT"
median() { tr ' ' '\n' | grep -v '^$' | sort -g | awk '{v[NR]=$1} END {print (NR%2) ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2}'; }

declare -A MPPS CPU NAP
for ((r = 1; r <= ROUNDS; r++)); do
	for v in poll nap; do
		sw=""
		[ $v = nap ] && sw="--idle-sleep-us $US"
		bench/run.sh --only l2 --runs 1 --seconds "$SECS" --build "$BUILD" --out "$TMP/out" \
			--switch "$sw" >"$TMP/log" 2>&1 || {
			tail -20 "$TMP/log" >&2
			exit 1
		}
		m=$(jq -r '.cases[] | select(.name == "l2") | .median_in_mpps' "$TMP/out/report.json")
		MPPS[$v]+="$m "
		echo "round $r/$ROUNDS full load, $v: $m Mpps" >&2

		sock=$TMP/idle.sock
		rm -f "$sock"
		# shellcheck disable=SC2086
		"$BUILD/inswitch" --no-huge -m 1024 --no-pci -l 1 --no-shconf --file-prefix "idle-$$" \
			--log-level='*:warning' --vdev net_null0,no-rx=1 --vdev net_null1,no-rx=1 \
			-- --ctl "$sock" $sw >"$TMP/idle.log" 2>&1 &
		pid=$!
		for ((k = 0; k < 100; k++)); do
			"$BUILD/inswitch-ctl" -s "$sock" version >/dev/null 2>&1 && break
			sleep 0.1
		done
		"$BUILD/inswitch-ctl" -s "$sock" stats reset >/dev/null
		sleep "$SECS"
		w=$("$BUILD/inswitch-ctl" -s "$sock" --json stats show | jq -c '.workers[0]')
		"$BUILD/inswitch-ctl" -s "$sock" shutdown >/dev/null 2>&1 || kill "$pid"
		wait "$pid" 2>/dev/null || true
		CPU[$v]+="$(jq .cpu_pct <<<"$w") "
		NAP[$v]+="$(jq .napped_pct <<<"$w") "
		echo "round $r/$ROUNDS idle, $v: $w" >&2
	done
done

{
	echo "bench/idle-sleep.sh: --idle-sleep-us $US against polling, $ROUNDS rounds in turn, $SECS s each"
	for v in poll nap; do
		printf '%-5s full load l2 in_Mpps median %s (%s); idle cpu_pct median %s (%s), napped_pct median %s\n' \
			$v "$(median <<<"${MPPS[$v]}")" "${MPPS[$v]% }" "$(median <<<"${CPU[$v]}")" \
			"${CPU[$v]% }" "$(median <<<"${NAP[$v]}")"
	done
	awk -v a="$(median <<<"${MPPS[nap]}")" -v b="$(median <<<"${MPPS[poll]}")" \
		'BEGIN {printf "full load: naps / polling = %.3f of the rate\n", a / b}'
} | tee "$OUT/idle-sleep.txt"
