#!/usr/bin/env bash
# RSS kept consistent with the shard map (docs/deploy.md, Steering): on multi-queue ports with
# a redirection table (net_null has one; it does not hash what it makes, so this checks the
# table inswitch programs, read back from the driver, not packets), a SyncAgtr session split
# among 4 threads of 4 workers, owned by 2 lcores. rss_check.py recomputes every sender's
# Toeplitz hash on its own.
#   (a) the ports' own keys: each sender's entry points at its owner's queue unless another
#       worker's sender took it first (then it is reported handed off); nothing else moves
#   (b) steer rss src-port: every sender placed, one entry per thread
#   (c) steer rss tuple puts the ports' own keys back; deleting the session, their own tables
#   (d) one rx queue: steer rss src-port is refused, saying why
#   rss.sh INSWITCH INSWITCH-CTL PCAPGEN
set -euo pipefail
source "$(dirname "$0")/lib.sh"
inswitch=$1 ctl=$2 pcapgen=$3
tmp="" pid=""
daemon_test rss # sets both
check=$(dirname "$0")/rss_check.py

"$pcapgen" syncagtr-bench "$tmp/sa.pcap" --workers 4 --slots 256 --elems 64 \
	--config "$tmp/sa.cfg" >/dev/null
sed -i 's/slots 256$/slots 256 threads 4 worker-port 4000/' "$tmp/sa.cfg"

# start RXQ: the daemon on two net_null ports, two workers.
start() {
	rm -f "$tmp/ctl.sock"
	"$inswitch" --no-huge -m 512 --no-pci -l 0-1 --no-shconf --file-prefix "isw-rss-$$" \
		--log-level='*:warning' --vdev net_null0 --vdev net_null1 \
		-- --ctl "$tmp/ctl.sock" --pipeline syncagtr --rxq "$1" >"$tmp/log" 2>&1 &
	pid=$!
	wait_ctl
}
stop() {
	kill "$pid"
	wait "$pid" 2>/dev/null || true
	pid=""
}
c() { "$ctl" -s "$tmp/ctl.sock" "$@"; }

start 2
c --json steer show >"$tmp/base.json"
[ "$(jq '[.rss[] | select(.used)] | length' "$tmp/base.json")" = 2 ] ||
	fail "RSS not usable on both ports: $(jq -c .rss "$tmp/base.json")"
while read -r line; do
	# shellcheck disable=SC2086 # one command, split into words as inswitch-ctl takes them
	c $line >/dev/null || fail "$line"
done <"$tmp/sa.cfg"

echo "(a) the ports' own keys"
c --json steer show >"$tmp/a.json"
python3 "$check" "$tmp/a.json" tuple "$tmp/base.json" || fail "(a)"
[ "$(jq '.rss_senders | length' "$tmp/a.json")" = 32 ] || fail "(a): not 16 senders per port"
shared=$(jq '[.rss_senders[] | select(.state != "placed")] | length' "$tmp/a.json")
echo "    $shared of 32 share an entry with another worker's sender"

echo "(b) steer rss src-port"
c steer rss src-port >/dev/null || fail "steer rss src-port"
c --json steer show >"$tmp/b.json"
python3 "$check" "$tmp/b.json" src-port "$tmp/base.json" || fail "(b)"
[ "$(jq '[.rules[] | select(.by == "rss")] | length' "$tmp/b.json")" = 8 ] ||
	fail "(b): not every rule steered by RSS: $(jq -c '.rules' "$tmp/b.json")"
[ "$(jq -r '.rss[0].key' "$tmp/b.json")" != "$(jq -r '.rss[0].key' "$tmp/base.json")" ] ||
	fail "(b): the key did not change"

echo "(c) steer rss tuple, then session del"
c steer rss tuple >/dev/null || fail "steer rss tuple"
c --json steer show >"$tmp/c.json"
[ "$(jq -c '[.rss[].key]' "$tmp/c.json")" = "$(jq -c '[.rss[].key]' "$tmp/base.json")" ] ||
	fail "(c): keys not put back"
python3 "$check" "$tmp/c.json" tuple "$tmp/base.json" || fail "(c)"
c syncagtr session del 1 >/dev/null || fail "session del"
c --json steer show >"$tmp/c2.json"
[ "$(jq -c '[.rss[].reta]' "$tmp/c2.json")" = "$(jq -c '[.rss[].reta]' "$tmp/base.json")" ] ||
	fail "(c): tables not put back"
stop

echo "(d) one rx queue"
start 1
if out=$(c steer rss src-port 2>&1); then
	fail "(d): steer rss src-port accepted with one rx queue"
fi
grep -q "one rx queue" <<<"$out" || fail "(d): $out"
stop
echo "PASS"
