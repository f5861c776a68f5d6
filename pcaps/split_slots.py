#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Splits a capture of SwitchML frames by slot (the pool index, bytes 48-49, set bit masked),
as different steerings would deliver it to two lcores:

  split_slots.py IN.pcap PREFIX SLOTS

writes PREFIX-even.pcap / PREFIX-odd.pcap (slot mod 2: the round-robin owners) and
PREFIX-lo.pcap / PREFIX-hi.pcap (slots below SLOTS / 2 and the rest: two worker threads' ranges,
as steering by UDP source port splits them)."""
import struct
import sys


def main():
    src, prefix, slots = sys.argv[1], sys.argv[2], int(sys.argv[3])
    data = open(src, 'rb').read()
    out = {k: bytearray(data[:24]) for k in ('even', 'odd', 'lo', 'hi')}
    off = 24
    while off < len(data):
        incl = struct.unpack_from('<I', data, off + 8)[0]
        rec = data[off:off + 16 + incl]
        slot = struct.unpack_from('>H', rec, 16 + 48)[0] & 0x7FFF
        out['even' if slot % 2 == 0 else 'odd'] += rec
        out['lo' if slot < slots // 2 else 'hi'] += rec
        off += 16 + incl
    for k, v in out.items():
        open(prefix + '-' + k + '.pcap', 'wb').write(v)


if __name__ == '__main__':
    main()
