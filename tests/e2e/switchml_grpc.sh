#!/usr/bin/env bash
# End to end: hosts/syncagtr/switchml-controller against a running inswitch (net_null port, no
# root, no namespaces). A Python client plays the exact start-up call sequence of SwitchML's DPDK
# workers (DpdkBackend::SetupSwitch) for 3 ranks in threads, twice (two jobs): Broadcast from
# every rank; rank 0 UdpSession then Barrier, the others Barrier then UdpSession; Barrier. Its
# protobuf encoding is written by hand independently of the shim's, and its requests carry
# unknown fields of every wire type. Then it checks:
#   * every rank got root's 64-bit value, no Broadcast/Barrier returned before its round's last
#     call, UdpSession answered the job id, the switch MAC and the switch IP as integers;
#   * inswitch-ctl --json: session 1 was re-created (a stale one is replaced) with the switch IP,
#     3 workers, the slots asked for and exactly the second job's MACs/IPs, each on its port
#     from the start (job 0's MACs come from a SwitchML ports.yaml given to --ports, job 1's
#     from l2 entries the operator added); session 2 untouched;
#   * a ports file with a bad entry stops the shim, naming the entry;
#   * errors reach the caller: RdmaSession UNIMPLEMENTED, bad rank and malformed requests
#     INVALID_ARGUMENT, an inswitch refusal with inswitch's message, a worker behind no known
#     port FAILED_PRECONDITION saying how to give its port;
#   * one log line per RPC, and a clean exit on SIGTERM.
#   switchml_grpc.sh BUILD_DIR
set -euo pipefail
build=$(cd "$1" && pwd)
src=$(cd "$(dirname "$0")/../.." && pwd)
source "$(dirname "$0")/lib.sh"

py=""
for p in /usr/bin/python3 python3; do
	if command -v "$p" >/dev/null && "$p" -c 'import grpc' 2>/dev/null; then
		py=$p
		break
	fi
done
if [ -z "$py" ]; then
	echo "skipped: python3-grpcio is not importable (apt-get install python3-grpcio)"
	exit 77
fi

shim_log=$ISW_TMP/shim.log
trap isw_cleanup EXIT

fail() {
	echo "FAIL: $*" >&2
	echo "--- shim log" >&2
	tail -n 30 "$shim_log" >&2 || true
	echo "--- inswitch log" >&2
	tail -n 10 "$ISW_LOG" >&2 || true
	exit 1
}

# ---- inswitch with four null ports and the syncagtr pipeline
"$build/inswitch" --no-huge -m 512 --no-pci -l 0 --no-shconf --file-prefix "isw-$ISW_TAG" \
	--log-level='*:warning' --vdev net_null0,no-rx=1 --vdev net_null1,no-rx=1 \
	--vdev net_null2,no-rx=1 --vdev net_null3,no-rx=1 \
	-- --ctl "$ISW_CTL_SOCK" --pipeline syncagtr >"$ISW_LOG" 2>&1 &
ISW_PID=$!
ISW_BUILD=$build
for ((i = 0; i < 100; i++)); do
	kill -0 "$ISW_PID" 2>/dev/null || fail "inswitch exited"
	isw_ctl version >/dev/null 2>&1 && break
	sleep 0.1
done
isw_ctl version >/dev/null || fail "inswitch did not start"

# A switch MAC the shim must read back, a stale session 1 it must replace and a session 2 it
# must leave alone.
isw_ctl syncagtr switch mac 02:a1:b2:c3:d4:e5 >/dev/null
isw_ctl syncagtr session add 1 ip 10.200.0.253 workers 5 slots 64 >/dev/null
isw_ctl syncagtr worker add 1 4 mac 0c:42:a1:5e:99:99 ip 10.200.0.99 port auto >/dev/null
isw_ctl syncagtr session add 2 ip 10.200.1.254 workers 2 slots 128 >/dev/null

# The cabling: job 0's workers in SwitchML's own ports.yaml format (front-panel F/0 is inswitch
# port F-1, a plain number is the inswitch port), job 1's as l2 entries the operator added.
cat >"$ISW_TMP/ports.yaml" <<'EOF'
ports:
    1/0 : {speed: "100G", fec: "none", autoneg: "disable", mac: "0c:42:a1:5e:00:01"}
    2/0 : {speed: "100G", fec: "none", autoneg: "disable", mac: "0C:42:A1:5E:00:02"}
    3 : {mac: "0c:42:a1:5e:00:03"}
