#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Splits a capture by a 16-bit big-endian field of each frame, as different steerings would
deliver it to two lcores:

  split_frames.py IN.pcap PREFIX OFFSET MASK HALF [--or-byte OFFSET VALUE]

The field is the two bytes at OFFSET (from the first byte of the Ethernet header) ANDed with
MASK. Writes PREFIX-even.pcap / PREFIX-odd.pcap (the field's parity: round-robin owners) and
PREFIX-lo.pcap / PREFIX-hi.pcap (fields below HALF and the rest: ranges). With --or-byte, also
PREFIX-even-x.pcap and so on, where every frame has VALUE ORed into its byte at OFFSET (e.g. a
flag naming another port). SwitchML's slot: OFFSET 48, MASK 0x7fff; ATP's aggregator: 44, 0xffff."""
import struct
import sys


def main():
    a = sys.argv[1:]
    if len(a) not in (5, 8) or (len(a) == 8 and a[5] != '--or-byte'):
        sys.exit(__doc__)
    src, prefix, off, mask, half = a[0], a[1], int(a[2], 0), int(a[3], 0), int(a[4], 0)
    orb = (int(a[6], 0), int(a[7], 0)) if len(a) == 8 else None
    data = open(src, 'rb').read()
    out = {k: bytearray(data[:24]) for k in ('even', 'odd', 'lo', 'hi')}
    if orb:
        out.update({k + '-x': bytearray(data[:24]) for k in ('even', 'odd', 'lo', 'hi')})
    pos = 24
    while pos < len(data):
        incl = struct.unpack_from('<I', data, pos + 8)[0]
        rec = data[pos:pos + 16 + incl]
        field = struct.unpack_from('>H', rec, 16 + off)[0] & mask
        keys = ('even' if field % 2 == 0 else 'odd', 'lo' if field < half else 'hi')
        for k in keys:
            out[k] += rec
        if orb:
            x = bytearray(rec)
            x[16 + orb[0]] |= orb[1]
            for k in keys:
                out[k + '-x'] += x
        pos += 16 + incl
    for k, v in out.items():
        open(prefix + '-' + k + '.pcap', 'wb').write(v)


if __name__ == '__main__':
    main()
