#!/usr/bin/env bash
# The control socket as a client sees it, byte for byte (inswitch on a net_null port; no root):
# every line gets exactly one reply, in order: an over-long line (with or without its newline,
# the last one ended by EOF included), a line with a NUL byte (refused, and nothing of it runs),
# a CRLF line (accepted). Every refusal carries its error code (docs/ctl.md, Error codes), and
# inswitch-ctl shows it and exits 1.
#   ctl_socket.sh BUILD_DIR
set -euo pipefail
build=$(cd "$1" && pwd)
source "$(dirname "$0")/lib.sh"
trap isw_cleanup EXIT

"$build/inswitch" --no-huge -m 512 --no-pci -l 0 --no-shconf --file-prefix "isw-$ISW_TAG" \
	--log-level='*:warning' --vdev net_null0,no-rx=1 --vdev net_null1,no-rx=1 \
	-- --ctl "$ISW_CTL_SOCK" >"$ISW_LOG" 2>&1 &
ISW_PID=$!
ISW_BUILD=$build
for ((i = 0; i < 100; i++)); do
	kill -0 "$ISW_PID" 2>/dev/null || isw_fail "inswitch exited"
	isw_ctl version >/dev/null 2>&1 && break
	sleep 0.1
done

/usr/bin/python3 - "$ISW_CTL_SOCK" <<'EOF' || isw_fail "control socket checks"
import json
import socket
import sys


def session(data):
    """Sends data, closes the write side, returns the reply lines."""
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(10)
    s.connect(sys.argv[1])
    s.sendall(data)
    s.shutdown(socket.SHUT_WR)
    got = b""
    while True:
        chunk = s.recv(65536)
        if not chunk:
            break
        got += chunk
    s.close()
    return [json.loads(line) for line in got.decode().splitlines()]


too_long = {"ok": False, "error": "line too long (at most 4095 bytes)", "code": "E2BIG"}
cases = [
    ("an over-long last line ended by EOF", b"l2 show " + b"a" * 5000, [too_long]),
    ("an over-long line, then another line", b"x" * 9000 + b"\nversion\n", [too_long, "ok"]),
    ("a NUL byte", b"l2 add 02:00:00:00:00:0a 1\0 junk\nl2 show\n",
     [{"ok": False, "error": "control byte 0x00 at offset 26: a command line is text",
       "code": "EINVAL"}, "ok"]),
    ("a CRLF line", b"l2 add 02:00:00:00:00:0b 1\r\nl2 show\r\n", ["ok", "ok"]),
    ("an unknown command", b"frobnicate\n", ["EINVAL"]),
    ("a group created twice", b"mc group create 7\nmc group create 7\nmc group destroy 7\n",
     ["ok", "EEXIST", "ok"]),
    ("a missing entry", b"l2 del 02:00:00:00:00:0c\n", ["ENOENT"]),
    ("a port beyond the last", b"l2 add 02:00:00:00:00:0c 2\n", ["ERANGE"]),
    ("a pipeline not enabled", b"syncagtr session show 1\n", ["ENOTSUP"]),
]
for what, data, want in cases:
    got = session(data)
    assert len(got) == len(want), "%s: %d replies, want %d: %s" % (what, len(got), len(want), got)
    for g, w in zip(got, want):
        if w == "ok":
            ok = g["ok"] is True and "code" not in g
        elif isinstance(w, str):  # refused with this code and some message
            ok = g["ok"] is False and g["code"] == w and g["error"] != ""
        else:
            ok = g == w
        assert ok, "%s: got %s, want %s" % (what, g, w)
    print("%s: %s" % (what, json.dumps(got)[:160]))
entries = session(b"l2 show\n")[0]["entries"]
assert [e["mac"] for e in entries] == ["02:00:00:00:00:0b"], entries
print("l2 table: only the CRLF line's entry")
EOF

# inswitch-ctl prints the message with its code on stderr and exits 1; --json passes the code.
set +e
msg=$(isw_ctl l2 del 02:00:00:00:00:0d 2>&1 >/dev/null)
rc=$?
code=$(isw_ctl --json mc group create 65281 |
	/usr/bin/python3 -c 'import json, sys; print(json.load(sys.stdin)["code"])')
set -e
[ "$rc" = 1 ] || isw_fail "inswitch-ctl exited $rc for a refused command, want 1"
[ "$msg" = "error: 02:00:00:00:00:0d is not in the MAC table (ENOENT)" ] ||
	isw_fail "inswitch-ctl printed '$msg'"
[ "$code" = EPERM ] || isw_fail "--json reply's code: '$code', want EPERM"
echo "inswitch-ctl: $msg; --json: $code"
echo "PASS"
