#!/usr/bin/env bash
# Steering-consistent ownership (docs/deploy.md, Steering): SwitchML traffic split the way a NIC
# steering by UDP source port splits it, each worker thread's slot range on its own input port,
# reaches the lcore that owns it when the session is created with "threads", and nothing is
# handed off. Two worker lcores (-l 0-1): port 0 (worker 0) carries slots 0..127, port 1
# (worker 1) slots 128..255 of the bench's 8-worker SyncAgtr job; results leave by port 2.
#   (a) "threads 2": no SyncAgtr packet handed off; all 512 slot-sets complete, 8 replicas each;
#       steer show lists thread t's rule (UDP source port 4000 + t to 48864) on worker t
#   (b) the same session without threads (slots owned round-robin): about half handed off,
#       the same results: hand-off stays the correct fallback
#   (c) ASK: task 1's DATA (the bench's, to receiver 10.0.0.2) on the port of the worker its
#       steering rule names: nothing handed off; a second task with the same receiver but
#       another owner takes that receiver's rule away
#   steer.sh INSWITCH INSWITCH-CTL PCAPGEN
set -euo pipefail
source "$(dirname "$0")/lib.sh"
inswitch=$1 ctl=$2 pcapgen=$3
tmp="" pid=""
daemon_test steer # sets both

empty_pcap "$tmp/empty.pcap"
"$pcapgen" syncagtr-bench "$tmp/sa.pcap" --workers 8 --slots 256 --elems 64 \
	--config "$tmp/sa.cfg" >/dev/null
sed -i 's/ port 1$/ port 2/' "$tmp/sa.cfg"
python3 "$(dirname "$0")/../../pcaps/split_frames.py" "$tmp/sa.pcap" "$tmp/sa" 48 0x7fff 128

# run NAME CONFIG: the daemon on the split inputs until every replica left by port 2; prints
# stats show --json to $tmp/NAME.stats and steer show --json to $tmp/NAME.steer.
run() {
	local name=$1 cfg=$2
	rm -f "$tmp/ctl.sock"
	"$inswitch" --no-huge -m 512 --no-pci -l 0-1 --no-shconf --file-prefix "isw-steer-$$" \
		--log-level='*:warning' \
		--vdev "net_pcap0,rx_pcap=$tmp/sa-lo.pcap,tx_pcap=$tmp/$name.out0.pcap" \
		--vdev "net_pcap1,rx_pcap=$tmp/sa-hi.pcap,tx_pcap=$tmp/$name.out1.pcap" \
		--vdev "net_pcap2,rx_pcap=$tmp/empty.pcap,tx_pcap=$tmp/$name.out2.pcap" \
		-- --ctl "$tmp/ctl.sock" --config "$cfg" --pipeline syncagtr --strict \
		>"$tmp/log" 2>&1 &
	pid=$!
	wait_tx 2 4096 "$name"
	"$ctl" -s "$tmp/ctl.sock" --json stats show >"$tmp/$name.stats"
	"$ctl" -s "$tmp/ctl.sock" --json steer show >"$tmp/$name.steer"
	"$ctl" -s "$tmp/ctl.sock" --json syncagtr session show 1 >"$tmp/$name.session"
	kill "$pid"
	wait "$pid" 2>/dev/null || true
	pid=""
}

# check NAME: exact results: 512 completions, nothing dropped, no repeated register access.
check() {
	local c
	c=$(jq -c '.counters[0] | {completions, retransmits}' "$tmp/$1.session")
	[ "$(jq .completions <<<"$c")" = 512 ] || fail "$1: $c, not 512 completions"
	[ "$(jq '[.pipelines[].drops] | add' "$tmp/$1.stats")" = 0 ] || fail "$1: drops"
	[ "$(jq .strict_multi_access "$tmp/$1.stats")" = 0 ] || fail "$1: repeated register access"
}

handed() { jq '.pipelines[] | select(.pipeline == "syncagtr") | .handed_off' "$tmp/$1.stats"; }

sed 's/^\(syncagtr session add .*\)$/\1 threads 2/' "$tmp/sa.cfg" >"$tmp/threads.cfg"
run a "$tmp/threads.cfg"
check a
echo "a: threads 2: handed off $(handed a) of 4096; rules: $(jq -c '[.rules[] |
	{port, packets, match, worker, by}]' "$tmp/a.steer")"
[ "$(handed a)" = 0 ] || fail "a: $(handed a) SyncAgtr packets handed off"
jq -e '[.rules[] | select(.port == 0)] | length == 2 and
	(.[0] | .match == "udp4 dst-ip 10.0.0.254 src-port 4000 dst-port 48864" and .worker == 0) and
	(.[1] | .match == "udp4 dst-ip 10.0.0.254 src-port 4001 dst-port 48864" and .worker == 1)' "$tmp/a.steer" \
	>/dev/null || fail "a: steer show does not list thread t's port on worker t"
