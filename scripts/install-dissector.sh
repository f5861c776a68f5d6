#!/usr/bin/env bash
# Installs inswitch's Wireshark/tshark dissector (wireshark/inswitch.lua: SwitchML, ATP, ASK)
# where Wireshark looks for Lua plugins, as `tshark -G folders` reports it:
#   scripts/install-dissector.sh            your personal Lua plugins folder
#   scripts/install-dissector.sh --system   the global one (root)
# Wireshark then decodes the protocols without options; restart it if it is running.
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)/wireshark/inswitch.lua
which=Personal
case ${1:-} in
--system) which=Global ;;
"") ;;
*) echo "usage: $0 [--system]" >&2; exit 2 ;;
esac
command -v tshark >/dev/null || { echo "install-dissector: no tshark (apt-get install tshark)" >&2; exit 1; }
dir=$(tshark -G folders 2>/dev/null | sed -n "s/^$which Lua Plugins:[[:space:]]*//p")
[ -n "$dir" ] || { echo "install-dissector: tshark -G folders names no $which Lua Plugins folder" >&2; exit 1; }
mkdir -p "$dir"
install -m 0644 "$src" "$dir/inswitch.lua"
echo "installed $dir/inswitch.lua"
