#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""One long TCP session, for tests that must show a host's own traffic goes on untouched.

  tcp_stream.py serve IP PORT OUT   accept one connection, read it to its end; write
                                    "<connections> <bytes> <sha256>" to OUT
  tcp_stream.py send IP PORT STOP   connect once and send a deterministic stream (64 KiB every
                                    10 ms) until the file STOP exists; print "<bytes> <sha256>"

Every byte is a function of its offset, so a lost, repeated or reordered segment would change
the digest; one connection is accepted, so a reset and reconnect would show as a second.
"""
import hashlib
import os
import socket
import sys
import time

CHUNK = 65536


def chunk(i):
    return bytes((i * 131 + k) & 0xFF for k in range(251)) * (CHUNK // 251) + bytes(CHUNK % 251)


def serve(ip, port, out):
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind((ip, port))
    s.listen(4)
    conn, _ = s.accept()
    h, n = hashlib.sha256(), 0
    while True:
        b = conn.recv(1 << 16)
        if not b:
            break
        h.update(b)
        n += len(b)
    conn.close()
    # A second connection (a client that lost its session and came back) would be waiting.
    s.settimeout(0.2)
    extra = 0
    try:
        while True:
            s.accept()[0].close()
            extra += 1
    except OSError:
        pass
    with open(out, 'w') as f:
        f.write('%d %d %s\n' % (1 + extra, n, h.hexdigest()))


def send(ip, port, stop):
    s = socket.create_connection((ip, port), timeout=30)
    h, n, i = hashlib.sha256(), 0, 0
    while not os.path.exists(stop):
        b = chunk(i)
        s.sendall(b)
        h.update(b)
        n += len(b)
        i += 1
        time.sleep(0.01)
    s.shutdown(socket.SHUT_WR)
    s.recv(1)  # the server's close
    s.close()
    print('%d %s' % (n, h.hexdigest()))


def main():
    if len(sys.argv) != 5 or sys.argv[1] not in ('serve', 'send'):
        sys.exit(__doc__)
    (serve if sys.argv[1] == 'serve' else send)(sys.argv[2], int(sys.argv[3]), sys.argv[4])


if __name__ == '__main__':
    main()
