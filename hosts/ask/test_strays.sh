#!/usr/bin/env bash
# ask-sender --ack-from takes ACKs only from there (hosts/ask/README.md). On loopback, no switch:
#  1. a receiver without switch control and a sender of 1,000,000 words to it with --ack-from
#     the receiver, while a third socket sends 50 forged DATA_ACKs to the sender's port: the job
#     must complete (every tuple ACKed) and the sender must report exactly 50 strays;
#  2. without --ack-from, a sender that addresses the receiver as 127.0.0.2 (its ACKs then come
#     from 127.0.0.1) must complete with no strays: the default takes ACKs from anywhere;
#  3. ask-receiver takes SWAP_DONE and FETCH_REPLY only from --switch: a stand-in switch (a
#     python socket) answers each FETCH of the final drain with an empty FETCH_REPLY, after a
#     forged one from another socket of the same host (the same seq, slot and copy, carrying the
#     record "forged" = 1000) sent first, once per seq (not for a retry, whose forged reply could
#     come after the receiver's report), and answers BEGIN as a switch that passed all 1000
#     tuples on; the receiver must count every forged reply as a stray and write exactly the
#     words sent (1000 words, each once), without "forged", its end-to-end check holding.
# Window 2 keeps job 1 at about a second or more, bound by loopback round trips rather than by
# the CPU, so the forged ACKs arrive while it runs. Usage: test_strays.sh BUILD_DIR
set -euo pipefail

B=${1:?usage: test_strays.sh BUILD_DIR}/hosts/ask
for tool in ss python3; do
	command -v "$tool" >/dev/null || { echo "SKIP: $tool is not installed"; exit 77; }
done
T=$(mktemp -d)
pids=()
cleanup() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
	rm -rf "$T"
}
trap cleanup EXIT

seq 1 1000000 | sed 's/^/w/' >"$T/words"

# An ask-receiver with these arguments on a free port ($port, pid $rpid, output $T/rx and
# $T/rx.err): a random one, checked listening (it may be taken: try again).
start_receiver() {
	for _ in $(seq 20); do
		port=$((20000 + RANDOM % 12000)) # below the ephemeral range
		"$B/ask-receiver" "$@" --listen "$port" --json >"$T/rx" 2>"$T/rx.err" &
		rpid=$!
		for _ in $(seq 100); do
			ss -Hlunp "sport = :$port" | grep -q "pid=$rpid," && { pids+=("$rpid"); return 0; }
			kill -0 "$rpid" 2>/dev/null || break
			sleep 0.01
		done
		kill "$rpid" 2>/dev/null || true
		wait "$rpid" 2>/dev/null || true
	done
	echo "FAIL: no receiver could listen"
	exit 1
}

check() { # JSON line, expected strays
	python3 - "$1" "$2" <<'PY'
import json, sys
t = json.loads(sys.argv[1])
assert t["ok"] is True, "the job did not complete"
assert t["tuples"] == 1000000, t["tuples"]
assert t["strays"] == int(sys.argv[2]), "strays %d, expected %s" % (t["strays"], sys.argv[2])
PY
}

# 1. --ack-from the receiver, 50 forged ACKs from elsewhere.
start_receiver --switch none --window 2 --linger-ms 300
"$B/ask-sender" --receiver "127.0.0.1:$port" --ack-from "127.0.0.1:$port" --window 2 \
	--words "$T/words" --json >"$T/tx" &
sender=$!
pids+=("$sender")
sport=""
for _ in $(seq 200); do
	sport=$(ss -Hunap 2>/dev/null | grep "pid=$sender," | grep -o '0\.0\.0\.0:[0-9]*' | head -1 |
		cut -d: -f2 || true)
	[ -n "$sport" ] && break
	sleep 0.005
done
[ -n "$sport" ] || { echo "FAIL: no socket of ask-sender found"; exit 1; }
# DATA_ACKs (type 2) of task 1, channel 0, seqs 0..49: they would be taken without the check.
python3 - "$sport" <<'PY'
import socket, struct, sys
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
for seq in range(50):
    ack = struct.pack(">BBHHBBI", 2, 0, 1, 0, 16, 8, seq) + bytes(12)
    s.sendto(ack, ("127.0.0.1", int(sys.argv[1])))
PY
wait "$sender" || { echo "FAIL: ask-sender failed: $(cat "$T/tx")"; exit 1; }
echo "job 1 sender: $(cat "$T/tx")"
check "$(cat "$T/tx")" 50
kill "${pids[0]}" 2>/dev/null || true
wait "${pids[0]}" 2>/dev/null || true
pids=()

