#!/usr/bin/env python3
"""Checks `steer show --json` RSS placement against an independent Toeplitz hash.

    rss_check.py STEER.json MODE [BASE.json]

MODE is tuple (the port's own key: the first sender to need an entry keeps it, a later one of
another worker is reported as handed off) or src-port (every sender placed, and one entry per
thread whatever the worker). For every RSS sender: the hash of (src-ip, dst-ip, src-port,
dst-port) under the key shown, its entry (hash mod table size), its state, and that the table
read back from the driver sends it to its owner's queue. With BASE (steer show before any
rule), every entry no sender took must still hold the port's own queue.
"""
import ipaddress
import json
import sys


def toeplitz(key: bytes, data: bytes) -> int:
    kbits = int.from_bytes(key, "big")
    klen = 8 * len(key)
    h = 0
    for i in range(8 * len(data)):
        if data[i // 8] >> (7 - i % 8) & 1:
            h ^= (kbits >> (klen - 32 - i)) & 0xFFFFFFFF
    return h


def tuple4(src, dst, sport, dport) -> bytes:
    return (ipaddress.IPv4Address(src).packed + ipaddress.IPv4Address(dst).packed
            + sport.to_bytes(2, "big") + dport.to_bytes(2, "big"))


MS_KEY = bytes.fromhex("6d5a56da255b0ec24167253d43a38fb0d0ca2bcbae7b30b477cb2da38030f20c"
                       "6a42b73bbeac01fa")
assert toeplitz(MS_KEY, tuple4("66.9.149.187", "161.142.100.80", 2794, 1766)) == 0x51CCC178


def fail(msg):
    print("FAIL:", msg)
    sys.exit(1)


def main():
    steer = json.load(open(sys.argv[1]))
    mode = sys.argv[2]
    base = json.load(open(sys.argv[3])) if len(sys.argv) > 3 else None
    rules = {(r["port"], r["packets"]): r for r in steer["rules"]}
    senders = steer["rss_senders"]
    if not senders:
        fail("no RSS senders shown")
    checked = 0
    for rss in steer["rss"]:
        if not rss["used"]:
            continue
        port, size = rss["port"], rss["reta_size"]
        key, reta = bytes.fromhex(rss["key"]), rss["reta"]
        holder, taken = {}, set()
        for s in (s for s in senders if s["port"] == port):
            rule = rules[(port, s["packets"])]
            f = rule["match"].split()
            dst, dport = f[f.index("dst-ip") + 1], int(f[f.index("dst-port") + 1])
            h = toeplitz(key, tuple4(s["src_ip"], dst, s["src_port"], dport))
            if s["hash"] != "0x%08x" % h:
                fail(f"{s}: hash should be 0x{h:08x}")
            e = h % size
            if s["entry"] != e:
                fail(f"{s}: entry should be {e}")
            w = s["worker"]
            placed = holder.setdefault(e, w) == w
            if mode == "src-port" and not placed:
                fail(f"{s}: with the source-port key every sender is placed")
            if (s["state"] == "placed") != placed:
                fail(f"{s}: should be {'placed' if placed else 'handed off'}")
            if placed:
                if reta[e] != rule["queue"] or rule["worker"] != w:
                    fail(f"{s}: entry {e} holds queue {reta[e]}, owner's is {rule['queue']}")
                taken.add(e)
            checked += 1
        if mode == "src-port":
            per_thread = {}
            for s in (s for s in senders if s["port"] == port):
                per_thread.setdefault(s["packets"], set()).add(s["entry"])
            if any(len(v) != 1 for v in per_thread.values()):
                fail(f"port {port}: a thread's senders on several entries: {per_thread}")
        if base is not None:
            own = next(b for b in base["rss"] if b["port"] == port)["reta"]
            moved = [i for i in range(size) if i not in taken and reta[i] != own[i]]
            if moved:
                fail(f"port {port}: entries {moved} changed though no sender took them")
    print(f"{checked} senders checked ({mode})")


main()