EOF
for r in 1 2 3; do
	isw_ctl l2 add "0c:42:a1:5e:01:0$r" $((3 - r)) >/dev/null
done

# A bad ports file stops the shim before it serves anything, naming the entry.
printf 'ports:\n    1/0 : {mac: "0c:42:a1:5e:00:01"}\n    7/0 : {mac: "0c:42:a1:5e:00:07"}\n' \
	>"$ISW_TMP/bad.yaml"
if "$py" "$src/hosts/syncagtr/switchml-controller" --listen 127.0.0.1:0 --ctl "$ISW_CTL_SOCK" \
	--switch-ip 10.200.0.254 --ports "$ISW_TMP/bad.yaml" 2>"$ISW_TMP/bad.log"; then
	fail "the shim started with a ports file naming port 7/0 of a 4-port switch"
fi
grep -q "port 7/0: inswitch port 6 does not exist (it has 4 ports)" "$ISW_TMP/bad.log" ||
	fail "bad ports file: $(cat "$ISW_TMP/bad.log")"
# A port listed twice is refused too (YAML would keep the last one), and a MAC of decimal pairs
# is a MAC, not a base-60 number.
printf 'ports:\n    1/0 : {mac: 52:54:00:12:34:56}\n    1/0 : {mac: "0c:42:a1:5e:00:07"}\n' \
	>"$ISW_TMP/dup.yaml"
if "$py" "$src/hosts/syncagtr/switchml-controller" --listen 127.0.0.1:0 --ctl "$ISW_CTL_SOCK" \
	--switch-ip 10.200.0.254 --ports "$ISW_TMP/dup.yaml" 2>"$ISW_TMP/dup.log"; then
	fail "the shim started with a ports file listing 1/0 twice"
fi
grep -q "key '1/0' given twice" "$ISW_TMP/dup.log" || fail "duplicate port: $(cat "$ISW_TMP/dup.log")"
isw_ctl --json l2 show | jq -e '.entries | length == 3' >/dev/null ||
	fail "the refused ports file left l2 entries behind"

# ---- the shim, on a port it picks (its log made first: the loop below may read it before the
# background shell has opened it for the shim's stderr)
: >"$shim_log"
"$py" "$src/hosts/syncagtr/switchml-controller" --listen 127.0.0.1:0 --ctl "$ISW_CTL_SOCK" \
	--session 1 --switch-ip 10.200.0.254 --slots 512 --ports "$ISW_TMP/ports.yaml" \
	2>"$shim_log" &
shim_pid=$!
ISW_STOP_PIDS+=($shim_pid)
port=""
for ((i = 0; i < 100; i++)); do
	kill -0 "$shim_pid" 2>/dev/null || fail "switchml-controller exited"
	port=$(sed -n 's/.*listening on 127\.0\.0\.1:\([0-9]*\);.*/\1/p' "$shim_log")
	[ -n "$port" ] && break
	sleep 0.1
done
[ -n "$port" ] || fail "switchml-controller did not say where it listens"
grep -q "inswitch switch MAC 02:a1:b2:c3:d4:e5" "$shim_log" || fail "shim did not read the switch MAC"
echo "switchml-controller listens on port $port"

# ---- the SwitchML client sequence, 3 ranks, two jobs
"$py" - "127.0.0.1:$port" "$src/tests/e2e" <<'EOF' || fail "gRPC client checks failed"
import sys, threading, time
import grpc

sys.path.insert(0, sys.argv[2])
from switchml_client import parse, uv, vf  # the protobuf helpers, written apart from the shim

target = sys.argv[1]
N = 3
SWITCH_MAC = 0x02A1B2C3D4E5
SWITCH_IP = 0x0AC800FE  # 10.200.0.254


# Unknown fields of every wire type the shim must skip: length-delimited, fixed32, fixed64, a
# group with a nested varint, and a large field number.
JUNK = (uv(6 << 3 | 2) + uv(5) + b"hello" + uv(12 << 3 | 5) + b"\x01\x02\x03\x04" +
        uv(13 << 3 | 1) + b"\xff" * 8 + uv(14 << 3 | 3) + vf(1, 300) + uv(14 << 3 | 4) +
        vf(100000, 7))


ch = grpc.insecure_channel(target)
grpc.channel_ready_future(ch).result(timeout=10)
rpc = {m: ch.unary_unary("/switchml_proto.%s" % m) for m in
       ("Sync/Broadcast", "Sync/Barrier", "Session/UdpSession", "Session/RdmaSession")}


def call(m, body):
    return rpc[m](body, timeout=20)


