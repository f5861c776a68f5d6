#!/usr/bin/env bash
# Fault injection at work: N numbered frames enter port 0 and leave port 1 of the real daemon
# (net_pcap ports); the capture of port 1 is checked against the injected faults.
#   run 1: 10% drop on port 0 rx   -> 10% +- 1% of the frames missing (about 4.7 standard
#          deviations of the binomial at N = 20000), none duplicated or reordered, and the
#          daemon's own fault-drop counter equals what is missing
#   run 2: 5% dup, 5% reorder (depth 3) on port 1 tx -> nothing missing, 5% +- 1% duplicated,
#          reordering visible (at least 2% of frames arrive after a higher number)
#   run 3: run 1 again with the same seed -> exactly the same capture
#   fault.sh INSWITCH PCAPGEN PCAPCMP
set -euo pipefail
source "$(dirname "$0")/lib.sh"
inswitch=$1 pcapgen=$2 pcapcmp=$3
N=20000
tmp=$(mktemp -d /tmp/inswitch-fault.XXXXXX)
trap 'rm -rf "$tmp" /var/run/dpdk/isw-fault-$$' EXIT

empty_pcap "$tmp/empty.pcap"
"$pcapgen" seq "$tmp/in.pcap" --count $N --dst 02:00:00:00:00:02 >/dev/null

# run NAME FAULT-LINES...: replays in.pcap, leaves $tmp/NAME.pcap and $tmp/NAME.json (counters)
run() {
	local name=$1
	shift
	{
		echo "l2 add 02:00:00:00:00:02 1"
		echo "port fault seed 42"
		printf '%s\n' "$@"
	} >"$tmp/$name.cfg"
	timeout --kill-after=5 60 "$inswitch" --no-huge -m 512 --no-pci -l 0 --no-shconf \
		--file-prefix "isw-fault-$$" --log-level='*:warning' \
		--vdev "net_pcap0,rx_pcap=$tmp/in.pcap,tx_pcap=$tmp/$name-p0.pcap" \
		--vdev "net_pcap1,rx_pcap=$tmp/empty.pcap,tx_pcap=$tmp/$name.pcap" \
		-- --config "$tmp/$name.cfg" --ctl "$tmp/ctl.sock" --exit-when-idle 300 --final-json \
		>"$tmp/$name.log" 2>&1 || {
		cat "$tmp/$name.log"
		echo "FAIL: inswitch failed in run $name"
		exit 1
	}
	grep '^{' "$tmp/$name.log" | tail -n 1 >"$tmp/$name.json"
	"$pcapcmp" --seq "$tmp/$name.pcap" --count $N >"$tmp/$name.seq"
	echo "$name: $(cat "$tmp/$name.seq")"
}

field() { sed -n "s/.*\"$2\":\([0-9]*\).*/\1/p" "$tmp/$1.seq"; }
# Fault drops counted by the daemon (dataplane pipeline, reason "fault").
fault_drops() {
	jq '[.drops[] | select(.reason == "fault") | .count] | add // 0' "$tmp/$1.json"
}
fails=0
check() {
	if eval "$2"; then
		echo "  ok: $1"
	else
		echo "  FAIL: $1 ($2)"
		fails=$((fails + 1))
	fi
}

run drop "port fault 0 rx drop 10"
missing=$(field drop missing)
check "missing $missing is 10% +- 1% of $N" "[ $missing -ge 1800 ] && [ $missing -le 2200 ]"
check "no duplicates" "[ $(field drop duplicates) -eq 0 ]"
check "no reordering" "[ $(field drop reordered) -eq 0 ]"
check "daemon counted $(fault_drops drop) fault drops = missing" "[ $(fault_drops drop) -eq $missing ]"

run dupreorder "port fault 1 tx dup 5 reorder 5 depth 3"
dups=$(field dupreorder duplicates)
reord=$(field dupreorder reordered)
check "nothing missing" "[ $(field dupreorder missing) -eq 0 ]"
check "duplicates $dups are 5% +- 1% of $N" "[ $dups -ge 800 ] && [ $dups -le 1200 ]"
check "reordered $reord >= 2% of $N" "[ $reord -ge 400 ]"

run again "port fault 0 rx drop 10"
check "same seed, same frames" "'$pcapcmp' '$tmp/drop.pcap' '$tmp/again.pcap' >/dev/null"

[ $fails -eq 0 ] || exit 1
echo "PASS"
