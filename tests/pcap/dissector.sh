#!/usr/bin/env bash
# The Wireshark/tshark dissector (wireshark/inswitch.lua, docs/wireshark.md):
#   (a) over every golden capture (atp-region's and syncagtr-region's with the region notes
#       and SwitchML's "held" bit), each SwitchML, ATP and ASK field tshark decodes equals the
#       value read from the frame's bytes (dissector_check.py), values and slots included; and
#       over ATP's job frames (a JOIN and an ANNOUNCE, seq 0, built here as docs/atp.md has them)
#   (b) scripts/install-dissector.sh puts it where tshark finds it with no option
#   dissector.sh SOURCE-ROOT
set -euo pipefail
root=$1
command -v tshark >/dev/null || { echo "FAIL: no tshark (scripts/deps.sh installs it)"; exit 1; }
tmp=$(mktemp -d -t inswitch-dissector.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

echo "(a) every field of every golden frame, and of ATP's job frames"
python3 - "$tmp/atp-job.pcap" <<'PY'
import struct, sys
ip = bytes.fromhex("450000540000400040 01afb60d0738660d07387f".replace(" ", ""))
def frame(dst, bitmap, nw, flag, app, key, values):
    b = bytes(dst) + bytes.fromhex("e41d2df3ddcc") + b"\x07\x00" + ip
    b += struct.pack(">IBBHHHH", bitmap, nw, flag, app, 0, 0, 0)
    b += b"".join(struct.pack(">I", v) for v in values).ljust(248, b"\0")
    return b + struct.pack("<Q", key) + struct.pack(">I", 0)
join = frame([5, 4, 3, 2, 1, 0], 1 << 2, 4, 0, 1, 0x1234 << 32, [0xdeadbeef, 1])
ann = frame([0x77] * 5 + [0], 1, 4, 1, 1, 0x89abcdef << 32, [11, 22, 0xdeadbeef, 44])
with open(sys.argv[1], "wb") as f:
    f.write(struct.pack("<IHHiIII", 0xa1b2c3d4, 2, 4, 0, 0, 65535, 1))
    for i, p in enumerate((join, ann)):
        f.write(struct.pack("<IIII", i, 0, len(p), len(p)) + p)
PY
python3 "$(dirname "$0")/dissector_check.py" "$root/wireshark/inswitch.lua" \
	"$root"/pcaps/{syncagtr,syncagtr-region,atp,atp-ports,atp-region,ask}/*.pcap "$tmp/atp-job.pcap"
tshark -X lua_script:"$root/wireshark/inswitch.lua" -r "$tmp/atp-job.pcap" 2>/dev/null |
	sed 's/^/    /' | cut -c1-120

echo "(b) installed, found without options"
HOME=$tmp "$root/scripts/install-dissector.sh"
[ -f "$tmp/.local/lib/wireshark/plugins/inswitch.lua" ] || { echo "FAIL: not installed"; exit 1; }
got=$(HOME=$tmp tshark -r "$root/pcaps/atp/in-p0.pcap" -c 1 -T fields -e atp_agg.app \
	-e atp_agg.agtr 2>/dev/null)
[ "$got" = "$(printf '1\t10')" ] || { echo "FAIL: installed dissector gave '$got'"; exit 1; }
echo "    $tmp/.local/lib/wireshark/plugins/inswitch.lua: atp_agg.app, .agtr of frame 1: $got"
echo "PASS"
