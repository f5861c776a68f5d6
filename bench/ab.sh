#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
#
# bench/ab.sh: one case of bench/run.sh measured on two or more build trees in turn, so that a
# change is judged against its parent under the same machine conditions (on a shared VM the CPU
# speed swings up to 2x within minutes, so two separate reports are not comparable). A
# benchmark: it prints figures and asserts nothing.
#
#   bench/ab.sh [--rounds N] [--seconds S] CASE DIR_A DIR_B [DIR ...]
#
# Each round runs `bench/run.sh --only CASE --runs 1 --seconds S --build DIR` for every DIR in
# turn (so each run also measures the case's baselines, in the same invocation). Printed per
# tree: the case's input Mpps in every round, sorted, and its ratio to its baseline (vs_base)
# in every round, sorted, with the medians.
set -euo pipefail

ROUNDS=5
SECONDS_PER_RUN=2
usage() {
	sed -n '4,/^set -euo/p' "$0" | sed -e '$d' -e 's/^# \{0,1\}//'
	exit "${1:-0}"
}
while [ $# -gt 0 ]; do
	case "$1" in
	--rounds)
		ROUNDS="${2:?--rounds needs a number}"
		shift 2
		;;
	--seconds)
		SECONDS_PER_RUN="${2:?--seconds needs a number}"
		shift 2
		;;
	-h | --help) usage 0 ;;
	--*)
		echo "ab.sh: unknown option $1" >&2
		usage 2
		;;
	*) break ;;
	esac
done
[ $# -ge 3 ] || usage 2
CASE=$1
shift
for d in "$@"; do
	[ -f "$d/build.ninja" ] || {
		echo "ab.sh: $d is not a build tree (no build.ninja)" >&2
		exit 2
	}
done
command -v jq >/dev/null || {
	echo "ab.sh: needs jq (scripts/deps.sh installs it)" >&2
	exit 2
}

HERE=$(cd "$(dirname "$0")" && pwd)
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

declare -A MPPS RATIO
for ((r = 1; r <= ROUNDS; r++)); do
	for d in "$@"; do
		out="$TMP/out"
		rm -rf "$out"
		if ! "$HERE/run.sh" --only "$CASE" --runs 1 --seconds "$SECONDS_PER_RUN" --build "$d" \
			--out "$out" >"$TMP/log" 2>&1; then
			echo "ab.sh: bench/run.sh failed on $d:" >&2
			tail -20 "$TMP/log" >&2
			exit 1
		fi
		line=$(jq -r --arg c "$CASE" \
			'.cases[] | select(.name == $c) | "\(.median_in_mpps) \(.ratio_to_baseline)"' \
			"$out/report.json")
		[ -n "$line" ] || {
			echo "ab.sh: no case $CASE in the report" >&2
			exit 1
		}
		MPPS[$d]+="${line%% *} "
		RATIO[$d]+="${line##* } "
		echo "round $r/$ROUNDS  $d  in_Mpps ${line%% *}  vs_base ${line##* }" >&2
	done
done

sorted() { tr ' ' '\n' | grep -v '^$' | sort -g | tr '\n' ' '; }
median() { tr ' ' '\n' | grep -v '^$' | sort -g | awk '{v[NR]=$1} END {print (NR%2) ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2}'; }
echo "case $CASE, $ROUNDS rounds of ${SECONDS_PER_RUN} s, trees in turn"
for d in "$@"; do
	printf '%s\n  in_Mpps  %s (median %s)\n  vs_base  %s (median %s)\n' "$d" \
		"$(echo "${MPPS[$d]}" | sorted)" "$(echo "${MPPS[$d]}" | median)" \
		"$(echo "${RATIO[$d]}" | sorted)" "$(echo "${RATIO[$d]}" | median)"
done
