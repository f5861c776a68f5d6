#!/usr/bin/env bash
# The Wireshark/tshark dissector (wireshark/inswitch.lua, docs/wireshark.md):
#   (a) over every golden capture, each SwitchML, ATP and ASK field tshark decodes equals the
#       value read from the frame's bytes (dissector_check.py), values and slots included
#   (b) scripts/install-dissector.sh puts it where tshark finds it with no option
#   dissector.sh SOURCE-ROOT
set -euo pipefail
root=$1
command -v tshark >/dev/null || { echo "FAIL: no tshark (scripts/deps.sh installs it)"; exit 1; }
tmp=$(mktemp -d -t inswitch-dissector.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

echo "(a) every field of every golden frame"
python3 "$(dirname "$0")/dissector_check.py" "$root/wireshark/inswitch.lua" \
	"$root"/pcaps/{syncagtr,atp,atp-ports,ask}/*.pcap

echo "(b) installed, found without options"
HOME=$tmp "$root/scripts/install-dissector.sh"
[ -f "$tmp/.local/lib/wireshark/plugins/inswitch.lua" ] || { echo "FAIL: not installed"; exit 1; }
got=$(HOME=$tmp tshark -r "$root/pcaps/atp/in-p0.pcap" -c 1 -T fields -e atp_agg.app \
	-e atp_agg.agtr 2>/dev/null)
[ "$got" = "$(printf '1\t10')" ] || { echo "FAIL: installed dissector gave '$got'"; exit 1; }
echo "    $tmp/.local/lib/wireshark/plugins/inswitch.lua: atp_agg.app, .agtr of frame 1: $got"
echo "PASS"