errors = []
log = []  # (phase, rank, call time, return time)
lock = threading.Lock()


def timed(phase, rank, m, body):
    t0 = time.monotonic()
    r = call(m, body)
    with lock:
        log.append((phase, rank, t0, time.monotonic()))
    return parse(r)


def worker(job, rank, results):
    try:
        mac = 0x0C42A15E0000 | job << 8 | (rank + 1)
        ip = 0x0AC80000 | (10 * job + rank + 1)
        # Rank 0's value is the job id (a nanosecond timestamp in SwitchML): above 2^63 here
        # so that it needs all 10 varint bytes. The others send values root's must override.
        value = 0xF00DCAFE12345670 + job if rank == 0 else 1000 * job + rank
        if rank == 2:
            time.sleep(0.5)  # the others must still be waiting when it comes
        bc = timed("bcast%d" % job, rank, "Sync/Broadcast",
                   vf(1, value) + vf(2, rank) + vf(3, N) + (vf(4, 0) if rank == 1 else b""))
        sid = bc.get(1, 0)
        req = (vf(1, sid) + (vf(2, rank) if rank else b"") + vf(3, N) + vf(4, mac) + vf(5, ip) +
               vf(7, 1) + (JUNK if rank != 1 else b""))
        barrier = vf(1, N)
        if rank == 0:
            us = parse(call("Session/UdpSession", req))
            timed("barrier%da" % job, rank, "Sync/Barrier", barrier)
        else:
            timed("barrier%da" % job, rank, "Sync/Barrier", barrier)
            us = parse(call("Session/UdpSession", req))
        timed("barrier%db" % job, rank, "Sync/Barrier", barrier)
        results[rank] = (sid, us)
    except Exception as e:
        errors.append("job %d rank %d: %r" % (job, rank, e))


# A worker killed while it waits (its call times out here) must leave the round, or the round
# would complete without a real member (Barrier) or its restarted successor would wait forever
# behind it (Broadcast).
for m, body in (("Sync/Broadcast", vf(1, 99) + vf(2, 1) + vf(3, N)), ("Sync/Barrier", vf(1, N))):
    try:
        rpc[m](body, timeout=0.3)
        raise AssertionError("a lone %s returned" % m)
    except grpc.RpcError as e:
        assert e.code() == grpc.StatusCode.DEADLINE_EXCEEDED, e
print("stale callers: a lone Broadcast and Barrier time out")

for job in (0, 1):
    results = {}
    ts = [threading.Thread(target=worker, args=(job, r, results)) for r in range(N)]
    for t in ts:
        t.start()
    for t in ts:
        t.join(60)
    assert not errors, errors
    assert sorted(results) == list(range(N)), "job %d: ranks finished: %s" % (job, sorted(results))
    want_sid = 0xF00DCAFE12345670 + job
    for r, (sid, us) in sorted(results.items()):
        assert sid == want_sid, "job %d rank %d: Broadcast gave 0x%x" % (job, r, sid)
        assert us == {1: want_sid, 2: SWITCH_MAC, 3: SWITCH_IP}, \
            "job %d rank %d: UdpSession answered %s" % (job, r, {k: hex(v) for k, v in us.items()})
    print("job %d: 3 ranks, Broadcast 0x%x, UdpSession session_id/mac/ipv4 0x%x/0x%x/0x%x"
          % (job, want_sid, want_sid, SWITCH_MAC, SWITCH_IP))

# No rendezvous returned before the last call of its round arrived.
phases = {}
for phase, rank, t0, t1 in log:
    phases.setdefault(phase, []).append((rank, t0, t1))
assert len(phases) == 6, sorted(phases)
for phase, calls in sorted(phases.items()):
    assert len(calls) == N, (phase, calls)
    last = max(t0 for _, t0, _ in calls)
    early = [r for r, _, t1 in calls if t1 < last]
    assert not early, "%s: ranks %s returned before the last call" % (phase, early)
print("rendezvous: no Broadcast or Barrier returned before its round was complete")


def code_of(m, body):
    try:
        call(m, body)
    except grpc.RpcError as e:
        return e.code(), e.details()
    return grpc.StatusCode.OK, ""


