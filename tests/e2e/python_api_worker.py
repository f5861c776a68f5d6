#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""One rank of tests/e2e/python_api.sh: the inswitch Python package against a real switch.

  python_api_worker.py RANK WORKERS SWITCH_IP CTL SYNC_DIR

Steps (every rank makes the same calls; files in SYNC_DIR line the ranks up with the script,
which forges a packet and deletes the session in between):
  1. open a SyncAgtr communicator (1 thread, window 8: the slot of the next packet is known);
     barrier=False without ctl is refused (nothing could show the slots clean);
  2. the default end-to-end check after a forged contribution for the first packet's slot:
     ResultCheckError;
  3. numpy int32, exact, in place and without a copy; the check passes (every call below is
     checked, by default);
  4. a torch float32 tensor within the quantisation bound; a non-contiguous torch int32 view
     and a big-endian numpy array (copied, written back); float64 and read-only arrays refused;
  5. the session deleted on the switch: AllreduceTimeout naming the missing session.
Prints one JSON line of what it saw; exit status 0 only if every step held.
"""

import json
import os
import sys
import time

import numpy as np
import torch

import inswitch
from inswitch.comm import _Buffer
from isw_check import expect

rank, workers, switch_ip, ctl, sync = (int(sys.argv[1]), int(sys.argv[2]), sys.argv[3],
                                       sys.argv[4], sys.argv[5])
seen = {"rank": rank}


def mark(name):
    open(os.path.join(sync, "%s.%d" % (name, rank)), "w").close()


def wait_for(name, timeout=30):
    path = os.path.join(sync, name)
    t = time.monotonic() + timeout
    while not os.path.exists(path):
        if time.monotonic() > t:
            raise SystemExit("rank %d: %s never came" % (rank, name))
        time.sleep(0.02)


expect(ValueError, lambda: inswitch.SyncAgtr(rank, workers, switch_ip, barrier=False),
       "control socket")
comm = inswitch.SyncAgtr(rank, workers, switch_ip, ctl=ctl, session=1, threads=1, window=8,
                         give_up_s=3)

# 2. A forged contribution waits in the slot of the next job's packet 0: every result of that
# round is wrong, and only the end-to-end check (on by default) can tell.
mark("open")
wait_for("forged")
a = np.arange(1000, dtype=np.int32) * (rank + 1)
seen["forged"] = expect(inswitch.ResultCheckError, lambda: comm.allreduce(a),
                        "result check failed")
# ...and it was right to: the sum written into a is not the workers' sum.
assert not np.array_equal(a, np.arange(1000, dtype=np.int32) * sum(range(1, workers + 1)))
mark("checked")

# 3. numpy int32: exact, in place, no copy.
n = 100003
x = (np.arange(n, dtype=np.int64) * 7919 + rank * 104729).astype(np.int32)
want = sum((np.arange(n, dtype=np.int64) * 7919 + r * 104729).astype(np.int32).astype(np.int64)
           for r in range(workers))
want = ((want + 2**31) % 2**32 - 2**31).astype(np.int32)
assert _Buffer(x).borrowed, "a C-contiguous int32 array should be used in place"
ptr = x.ctypes.data
assert comm.allreduce(x) is x and x.ctypes.data == ptr
assert np.array_equal(x, want), "int32 sums differ at %s" % np.nonzero(x != want)[0][:5]
seen["int32"] = "exact"

# 4. torch float32 within the bound; strided and foreign-byte-order inputs; refusals.
g = torch.Generator().manual_seed(7)
base = [torch.randn(50000, generator=g) * 3 for _ in range(workers)]
t = base[rank].clone()
assert _Buffer(t).borrowed
comm.allreduce(t)
exact = sum(b.double() for b in base)
err = (t.double() - exact).abs().max().item()
bound = workers * 2.0 ** (np.ceil(np.log2(max(b.abs().max().item() for b in base))) + 1) / 2**31
assert err <= bound + 1e-6 * exact.abs().max().item(), "float32 error %g > bound %g" % (err, bound)
seen["float32_max_err"] = err
m = torch.arange(20, dtype=torch.int32).reshape(4, 5) * (rank + 1)
v = m[:, 1:4]  # not contiguous: reduced through a copy, written back
assert not _Buffer(v).borrowed
comm.allreduce(v)
tri = workers * (workers + 1) // 2
assert torch.equal(m[:, 1:4], torch.arange(20, dtype=torch.int32).reshape(4, 5)[:, 1:4] * tri)
assert torch.equal(m[:, 0], torch.tensor([0, 5, 10, 15], dtype=torch.int32) * (rank + 1))
be = (np.arange(300) * (rank + 1)).astype(">i4")  # big-endian: reduced through a copy
assert be.dtype.byteorder == ">" and not _Buffer(be).borrowed
comm.allreduce(be)
assert np.array_equal(be, np.arange(300) * tri)
expect(TypeError, lambda: comm.allreduce(np.zeros(4)), "int32 and float32")
ro = np.zeros(4, dtype=np.int32)
ro.flags.writeable = False
expect(ValueError, lambda: comm.allreduce(ro), "read-only")
s = comm.stats
seen["stats"] = s.as_dict()
assert s.jobs == 5 and s.verified == 4, s  # the forged job completed but did not verify
# every packet's result taken once, whatever the timers resent (how often they fire on a loaded
# host is timing: bench/resends.sh)
assert s.results == s.packets - s.retransmits, s

# 5. The session is gone: the timeout says so.
mark("deleteme")
wait_for("deleted")
seen["no_session"] = expect(inswitch.AllreduceTimeout, lambda: comm.allreduce(a),
                            "has no session 1")
seen["broken"] = expect(inswitch.CommunicatorBroken, lambda: comm.allreduce(a), "failed earlier")
comm.close()
print(json.dumps(seen))
