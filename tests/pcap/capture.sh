#!/usr/bin/env bash
# Live capture of a running switch (docs/deploy.md, Live capture): DPDK's dpdk-dumpcap, a
# secondary process, copies what a port receives and sends while inswitch forwards a replayed
# capture from port 0 to port 1. Secondary processes share the primary's memory, so this runs
# on hugepages: it reserves 256 more 2 MiB pages (and mounts hugetlbfs if nothing is mounted)
# for the test's length, then puts both back.
#   (a) dumpcap on port 0 (its rx) and on port 1 (its tx), three rounds: each writes at least
#       40 frames, all of which tshark reads as the replayed UDP frames on that interface; the
#       switch forwards all the while and survives every detach (dataplane/eal.c)
#   (b) after a normal stop, the runtime directory (which capture needs) is gone
#   capture.sh INSWITCH INSWITCH-CTL PCAPGEN
set -euo pipefail
source "$(dirname "$0")/lib.sh"
inswitch=$1 ctl=$2 pcapgen=$3
tmp="" pid="" huge_was="" mounted=""
daemon_test capture # sets both
[ "$(id -u)" = 0 ] || { echo "FAIL: needs root (hugepages)"; exit 1; }
for t in dpdk-dumpcap tshark; do
	command -v "$t" >/dev/null || fail "no $t (scripts/deps.sh installs it)"
done
cleanup() {
	[ -n "$pid" ] && kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null
	pid=""
	[ -n "$mounted" ] && umount "$mounted"
	[ -n "$huge_was" ] && echo "$huge_was" >/proc/sys/vm/nr_hugepages
	_daemon_cleanup
}
trap cleanup EXIT

nr=/proc/sys/vm/nr_hugepages
huge_was=$(cat $nr)
echo $((huge_was + 256)) >$nr
[ "$(cat $nr)" -ge $((huge_was + 256)) ] || fail "could not reserve 256 hugepages ($(cat $nr))"
# EAL finds a hugetlbfs mount in /proc/mounts itself. (Giving the primary --huge-dir instead
# broke capture: the copies it then made into the secondary's pool crashed it.)
if ! grep -q hugetlbfs /proc/mounts; then
	mkdir "$tmp/huge"
	mount -t hugetlbfs nodev "$tmp/huge"
	mounted=$tmp/huge
fi
prefix="isw-capture-$$"

"$pcapgen" bench "$tmp/in.pcap" --size 128 --count 64 --dst 02:00:00:00:00:02 >/dev/null
echo "l2 add 02:00:00:00:00:02 1" >"$tmp/cfg"
"$inswitch" -m 256 --no-pci -l 0 --file-prefix "$prefix" \
	--log-level='*:warning' --vdev "net_pcap0,rx_pcap=$tmp/in.pcap,infinite_rx=1" \
	--vdev net_null0,no-rx=1 -- --ctl "$tmp/ctl.sock" --config "$tmp/cfg" >"$tmp/log" 2>&1 &
pid=$!
wait_ctl
tx() { "$ctl" -s "$tmp/ctl.sock" --json stats show | jq '.ports[1].tx_pkts'; }

echo "(a) dpdk-dumpcap on each port of the running switch, three times"
# Each capture stops (detaches) while the switch forwards at full speed: under DPDK 22.11's
# pdump that is when the capture's pool was freed under a worker still copying into it.
for round in 1 2 3; do
	for ifc in net_pcap0 net_null0; do
		tx0=$(tx)
		timeout 30 dpdk-dumpcap --file-prefix "$prefix" -i "$ifc" -c 40 -w "$tmp/cap.pcapng" \
			>"$tmp/dumpcap.log" 2>&1 || fail "dumpcap -i $ifc: $(tail -3 "$tmp/dumpcap.log")"
		kill -0 "$pid" 2>/dev/null || fail "inswitch died when dumpcap -i $ifc stopped"
		tx1=$(tx)
		[ "$tx1" -gt "$tx0" ] || fail "the switch did not forward during the capture"
		# (One interface: dumpcap names it dpdk:0 in the file. DPDK 22.11's dumpcap may end a
		# capture of tx with an interface statistics block tshark calls damaged, after every
		# packet: tshark's status is not the test, the packets are.)
		tshark -r "$tmp/cap.pcapng" -T fields -e ip.src -e ip.dst -e udp.dstport \
			2>/dev/null >"$tmp/frames" || true
		n=$(wc -l <"$tmp/frames")
		[ "$n" -ge 40 ] || fail "$ifc: $n frames captured: $(cat "$tmp/dumpcap.log")"
		bad=$(grep -vc "^10.128.0.1	10.0.0.2	5000$" "$tmp/frames" || true)
		[ "$bad" = 0 ] || fail "$ifc: $bad frames not the replayed ones: $(head -3 "$tmp/frames")"
		[ "$round" != 1 ] || echo "    $ifc: $n frames, all the replayed UDP frames; forwarded $((tx1 - tx0)) meanwhile"
	done
done
echo "    three rounds: the switch forwarded throughout and outlived every detach"

echo "(b) the runtime directory goes at a normal stop"
"$ctl" -s "$tmp/ctl.sock" shutdown >/dev/null
wait "$pid" || fail "inswitch exited with $?"
pid=""
[ ! -e "/var/run/dpdk/$prefix" ] || fail "/var/run/dpdk/$prefix left behind"
echo "PASS"