jq -e '.pipelines[] | select(.pipeline == "syncagtr") | .handed_off_pct == 0' "$tmp/a.steer" \
	>/dev/null || fail "a: steer show's hand-off share"

run b "$tmp/sa.cfg"
check b
h=$(handed b)
echo "b: round-robin owners: handed off $h of 4096"
[ "$h" -ge 1024 ] && [ "$h" -le 3072 ] || fail "b: $h handed off, expected about half"
# The same result frames either way (their order across the two lcores may differ).
python3 - "$tmp/a.out2.pcap" "$tmp/b.out2.pcap" <<'PY' || fail "a and b sent different results"
import struct, sys
def frames(path):
    data, off, out = open(path, 'rb').read(), 24, []
    while off < len(data):
        incl = struct.unpack_from('<I', data, off + 8)[0]
        out.append(data[off + 16:off + 16 + incl])
        off += 16 + incl
    return sorted(out)
a, b = frames(sys.argv[1]), frames(sys.argv[2])
sys.exit(0 if len(a) == 4096 and a == b else 1)
PY
echo "b: the same 4096 result frames as (a)"

# (c) The rule's worker is the task's owner: the DATA enters on that worker's port (port w:
# worker w polls port w with one queue each) and none is handed off.
"$pcapgen" ask-bench "$tmp/ask.pcap" --count 2048 --dst 02:00:00:00:00:02 \
	--config "$tmp/ask.cfg" >/dev/null
sed -i 's/,1 channels 1 /,2 channels 1 /' "$tmp/ask.cfg"
# ask_run IN0 IN1 WANT: the daemon on those inputs until the task counted WANT DATA.
ask_run() {
	local want=$3 rx=-1
	rm -f "$tmp/ctl.sock"
	"$inswitch" --no-huge -m 512 --no-pci -l 0-1 --no-shconf --file-prefix "isw-steer-$$" \
		--log-level='*:warning' --vdev "net_pcap0,rx_pcap=$1" --vdev "net_pcap1,rx_pcap=$2" \
		--vdev "net_pcap2,rx_pcap=$tmp/empty.pcap,tx_pcap=$tmp/ask.out.pcap" \
		-- --ctl "$tmp/ctl.sock" --config "$tmp/ask.cfg" --pipeline ask >"$tmp/log" 2>&1 &
	pid=$!
	for _ in $(seq 300); do
		rx=$("$ctl" -s "$tmp/ctl.sock" --json ask task show 1 2>/dev/null |
			jq '.counters[0].pkts' || echo -1)
		[ "$rx" = "$want" ] && break
		kill -0 "$pid" 2>/dev/null || fail "c: inswitch exited"
		sleep 0.1
	done
	[ "$rx" = "$want" ] || fail "c: the ask task counted $rx of $want DATA"
}
ask_stop() {
	kill "$pid"
	wait "$pid" 2>/dev/null || true
	pid=""
}
ask_run "$tmp/empty.pcap" "$tmp/empty.pcap" 0
w=$("$ctl" -s "$tmp/ctl.sock" --json steer show | jq -r '[.rules[] |
	select(.pipeline == "ask" and .match == "udp4 dst-ip 10.0.0.2 dst-port 42405")][0].worker')
ask_stop
[ "$w" = 0 ] || [ "$w" = 1 ] || fail "c: no ASK rule for receiver 10.0.0.2 ($w)"
if [ "$w" = 0 ]; then
	ask_run "$tmp/ask.pcap" "$tmp/empty.pcap" 2048
else
	ask_run "$tmp/empty.pcap" "$tmp/ask.pcap" 2048
fi
h=$("$ctl" -s "$tmp/ctl.sock" --json stats show | jq '.pipelines[] | select(.pipeline == "ask") |
	.handed_off')
echo "c: task 1's rule names worker $w; its DATA on port $w: $h of 2048 handed off"
[ "$h" = 0 ] || fail "c: $h ASK packets handed off on the port of the rule's worker"
# A second task for the same receiver, owned by the other worker: no rule for that receiver.
"$ctl" -s "$tmp/ctl.sock" ask task add 2 receiver 02:00:00:00:00:02,10.0.0.2,42405,2 \
	channels 1 window 64 slots 16 key-bytes 8 op add aa-size 64 >/dev/null
n=$("$ctl" -s "$tmp/ctl.sock" --json steer show | jq '[.rules[] | select(.pipeline == "ask")] |
	length')
echo "c: with task 2 (another owner) for the same receiver: $n ASK rules"
[ "$n" = 0 ] || fail "c: $n ASK rules for a receiver whose tasks two workers own"
ask_stop
echo PASS
