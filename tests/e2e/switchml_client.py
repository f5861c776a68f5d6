#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""
A stand-in for SwitchML's DPDK worker, for the end-to-end tests: its gRPC start-up (Broadcast,
UdpSession, Barrier, encoded by hand independently of the shim's code) and its data path in the
way that matters here: one thread, a window of W packets of 64 int32 values, packet p + W sent
on the result of packet p, pool indices and tsi as SwitchML's client maps them, and **no
retransmission at all**. So it gets every result only if the switch sends every result: a
first window whose results go nowhere (a worker not yet in its session's group) ends it with
the packets whose results never came.

  switchml_client.py CONTROLLER RANK WORKERS SWITCH_IP [--window W] [--packets P] [--wait S]

Worker rank r's element i of packet p is (r + 1) * 1000003 + p * 64 + i; every result is
checked against the sum over ranks. Prints one JSON line; exit status 0 only when every result
arrived and was right.

The encoding helpers (uv, vf, parse) are also used by switchml_grpc.sh.
"""

import fcntl
import json
import socket
import struct
import sys
import time

ELEMS = 64
SWITCHML_PORT = 0xBEE0
WORKER_PORT = 4000


def uv(v):
    """A protobuf varint."""
    out = bytearray()
    while True:
        if v < 0x80:
            out.append(v)
            return bytes(out)
        out.append((v & 0x7F) | 0x80)
        v >>= 7


def vf(num, v):
    """A varint field."""
    return uv(num << 3) + uv(v)


def parse(buf):
    """A response: varint fields only, each known field at most once."""
    out, i = {}, 0
    while i < len(buf):
        tag = v = shift = 0
        for part in ("tag", "value"):
            v = shift = 0
            while True:
                b = buf[i]
                i += 1
                v |= (b & 0x7F) << shift
                shift += 7
                if not b & 0x80:
                    break
            if part == "tag":
                tag = v
                assert tag & 7 == 0, "response field %d has wire type %d" % (tag >> 3, tag & 7)
        assert tag >> 3 not in out, "field %d twice" % (tag >> 3)
        out[tag >> 3] = v
    return out


def element(rank, p, i):
    return ((rank + 1) * 1000003 + p * ELEMS + i) & 0xFFFFFFFF


def expected(workers, p, i):
    s = sum(element(r, p, i) for r in range(workers)) & 0xFFFFFFFF
    return s - (1 << 32) if s >> 31 else s


def pool_index(p, window):
    """SwitchML's PktId2PoolIndex for thread 0, shift 0: slot p mod W, set (p mod 2W) / W."""
    i = p % (2 * window)
    return (i - window) | 0x8000 if i >= window else i


def packet(rank, p, window, job):
    hdr = struct.pack("!BB", 0x10 | 1, job & 0xFF) + struct.pack("<I", p) + \
        struct.pack("!H", pool_index(p, window)) + b"\x00\x00"
    return hdr + struct.pack("!%dI" % ELEMS, *(element(rank, p, i) for i in range(ELEMS)))


def my_addresses(switch_ip):
    """This host's IP toward the switch and the MAC of that interface."""
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.connect((switch_ip, SWITCHML_PORT))
    ip = s.getsockname()[0]
    s.close()
    for name in sorted(n for _, n in socket.if_nameindex()):
        try:
            with open("/sys/class/net/%s/address" % name) as f:
                mac = f.read().strip()
        except OSError:
            continue
        q = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        try:
            req = struct.pack("256s", name.encode()[:15])
            addr = socket.inet_ntoa(fcntl.ioctl(q.fileno(), 0x8915, req)[20:24])  # SIOCGIFADDR
        except OSError:
            continue
        finally:
            q.close()
        if addr == ip:
            return ip, mac
    raise SystemExit("no interface holds %s" % ip)


def start_up(target, rank, workers, ip, mac):
    """SwitchML's DpdkBackend::SetupSwitch: Broadcast of the job id, UdpSession (rank 0 first,
    the others after a Barrier), a Barrier."""
    import grpc

    ch = grpc.insecure_channel(target)
    grpc.channel_ready_future(ch).result(timeout=20)

    def call(m, body):
        return parse(ch.unary_unary("/switchml_proto." + m)(body, timeout=30))

    job = call("Sync/Broadcast", vf(1, 0x5EED0000 + rank) + vf(2, rank) + vf(3, workers))[1]
    macv = int(mac.replace(":", ""), 16)
    ipv = struct.unpack("!I", socket.inet_aton(ip))[0]
    req = vf(1, job) + vf(2, rank) + vf(3, workers) + vf(4, macv) + vf(5, ipv) + vf(7, 1)
    if rank == 0:
        us = call("Session/UdpSession", req)
        call("Sync/Barrier", vf(1, workers))
    else:
        call("Sync/Barrier", vf(1, workers))
        us = call("Session/UdpSession", req)
    call("Sync/Barrier", vf(1, workers))
    return job, us


def main(argv):
    import argparse

    a = argparse.ArgumentParser()
    a.add_argument("controller")
    a.add_argument("rank", type=int)
    a.add_argument("workers", type=int)
    a.add_argument("switch_ip")
    a.add_argument("--window", type=int, default=16)
    a.add_argument("--packets", type=int, default=48)
    a.add_argument("--wait", type=float, default=10.0)
    o = a.parse_args(argv)

    ip, mac = my_addresses(o.switch_ip)
    job, us = start_up(o.controller, o.rank, o.workers, ip, mac)
    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1 << 20)
    sock.bind(("0.0.0.0", WORKER_PORT))
    sock.connect((o.switch_ip, SWITCHML_PORT))
    got, wrong, stray = set(), [], 0
    first = min(o.window, o.packets)
    for p in range(first):
        sock.send(packet(o.rank, p, o.window, job))
    t_end = time.monotonic() + o.wait
    while len(got) < o.packets and time.monotonic() < t_end:
        sock.settimeout(max(0.01, t_end - time.monotonic()))
        try:
            r = sock.recv(2048)
        except socket.timeout:
            break
        if len(r) != 10 + 4 * ELEMS or r[1] != job & 0xFF:
            stray += 1
            continue
        p = struct.unpack("<I", r[2:6])[0]
        if p >= o.packets or p in got or struct.unpack("!H", r[6:8])[0] != pool_index(p, o.window):
            stray += 1  # SwitchML's own client would take most of these again
            continue
        vals = struct.unpack("!%di" % ELEMS, r[10:])
        bad = [i for i in range(ELEMS) if vals[i] != expected(o.workers, p, i)]
        if bad:
            wrong.append(p)
        got.add(p)
        if p + o.window < o.packets:
            sock.send(packet(o.rank, p + o.window, o.window, job))
    missing = [p for p in range(o.packets) if p not in got]
    print(json.dumps({"rank": o.rank, "ip": ip, "mac": mac, "switch_mac": "%012x" % us.get(2, 0),
                      "packets": o.packets, "window": o.window, "results": len(got),
                      "missing": missing, "first_window_missing": [p for p in missing
                                                                   if p < o.window],
                      "wrong": wrong, "strays": stray}))
    return 0 if not missing and not wrong else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
