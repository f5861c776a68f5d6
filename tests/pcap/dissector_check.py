#!/usr/bin/env python3
"""The Lua dissector (wireshark/inswitch.lua) against the bytes themselves.

    dissector_check.py LUA PCAP...

Runs tshark with the dissector over each capture and, for every SwitchML, ATP and ASK frame,
compares each decoded field with the value read from the frame's bytes here (struct, following
docs/syncagtr.md, docs/atp.md, docs/ask.md and docs/netrpc.md), values and slots included. Fails on the first
difference, or when a capture has no frame of the three protocols.
"""
import struct
import subprocess
import sys

SML = ["msg_type", "size", "held", "job_number", "tsi", "pool_index", "pool_index.set",
       "pool_index.bit14", "pool_index.slot", "e0", "e1", "values", "value", "note.gen",
       "note.job", "note.tsi", "note.slots"]
ATP = ["template.ecn", "bitmap", "num_worker", "flag", "flag.overflow", "flag.psindex",
       "flag.dataindex", "flag.ecn", "flag.resend", "flag.collision", "flag.ack", "app", "seq",
       "agtr", "agtr2", "values", "value", "key", "len_tensor", "job", "kind", "join.nonce",
       "join.state", "announce.nonce", "tensor", "note.first", "note.size", "note.gen"]
ASK = ["type", "flags", "flags.resend", "flags.long", "flags.last", "flags.error", "task",
       "channel", "nslots", "key_bytes", "seq", "bitmap", "sel.slot", "sel.copy", "start",
       "incarnation", "max_records", "records", "slot.index", "slot.valid", "key", "value",
       "opaque"]
NRPC = ["service", "op", "flags", "flags.result", "flags.resend", "flags.set", "flags.miss",
        "flags.error", "count", "member", "seq", "key", "words", "word"]
FIELDS = ([("switchml." + f) for f in SML] + [("atp_agg." + f) for f in ATP] +
          [("ask." + f) for f in ASK] + [("netrpc." + f) for f in NRPC])


def frames(path):
    with open(path, "rb") as f:
        data = f.read()
    end = "<" if data[:4] == b"\xd4\xc3\xb2\xa1" else ">"
    off = 24
    while off + 16 <= len(data):
        incl = struct.unpack(end + "I", data[off + 8:off + 12])[0]
        yield data[off + 16:off + 16 + incl]
        off += 16 + incl


def be(b, o, n):
    return int.from_bytes(b[o:o + n], "big")


def sint(v, bits):
    return v - (1 << bits) if v >> (bits - 1) else v


def switchml(h):
    ts = h[0]
    n = (len(h) - 10) // 4
    want = {1: 64, 3: 256}.get(ts & 7)
    if want is not None and want < n:
        n = want
    pool = be(h, 6, 2)
    d = {"msg_type": [ts >> 4], "size": [ts & 7], "held": [(ts >> 3) & 1], "job_number": [h[1]],
         "tsi": [int.from_bytes(h[2:6], "little")], "pool_index": [pool],
         "pool_index.set": [pool >> 15], "pool_index.bit14": [(pool >> 14) & 1],
         "pool_index.slot": [pool & 0x3FFF], "e0": [sint(h[8], 8)], "e1": [sint(h[9], 8)],
         "values": [n], "value": [sint(be(h, 10 + 4 * i, 4), 32) for i in range(n)]}
    at = 10 + 4 * n  # a result during a region change: the note after the values
    if n == want and len(h) >= at + 16 and h[at:at + 2] == b"RG":
        d["note.gen"] = [h[at + 2]]
        d["note.job"] = [h[at + 3]]
        d["note.tsi"] = [int.from_bytes(h[at + 4:at + 8], "little")]
        d["note.slots"] = [be(h, at + 8, 4)]
    return d


