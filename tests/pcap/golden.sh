#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# Pcap golden test: runs the real inswitch on net_pcap ports, one per DIR/in-pN.pcap, with
# DIR/config as its start-up commands and one worker, and compares what left each port with
# DIR/expect-pN.pcap. MODE burst (the default): --burst 32, the order model pcapgen's
# expectations assume (port 0's burst, port 1's, ...); MODE ordered: --replay-ordered, every
# frame of every port one at a time in capture timestamp order (pcapgen stamps a scenario's
# inputs with their place in its processing order).
#
#   golden.sh INSWITCH PCAPGEN PCAPCMP SCENARIO_DIR [burst|ordered]
#
# PCAPGEN is not used here (tests/pcap/fresh.sh checks the scenario is what pcapgen makes); it
# is accepted so every pcap test takes the same arguments. Exit 0 when every port matches.
# GOLDEN_KEEP=1 keeps the temporary directory (daemon log, out-pN.pcap) for inspection.
set -euo pipefail

DAEMON_TIMEOUT=30 # seconds

if [[ $# -ne 4 && $# -ne 5 ]]; then
	echo "usage: $0 INSWITCH PCAPGEN PCAPCMP SCENARIO_DIR [burst|ordered]" >&2
	exit 2
fi
inswitch=$1
pcapcmp=$3
dir=$4
case ${5:-burst} in
burst) order=(--burst 32) ;;
ordered) order=(--replay-ordered) ;;
*) echo "golden: mode $5: burst or ordered" >&2; exit 2 ;;
esac

for f in "$inswitch" "$pcapcmp"; do
	[[ -x $f ]] || { echo "golden: $f is not an executable" >&2; exit 2; }
done
[[ -f $dir/config ]] || { echo "golden: $dir/config missing" >&2; exit 2; }
# net_pcap splits its arguments on commas.
[[ $dir != *,* ]] || { echo "golden: scenario path must not contain ',': $dir" >&2; exit 2; }

nports=0
while [[ -f $dir/in-p$nports.pcap ]]; do
	[[ -f $dir/expect-p$nports.pcap ]] || { echo "golden: $dir/expect-p$nports.pcap missing" >&2; exit 2; }
	nports=$((nports + 1))
done
((nports > 0)) || { echo "golden: no $dir/in-p0.pcap" >&2; exit 2; }

tmp=$(mktemp -d "${TMPDIR:-/tmp}/isw-golden.XXXXXX")
prefix=isw-golden-$$
cleanup() {
	if [[ ${GOLDEN_KEEP:-0} == 1 ]]; then
		echo "golden: kept $tmp"
	else
		rm -rf "$tmp"
	fi
	# The EAL runtime directory of our --file-prefix (root, or an ordinary user).
	rm -rf "/var/run/dpdk/$prefix" "${XDG_RUNTIME_DIR:-/tmp}/dpdk/$prefix"
}
trap cleanup EXIT

vdevs=()
for ((p = 0; p < nports; p++)); do
	vdevs+=(--vdev "net_pcap$p,rx_pcap=$dir/in-p$p.pcap,tx_pcap=$tmp/out-p$p.pcap")
done

echo "golden: $(basename "$dir"): $nports ports, ${order[*]}, $inswitch"
rc=0
timeout --kill-after=5 "$DAEMON_TIMEOUT" \
	"$inswitch" --no-huge -m 512 --no-pci -l 0 '--log-level=*:warning' --file-prefix "$prefix" \
	"${vdevs[@]}" \
	-- --config "$dir/config" "${order[@]}" --exit-when-idle 300 --ctl "$tmp/ctl.sock" \
	>"$tmp/inswitch.log" 2>&1 || rc=$?

fail=0
if ((rc == 124 || rc == 137)); then
	echo "golden: FAIL: inswitch did not exit within $DAEMON_TIMEOUT s (killed)"
	fail=1
elif ((rc != 0)); then
	echo "golden: FAIL: inswitch exited with status $rc"
	fail=1
fi
if ((fail)); then
	echo "---- inswitch output ----"
	cat "$tmp/inswitch.log"
	echo "-------------------------"
fi

# Compare every port even after a failure: which ports are wrong is the useful part.
for ((p = 0; p < nports; p++)); do
	if [[ ! -f $tmp/out-p$p.pcap ]]; then
		echo "port $p: FAIL: no output capture (out-p$p.pcap was not written)"
		fail=1
		continue
	fi
	prc=0
	out=$("$pcapcmp" "$dir/expect-p$p.pcap" "$tmp/out-p$p.pcap" 2>&1) || prc=$?
	if ((prc == 0)); then
		echo "port $p: ok: ${out#pcapcmp: }"
	else
		echo "port $p: FAIL (pcapcmp exit $prc):"
		echo "    ${out//$'\n'/$'\n'    }"
		fail=1
	fi
done

if ((fail)); then
	echo "golden: $(basename "$dir"): FAIL (scenario described in $dir/frames.txt)"
	exit 1
fi
echo "golden: $(basename "$dir"): all $nports ports match"