checks = [
    ("RdmaSession", "Session/RdmaSession", vf(2, 1), grpc.StatusCode.UNIMPLEMENTED, ""),
    ("rank 5 of 3", "Session/UdpSession", vf(2, 5) + vf(3, N) + vf(4, 0x0C42A15E0001) +
     vf(5, 0x0AC80001), grpc.StatusCode.INVALID_ARGUMENT, "rank 5"),
    ("truncated varint", "Sync/Barrier", b"\x08\xff", grpc.StatusCode.INVALID_ARGUMENT,
     "malformed"),
    ("bad wire type", "Sync/Barrier", b"\x0f", grpc.StatusCode.INVALID_ARGUMENT, "malformed"),
    ("multicast worker MAC", "Session/UdpSession", vf(2, 1) + vf(3, N) + vf(4, 0x010000000001) +
     vf(5, 0x0AC80001), grpc.StatusCode.FAILED_PRECONDITION, "must be a unicast address"),
    ("worker behind no known port", "Session/UdpSession", vf(2, 2) + vf(3, N) +
     vf(4, 0x0C42A15E0909) + vf(5, 0x0AC80009), grpc.StatusCode.FAILED_PRECONDITION,
     "0c:42:a1:5e:09:09 (rank 2) is behind no known switch port: list it in --ports FILE"),
]
for what, m, body, want, text in checks:
    code, details = code_of(m, body)
    assert code == want and text in details, "%s: %s %r" % (what, code, details)
    print("error: %s -> %s %s" % (what, code.name, details))
EOF

# ---- what inswitch holds now
show=$(isw_ctl --json syncagtr session show)
echo "$show" | jq -e '.ok' >/dev/null || fail "session show failed: $show"
s1=$(echo "$show" | jq -c '[.sessions[] | select(.session == 1) | {ip, workers, registered, slots}]')
[ "$s1" = '[{"ip":"10.200.0.254","workers":3,"registered":3,"slots":512}]' ] ||
	fail "session 1 is $s1"
m1=$(echo "$show" | jq -c '[.members[] | select(.session == 1) | [.rank, .mac, .ip, .port, .port_from]]')
want='[[0,"0c:42:a1:5e:01:01","10.200.0.11",2,"l2"],[1,"0c:42:a1:5e:01:02","10.200.0.12",1,"l2"],[2,"0c:42:a1:5e:01:03","10.200.0.13",0,"l2"]]'
[ "$m1" = "$want" ] || fail "session 1 members are $m1, want $want"
l2=$(isw_ctl --json l2 show | jq -c '[.entries[] | [.mac, .port]] | sort')
want='[["0c:42:a1:5e:00:01",0],["0c:42:a1:5e:00:02",1],["0c:42:a1:5e:00:03",3],["0c:42:a1:5e:01:01",2],["0c:42:a1:5e:01:02",1],["0c:42:a1:5e:01:03",0]]'
[ "$l2" = "$want" ] || fail "l2 entries are $l2, want $want"
grep -q "ports.yaml: 3 ports: 0=0c:42:a1:5e:00:01, 1=0c:42:a1:5e:00:02, 3=0c:42:a1:5e:00:03" \
	"$shim_log" || fail "the shim did not log the ports it installed"
s2=$(echo "$show" | jq -c '[.sessions[] | select(.session == 2) | {ip, workers, slots}]')
[ "$s2" = '[{"ip":"10.200.1.254","workers":2,"slots":128}]' ] || fail "session 2 is $s2"
[ "$(echo "$show" | jq -r .switch_mac)" = 02:a1:b2:c3:d4:e5 ] || fail "the switch MAC changed"
echo "inswitch: session 1 = $s1"
echo "inswitch: members  = $m1"

# ---- one log line per RPC: the stale Broadcast and Barrier, 2 jobs x 3 ranks x (1 Broadcast,
# 1 UdpSession, 2 Barriers), the error checks (1 RdmaSession, 2 UdpSession, 2 Barrier)
grep -q "Broadcast from .*CANCELLED" "$shim_log" || fail "the stale Broadcast was not withdrawn"
grep -q "Barrier from .*CANCELLED" "$shim_log" || fail "the stale Barrier was not withdrawn"
for what in "Broadcast 7" "UdpSession 9" "Barrier 15" "RdmaSession 1"; do
	set -- $what
	n=$(grep -c " $1 from " "$shim_log" || true)
	[ "$n" -eq "$2" ] || fail "$n log lines for $1, want $2"
done

kill -TERM "$shim_pid"
rc=0
wait "$shim_pid" || rc=$?
ISW_STOP_PIDS=()
[ "$rc" -eq 0 ] || fail "switchml-controller exited with $rc on SIGTERM"
grep -q "stopped" "$shim_log" || fail "switchml-controller did not log its stop"
echo "PASS"
