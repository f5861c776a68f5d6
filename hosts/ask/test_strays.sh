#!/usr/bin/env bash
# The ASK host tools ignore datagrams from where they do not expect them (hosts/ask/README.md):
# ask-sender takes ACKs only from its receiver. On loopback, no switch: a receiver without
# switch control, a sender of 4,000,000 words to it, and a third socket that sends 50 forged
# DATA_ACKs to the sender's port while it runs. The job must still complete (every tuple
# ACKed) and the sender must report exactly 50 strays. Usage: test_strays.sh BUILD_DIR
set -euo pipefail

B=${1:?usage: test_strays.sh BUILD_DIR}/hosts/ask
T=$(mktemp -d)
pids=()
cleanup() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
	rm -rf "$T"
}
trap cleanup EXIT

seq 1 4000000 | sed 's/^/w/' >"$T/words"
port=$((40000 + RANDOM % 20000))
"$B/ask-receiver" --switch none --listen "$port" --linger-ms 300 --json >"$T/rx" &
pids+=($!)
sleep 0.3
"$B/ask-sender" --receiver "127.0.0.1:$port" --words "$T/words" --json >"$T/tx" &
sender=$!
pids+=("$sender")

# The sender's ephemeral port, from its socket.
sport=""
for _ in $(seq 200); do
	sport=$(ss -unap 2>/dev/null | grep "pid=$sender," | grep -o '0\.0\.0\.0:[0-9]*' | head -1 |
		cut -d: -f2 || true)
	[ -n "$sport" ] && break
	sleep 0.005
done
[ -n "$sport" ] || { echo "FAIL: no socket of ask-sender found"; exit 1; }
# 50 forged DATA_ACKs (type 2, task 1, channel 0, seq 0): from this socket, not the receiver.
python3 - "$sport" <<'PY'
import socket, sys
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
ack = bytes([2, 0, 0, 1, 0, 0]) + bytes(18)
for _ in range(50):
    s.sendto(ack, ("127.0.0.1", int(sys.argv[1])))
PY
wait "$sender" || { echo "FAIL: ask-sender failed: $(cat "$T/tx")"; exit 1; }
tx=$(cat "$T/tx")
echo "sender: $tx"
python3 - "$tx" <<'PY'
import json, sys
t = json.loads(sys.argv[1])
assert t["ok"] is True, "the job did not complete"
assert t["tuples"] == 4000000, t["tuples"]
assert t["strays"] == 50, "strays %d, expected 50 (the forged ACKs)" % t["strays"]
print("PASS: 50 forged ACKs ignored and counted, 4,000,000 tuples ACKed by the receiver")
PY
