#!/usr/bin/env bash
# Sharding across two worker lcores (-l 0-1; the control thread is not pinned to either). The
# same 64 flows enter on port 0 (polled by worker 0) and port 1 (worker 1); the flowcount
# pipeline updates one register bucket per flow, sharded by bucket, so each packet whose bucket
# the other lcore owns is handed over through its inbox. Port 2 has one tx queue, so worker 1's
# output to it is handed to worker 0 too. Checks, with strict mode on:
#   - every packet reaches port 2 and is counted exactly once (no lost register updates):
#     each used bucket holds a multiple of the 2 x 128 packets a flow sends, bytes = pkts x size
#   - both workers handed packets to the other, and no register array was used twice per pass
#   - the pipeline's own hand-off count (stats show, handed_off) agrees with the workers'
#   shard.sh INSWITCH INSWITCH-CTL PCAPGEN
set -euo pipefail
source "$(dirname "$0")/lib.sh"
inswitch=$1 ctl=$2 pcapgen=$3
FLOWS=64 PER_FILE=8192 SIZE=128
tmp="" pid=""
daemon_test shard # sets both

empty_pcap "$tmp/empty.pcap"
"$pcapgen" bench "$tmp/in.pcap" --size $SIZE --count $PER_FILE --flows $FLOWS \
	--dst 02:00:00:00:00:02 >/dev/null
echo "l2 add 02:00:00:00:00:02 2" >"$tmp/cfg"

"$inswitch" --no-huge -m 512 --no-pci -l 0-1 --no-shconf --file-prefix "isw-shard-$$" \
	--log-level='*:warning' \
	--vdev "net_pcap0,rx_pcap=$tmp/in.pcap,tx_pcap=$tmp/out0.pcap" \
	--vdev "net_pcap1,rx_pcap=$tmp/in.pcap,tx_pcap=$tmp/out1.pcap" \
	--vdev "net_pcap2,rx_pcap=$tmp/empty.pcap,tx_pcap=$tmp/out2.pcap" \
	-- --ctl "$tmp/ctl.sock" --config "$tmp/cfg" --pipeline flowcount --strict \
	>"$tmp/log" 2>&1 &
pid=$!

total=$((2 * PER_FILE))
wait_tx 2 "$total"

stats=$("$ctl" -s "$tmp/ctl.sock" --json stats show)
fc=$("$ctl" -s "$tmp/ctl.sock" --json flowcount show 4096)
"$ctl" -s "$tmp/ctl.sock" stats show | sed -n '/^workers/,/^$/p'

pkts=$(echo "$fc" | jq '.pkts')
used=$(echo "$fc" | jq '.buckets_used')
per_flow=$((2 * PER_FILE / FLOWS))
odd=$(echo "$fc" | jq --argjson f $per_flow '[.top[] | select(.pkts % $f != 0)] | length')
badbytes=$(echo "$fc" | jq --argjson s $SIZE '[.top[] | select(.bytes != .pkts * $s)] | length')
out0=$(echo "$stats" | jq '.workers[0].handoff_out')
out1=$(echo "$stats" | jq '.workers[1].handoff_out')
multi=$(echo "$stats" | jq '.strict_multi_access')
drops=$(echo "$stats" | jq '[.pipelines[].drops] | add')
fch=$(echo "$stats" | jq '.pipelines[] | select(.pipeline == "flowcount") | .handed_off')
echo "flowcount: $pkts packets in $used buckets; handoffs: worker0 $out0, worker1 $out1;" \
	"flowcount handed off $fch"

[ "$pkts" -eq "$total" ] || fail "flowcount counted $pkts of $total packets"
[ "$used" -ge 1 ] && [ "$used" -le $FLOWS ] || fail "$used buckets used for $FLOWS flows"
[ "$odd" -eq 0 ] || fail "$odd buckets hold a count that is not a multiple of $per_flow"
[ "$badbytes" -eq 0 ] || fail "$badbytes buckets have bytes != packets x $SIZE"
[ "$out0" -gt 0 ] && [ "$out1" -gt 0 ] || fail "no handoff in one direction ($out0, $out1)"
# worker 0 hands over only flowcount's frames; worker 1 also its transmissions (port 2 has one
# tx queue): flowcount's own count lies between
[ "$fch" -ge "$out0" ] && [ "$fch" -lt $((out0 + out1)) ] ||
	fail "flowcount counts $fch frames handed off, not within [$out0, $((out0 + out1)))"
[ "$multi" -eq 0 ] || fail "strict mode saw $multi repeated register accesses"
[ "$drops" -eq 0 ] || fail "$drops packets dropped"
"$ctl" -s "$tmp/ctl.sock" shutdown >/dev/null
wait "$pid" || fail "inswitch exited with an error"
pid=""
echo "PASS"
