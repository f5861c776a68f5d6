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
	local name=$1 cfg=$2 tx=0
	rm -f "$tmp/ctl.sock"
	"$inswitch" --no-huge -m 512 --no-pci -l 0-1 --no-shconf --file-prefix "isw-steer-$$" \
		--log-level='*:warning' \
		--vdev "net_pcap0,rx_pcap=$tmp/sa-lo.pcap,tx_pcap=$tmp/$name.out0.pcap" \
		--vdev "net_pcap1,rx_pcap=$tmp/sa-hi.pcap,tx_pcap=$tmp/$name.out1.pcap" \
		--vdev "net_pcap2,rx_pcap=$tmp/empty.pcap,tx_pcap=$tmp/$name.out2.pcap" \
		-- --ctl "$tmp/ctl.sock" --config "$cfg" --pipeline syncagtr --strict \
		>"$tmp/log" 2>&1 &
	pid=$!
	for _ in $(seq 300); do
		tx=$("$ctl" -s "$tmp/ctl.sock" --json stats show 2>/dev/null |
			jq '.ports[2].tx_pkts' || echo 0)
		[ "$tx" = 4096 ] && break
		kill -0 "$pid" 2>/dev/null || fail "$name: inswitch exited"
		sleep 0.1
	done
	[ "$tx" = 4096 ] || fail "$name: port 2 sent $tx of 4096 replicas"
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
echo PASS