def atp(b):
    fl = b[25]
    n = min(62, (len(b) - 34) // 4)
    d = {"template.ecn": [b[1] & 3], "bitmap": [be(b, 20, 4)], "num_worker": [b[24]],
         "flag": [fl], "flag.overflow": [fl >> 7], "flag.psindex": [(fl >> 5) & 3],
         "flag.dataindex": [(fl >> 4) & 1], "flag.ecn": [(fl >> 3) & 1],
         "flag.resend": [(fl >> 2) & 1], "flag.collision": [(fl >> 1) & 1],
         "flag.ack": [fl & 1], "app": [be(b, 26, 2)], "seq": [be(b, 28, 2)],
         "agtr": [be(b, 30, 2)], "agtr2": [be(b, 32, 2)], "values": [n],
         "value": [sint(be(b, 34 + 4 * i, 4), 32) for i in range(n)]}
    if len(b) >= 294:
        d["key"] = [be(b, 282, 8)]
        d["len_tensor"] = [be(b, 290, 4)]
        d["job"] = [int.from_bytes(b[286:290], "little")]
        d["tensor"] = [int.from_bytes(b[282:286], "little")]
    if fl & 0x11 == 0x11:
        d["note.first"] = [be(b, 20, 2)]
        d["note.size"] = [be(b, 22, 2) or 65536]
        d["note.gen"] = [be(b, 32, 2)]
    seq = be(b, 28, 2)
    d["kind"] = ["data" if seq else "ANNOUNCE" if fl & 1 else "JOIN"]
    if d["kind"] == ["JOIN"] and n >= 2:
        d["join.nonce"] = [be(b, 34, 4)]
        d["join.state"] = [be(b, 38, 4)]
    elif d["kind"] == ["ANNOUNCE"]:
        d["announce.nonce"] = [be(b, 34 + 4 * i, 4) for i in range(min(n, b[24]))]
    return d


def ask(h):
    ty, fl, ns, kb = h[0], h[1], h[6], h[7]
    d = {"type": [ty], "flags": [fl], "flags.resend": [fl & 1], "flags.long": [(fl >> 1) & 1],
         "flags.last": [(fl >> 2) & 1], "flags.error": [fl >> 7], "task": [be(h, 2, 2)],
         "channel": [be(h, 4, 2)], "nslots": [ns], "key_bytes": [kb], "seq": [be(h, 8, 4)],
         "start": [be(h, 16, 4)]}
    sel = be(h, 12, 4)
    if ty in (1, 2):
        d["bitmap"] = [sel]
    else:
        d["sel.slot"] = [sel & 0xFF]
        d["sel.copy"] = [(sel >> 8) & 1]
    if ty == 6:
        d["records"] = [be(h, 20, 4)]
    else:
        d["incarnation"] = [be(h, 20, 2)]
        if ty == 5:
            d["max_records"] = [be(h, 22, 2)]
    rec = kb + 4
    keys, vals = [], []
    if ty == 1 and fl & 2:
        if len(h) > 24:
            d["opaque"] = [h[24:].hex()]
    elif ty == 1 and kb in (4, 8, 16):
        idx = [j for j in range(ns) if 24 + (j + 1) * rec <= len(h)]
        d["slot.index"] = idx
        d["slot.valid"] = [(sel >> j) & 1 for j in idx]
        keys = [h[24 + j * rec:24 + j * rec + kb].hex() for j in idx]
        vals = [be(h, 24 + j * rec + kb, 4) for j in idx]
    elif ty == 6 and kb in (4, 8, 16):
        idx = [i for i in range(be(h, 20, 4)) if 24 + (i + 1) * rec <= len(h)]
        keys = [h[24 + i * rec:24 + i * rec + kb].hex() for i in idx]
        vals = [be(h, 24 + i * rec + kb, 4) for i in idx]
    if keys:
        d["key"], d["value"] = keys, vals
    return d


def netrpc(h):
    fl = h[2]
    n = (len(h) - 16) // 4
    return {"service": [h[0]], "op": [h[1]], "flags": [fl], "flags.result": [fl & 1],
            "flags.resend": [(fl >> 1) & 1], "flags.set": [(fl >> 2) & 1],
            "flags.miss": [(fl >> 3) & 1], "flags.error": [fl >> 7], "count": [h[3]],
            "member": [be(h, 4, 2)], "seq": [be(h, 8, 4)], "key": [be(h, 12, 4)],
            "words": [n], "word": [be(h, 16 + 4 * i, 4) for i in range(n)]}


def expected(p):
    """(protocol, fields) for a frame of one of the three protocols, else None."""
    l2 = 14
    while len(p) >= l2 + 4 and be(p, l2 - 2, 2) in (0x8100, 0x88A8):
        l2 += 4  # VLAN tags: tshark decodes what follows them
    etype = be(p, l2 - 2, 2) if len(p) >= l2 else None
    if etype == 0x0700 and len(p) >= l2 + 34:
        return "atp_agg", atp(p[l2:])
    ip = p[l2:]
    if etype != 0x0800 or len(ip) < 20 or ip[0] >> 4 != 4 or ip[9] != 17:
        return None
    # IPv4 options too: the switch drops such packets, tshark decodes them.
    udp = l2 + 4 * (ip[0] & 15)
    if be(ip, 6, 2) & 0x3FFF or len(p) < udp + 8:
        return None  # a fragment
    h = p[udp + 8:udp + be(p, udp + 4, 2)]
    for port in sorted([be(p, udp, 2), be(p, udp + 2, 2)]):  # tshark tries the lower first
        if 0xBEE0 <= port <= 0xBEEF:
            return ("switchml", switchml(h)) if len(h) >= 10 else None
        if port == 42405:
            return ("ask", ask(h)) if len(h) >= 24 else None
        if port == 20050:
            return ("netrpc", netrpc(h)) if len(h) >= 16 else None
    return None


def parse(field, text):
    if text == "":
        return []
    out = []
    for v in text.split(","):
        if field.endswith((".key", ".opaque")) and field.startswith("ask."):
            out.append(v.replace(":", ""))
        elif field == "atp_agg.kind":
            out.append(v)
        elif v in ("True", "False"):
            out.append(int(v == "True"))
        else:
            out.append(int(v, 0))
    return out


def check(lua, path):
    cmd = ["tshark", "-X", "lua_script:" + lua, "-r", path, "-T", "fields",
           "-E", "aggregator=,", "-E", "occurrence=a"]
    for f in FIELDS:
        cmd += ["-e", f]
    out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
    rows = out.split("\n")
    n = 0
    for i, p in enumerate(frames(path)):
        got = dict(zip(FIELDS, rows[i].split("\t")))
        e = expected(p)
        proto = e[0] if e else None
        for f in FIELDS:
            pr, name = f.split(".", 1)
            want = e[1].get(name, []) if e and pr == proto else []
            have = parse(f, got.get(f, ""))
            if have != want:
                sys.exit(f"FAIL: {path} frame {i + 1}: {f} is {have}, the bytes say {want}")
        n += e is not None
    if n == 0:
        sys.exit(f"FAIL: {path}: no SwitchML, ATP, ASK or NetRPC frame")
    print(f"{path}: {n} frames, every field as the bytes say")


for pcap in sys.argv[2:]:
    check(sys.argv[1], pcap)
