#!/usr/bin/env bash
# Start-up honours exactly the devices asked for, and a stop leaves nothing behind (docs/ops.md):
#   (a) a --vdev whose driver fails (net_pcap with a missing rx_pcap) stops start-up with a
#       non-zero status, naming the device and what its driver said; alone, and before a good
#       one; a mistyped driver name is said to be one
#   (b) -a naming a device that does not probe (a PCI address with --no-pci) stops start-up
#   (c) good devices become ports 0, 1, 2 in the order given
#   (d) a normal stop removes EAL's runtime directory, which exists while it runs
#   startup.sh INSWITCH INSWITCH-CTL
set -euo pipefail
source "$(dirname "$0")/lib.sh"
inswitch=$1 ctl=$2
tmp="" pid=""
daemon_test startup # sets both
prefix="isw-startup-$$"
eal=(--no-huge -m 256 --no-pci -l 0 --file-prefix "$prefix" --log-level='*:warning')
app=(-- --ctl "$tmp/ctl.sock")

# refused WHAT EXPECT... : inswitch with the given EAL devices must exit non-zero, its output
# matching every EXPECT (extended regexps).
refused() {
	local what=$1 rc=0
	shift
	local -a devs=()
	read -ra devs <<<"$what"
	timeout 30 "$inswitch" "${eal[@]}" "${devs[@]}" "${app[@]}" >"$tmp/log" 2>&1 || rc=$?
	[ "$rc" != 0 ] || fail "started with $what"
	[ "$rc" != 124 ] || fail "did not stop with $what"
	for e in "$@"; do
		grep -qE -- "$e" "$tmp/log" || fail "$what: no '$e' in the output"
	done
	echo "    refused ($rc): $(grep -m1 'inswitch:' "$tmp/log")"
}

echo "(a) a --vdev whose driver fails"
refused "--vdev net_pcap0,rx_pcap=$tmp/nosuch.pcap" \
	"net_pcap0,rx_pcap=$tmp/nosuch.pcap: the device could not be created" "No such file"
refused "--vdev net_pcap0,rx_pcap=$tmp/nosuch.pcap --vdev net_null1" \
	"--vdev net_pcap0.*could not be created"
refused "--vdev net_null0 --vdev=net_pcap1,rx_pcap=$tmp/nosuch.pcap --vdev net_null2" \
	"--vdev net_pcap1.*could not be created"
refused "--vdev net_nul0" "--vdev net_nul0: no driver named net_nul"

echo "(b) -a naming a device that does not probe"
refused "-a 0000:99:00.0 --vdev net_null0" \
	"-a 0000:99:00.0: the device did not become a port: --no-pci is given"

echo "(c) ports in the order given"
rundir=/var/run/dpdk/$prefix
[ "$(id -u)" = 0 ] || rundir=${XDG_RUNTIME_DIR:-/tmp}/dpdk/$prefix
empty_pcap "$tmp/empty.pcap"
"$inswitch" "${eal[@]}" --vdev net_null0,no-rx=1 --vdev "net_pcap1,rx_pcap=$tmp/empty.pcap" \
	--vdev net_null2,no-rx=1 "${app[@]}" >"$tmp/log" 2>&1 &
pid=$!
wait_ctl
names=$("$ctl" -s "$tmp/ctl.sock" --json port list | jq -r '[.ports[].name] | join(" ")')
[ "$names" = "net_null0 net_pcap1 net_null2" ] || fail "ports: $names"
echo "    ports: $names"

echo "(d) a normal stop removes the runtime directory"
[ -d "$rundir" ] || fail "no runtime directory $rundir while running"
"$ctl" -s "$tmp/ctl.sock" shutdown >/dev/null
wait "$pid" || fail "inswitch exited with $?"
pid=""
[ ! -e "$rundir" ] || fail "$rundir left behind: $(ls -A "$rundir")"
echo "    $rundir: there while running, gone after"
echo "PASS"
