#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# Checks that the checked-in captures of a scenario are exactly what pcapgen makes now, so the
# golden files cannot drift from the generator (and its model of the switch) unnoticed.
#
#   fresh.sh PCAPGEN SCENARIO_DIR
#
# The scenario's name is the directory's name: pcaps/l2 is made by `pcapgen l2 DIR`.
set -euo pipefail

if [[ $# -ne 2 ]]; then
	echo "usage: $0 PCAPGEN SCENARIO_DIR" >&2
	exit 2
fi
pcapgen=$1
dir=$2
name=$(basename "$dir")

tmp=$(mktemp -d "${TMPDIR:-/tmp}/isw-fresh.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

"$pcapgen" "$name" "$tmp/$name"

fail=0
# Same set of files (README* aside), each byte-identical.
names=$( (cd "$dir" && ls -A) ; (cd "$tmp/$name" && ls -A) )
while read -r base; do
	[[ $base == README* ]] && continue
	if [[ ! -e $dir/$base ]]; then
		echo "fresh: $name: $base is made by pcapgen but not checked in"
		fail=1
	elif [[ ! -e $tmp/$name/$base ]]; then
		echo "fresh: $name: $base is checked in but pcapgen does not make it"
		fail=1
	elif ! cmp -s "$dir/$base" "$tmp/$name/$base"; then
		echo "fresh: $name: $base differs from what pcapgen makes"
		fail=1
	fi
done < <(sort -u <<<"$names")

if ((fail)); then
	echo "fresh: $name: FAIL: if the change is intended, regenerate: $pcapgen $name $dir"
	exit 1
fi
echo "fresh: $name: the checked-in files are what pcapgen makes"