# 2. The default: ACKs from another address than the one the sender addressed.
start_receiver --switch none --window 2 --linger-ms 300
"$B/ask-sender" --receiver "127.0.0.2:$port" --window 2 --words "$T/words" --json >"$T/tx" ||
	{ echo "FAIL: ask-sender failed: $(cat "$T/tx")"; exit 1; }
echo "job 2 sender: $(cat "$T/tx")"
check "$(cat "$T/tx")" 0
kill "${pids[0]}" 2>/dev/null || true
wait "${pids[0]}" 2>/dev/null || true
pids=()

# 3. Forged switch replies to a receiver with --switch.
python3 - "$T/sw" <<'PY' &
import os, socket, struct, sys
HDR = ">BBHHBBIIII"
sw = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
sw.bind(("127.0.0.1", 0))
fake = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
fake.bind(("127.0.0.1", 0))
with open(sys.argv[1] + ".port", "w") as f:
    f.write("%d\n" % sw.getsockname()[1])
forged = set()  # FETCH seqs answered with a forged reply: once each, not again for a retry
inc = 0  # the task's incarnation, as BEGIN makes it (docs/ask.md, Job lifetime)
while True:
    b, addr = sw.recvfrom(2048)
    if len(b) < 24:
        continue
    typ, _, task, ch, ns, kb, seq, sel, start, count = struct.unpack(HDR, b[:24])
    if typ == 7:  # BEGIN: N from E, or a probe; the counts of a switch that passed every tuple
        want, expect, err, reset = count >> 16, count & 0xFFFF, 0, 0
        if inc != want:
            if inc == expect and want != expect:
                inc, reset = want, 1  # flags 0x01: this BEGIN started the incarnation
            else:
                err = 1
        info = struct.pack(">IBBBBHHIIQQQI", 0x5EED, err, reset, 0, 0, 1, 0, 64, 4096, 1000, 0, 0,
                           1)
        sw.sendto(struct.pack(HDR, 8, 0x80 if err else 0, task, ch, ns, kb, seq, sel, start,
                              inc << 16) + info, addr)
    elif typ == 3:  # SWAP: done, the copy asked for now active
        sw.sendto(struct.pack(HDR, 4, 0, task, ch, ns, kb, seq, sel, 0, 0), addr)
    elif typ == 5:  # FETCH: a forged reply first, then the switch's own (the copy is empty)
        if seq not in forged:
            rec = b"forged".ljust(kb, b"\0") + struct.pack(">I", 1000)
            fake.sendto(struct.pack(HDR, 6, 0, task, ch, ns, kb, seq, sel, 4096, 1) + rec, addr)
            forged.add(seq)
            with open(sys.argv[1] + ".tmp", "w") as f:
                f.write("%d\n" % len(forged))
            os.replace(sys.argv[1] + ".tmp", sys.argv[1] + ".forged")
        sw.sendto(struct.pack(HDR, 6, 0, task, ch, ns, kb, seq, sel, 4096, 0), addr)
PY
pids+=($!)
for _ in $(seq 200); do [ -s "$T/sw.port" ] && break; sleep 0.01; done
[ -s "$T/sw.port" ] || { echo "FAIL: the stand-in switch did not start"; exit 1; }
swport=$(cat "$T/sw.port")
head -1000 "$T/words" >"$T/words3"
start_receiver --switch "127.0.0.1:$swport" --linger-ms 100 --out "$T/table"
"$B/ask-sender" --receiver "127.0.0.1:$port" --words "$T/words3" --json >"$T/tx" ||
	{ echo "FAIL: ask-sender failed: $(cat "$T/tx")"; exit 1; }
wait "$rpid" || { echo "FAIL: ask-receiver failed: $(cat "$T/rx" "$T/rx.err")"; exit 1; }
echo "job 3 receiver: $(cat "$T/rx")"
python3 - "$T/rx" "$T/sw.forged" "$T/table" "$T/words3" <<'PY'
import json, sys
rx = json.load(open(sys.argv[1]))
forged = int(open(sys.argv[2]).read())
assert forged >= 16, "only %d FETCHes reached the stand-in switch" % forged
assert rx["strays"] == forged, "strays %d, forged replies %d" % (rx["strays"], forged)
table = dict(l.rstrip("\n").split("\t") for l in open(sys.argv[3]))
want = {w.strip(): "1" for w in open(sys.argv[4])}
assert "forged" not in table, "the forged record is in the table"
assert rx["verified"] is True, rx
assert table == want, "the table is not the words sent (%d rows, %d words)" % (len(table), len(want))
PY
echo "PASS: 50 forged ACKs ignored and counted with --ack-from; ACKs from another address taken by default; forged FETCH_REPLYs ignored and counted by the receiver"
