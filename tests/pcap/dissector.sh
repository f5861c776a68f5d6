#!/usr/bin/env bash
# The Wireshark/tshark dissector (wireshark/inswitch.lua, docs/wireshark.md):
#   (a) over every golden capture (atp-region's and syncagtr-region's with the region notes
#       and SwitchML's "held" bit), each SwitchML, ATP and ASK field tshark decodes equals the
#       value read from the frame's bytes (dissector_check.py), values and slots included; and
#       over ATP's job frames (a JOIN and an ANNOUNCE, seq 0, built here as docs/atp.md has them)
#       and NetRPC calls and results (built here as docs/netrpc.md has them)
#   (b) scripts/install-dissector.sh puts it where tshark finds it with no option
#   dissector.sh SOURCE-ROOT
set -euo pipefail
root=$1
command -v tshark >/dev/null || { echo "FAIL: no tshark (scripts/deps.sh installs it)"; exit 1; }
tmp=$(mktemp -d -t inswitch-dissector.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

echo "(a) every field of every golden frame, and of ATP's job frames"
python3 - "$tmp/atp-job.pcap" "$tmp/netrpc.pcap" <<'PY'
import struct, sys
ip = bytes.fromhex("450000540000400040 01afb60d0738660d07387f".replace(" ", ""))
def frame(dst, bitmap, nw, flag, app, key, values):
    b = bytes(dst) + bytes.fromhex("e41d2df3ddcc") + b"\x07\x00" + ip
    b += struct.pack(">IBBHHHH", bitmap, nw, flag, app, 0, 0, 0)
    b += b"".join(struct.pack(">I", v) for v in values).ljust(248, b"\0")
    return b + struct.pack("<Q", key) + struct.pack(">I", 0)
join = frame([5, 4, 3, 2, 1, 0], 1 << 2, 4, 0, 1, 0x1234 << 32, [0xdeadbeef, 1])
ann = frame([0x77] * 5 + [0], 1, 4, 1, 1, 0x89abcdef << 32, [11, 22, 0xdeadbeef, 44])
def write(path, frames):
    with open(path, "wb") as f:
        f.write(struct.pack("<IHHiIII", 0xa1b2c3d4, 2, 4, 0, 0, 65535, 1))
        for i, p in enumerate(frames):
            f.write(struct.pack("<IIII", i, 0, len(p), len(p)) + p)
write(sys.argv[1], (join, ann))
# NetRPC (docs/netrpc.md): a call, its result, a map call of two items, and one with a
# header alone, as the wire format has them
def nrpc(sport, dport, service, op, flags, count, member, seq, key, words):
    pay = struct.pack(">BBBBHHII", service, op, flags, count, member, 0, seq, key)
    pay += b"".join(struct.pack(">I", w) for w in words)
    udp = struct.pack(">HHHH", sport, dport, 8 + len(pay), 0) + pay
    ip = struct.pack(">BBHHHBBH4s4s", 0x45, 0, 20 + len(udp), 1, 0, 64, 17, 0,
                     bytes([10, 0, 0, 1]), bytes([10, 0, 0, 250]))
    return bytes([2, 0, 0, 0, 0x4e, 0x52, 2, 0, 0, 0, 0, 1]) + b"\x08\x00" + ip + udp
write(sys.argv[2], (nrpc(40001, 20050, 1, 0, 0x04, 1, 2, 7, 5, [1, 0xfffffffe, 3, 4]),
                    nrpc(20050, 40001, 1, 0, 0x05, 1, 2, 7, 5, [10, 20, 30, 40]),
                    nrpc(40002, 20050, 2, 0, 0x02, 2, 31, 0xffffffff, 0,
                         [0x6b31, 0, 1, 0x6b32, 0, 1]),
                    nrpc(40003, 20050, 63, 15, 0x88, 0, 0, 0, 0, [])))
PY
python3 "$(dirname "$0")/dissector_check.py" "$root/wireshark/inswitch.lua" \
	"$root"/pcaps/{syncagtr,syncagtr-region,atp,atp-ports,atp-region,ask}/*.pcap "$tmp/atp-job.pcap" \
	"$tmp/netrpc.pcap"
for f in atp-job netrpc; do
	tshark -X lua_script:"$root/wireshark/inswitch.lua" -r "$tmp/$f.pcap" 2>/dev/null |
		sed 's/^/    /' | cut -c1-120
done

echo "(b) installed, found without options"
HOME=$tmp "$root/scripts/install-dissector.sh"
[ -f "$tmp/.local/lib/wireshark/plugins/inswitch.lua" ] || { echo "FAIL: not installed"; exit 1; }
got=$(HOME=$tmp tshark -r "$root/pcaps/atp/in-p0.pcap" -c 1 -T fields -e atp_agg.app \
	-e atp_agg.agtr 2>/dev/null)
[ "$got" = "$(printf '1\t10')" ] || { echo "FAIL: installed dissector gave '$got'"; exit 1; }
echo "    $tmp/.local/lib/wireshark/plugins/inswitch.lua: atp_agg.app, .agtr of frame 1: $got"
echo "PASS"
