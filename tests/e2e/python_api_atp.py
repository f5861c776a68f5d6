#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""One worker of tests/e2e/python_api.sh's ATP part: inswitch.ATP against a real switch and PS.

  python_api_atp.py ID WORKERS SYNC_DIR

  0. no control socket and no job number: the first call JOINs the app's job, which the PS names;
     job=, ctl=, reset= are ignored with a DeprecationWarning;
  1. numpy int32 in place, no copy, exact (values far from saturation), twice with different
     data (each call a new tensor key), verified end to end (the default);
  2. a torch float32 tensor within ATP's scaling bound (workers / (2 * scale) per element), and
     a value too large for the scale (the packet goes as floats, the PS sums it), verified (its
     int32 packets);
  3. a sum that saturates in the switch: ResultCheckError naming it ("saturated"), the buffer
     holding what the switch sent, and the communicator goes on; verify=False skips the check;
  4. the parameter server stopped: AllreduceTimeout, then CommunicatorBroken.
Prints one JSON line; exit status 0 only if every step held.
"""

import json
import os
import sys
import time
import warnings

import numpy as np
import torch

import inswitch
from inswitch.comm import _Buffer
from isw_check import expect

wid, workers, sync = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
SCALE = 2.0 ** 20
seen = {"id": wid}


# 0. The PS names the job: nothing to give but the app.
comm = inswitch.ATP(wid, workers, 1, "eth0", window=50, scale=SCALE, give_up_s=3)
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    expect(ValueError, lambda: inswitch.ATP(wid, 0, 1, "eth0", job=7, ctl="/nonexistent"),
           "bad ATP parameters")
assert [w.category for w in caught] == [DeprecationWarning] * 2, caught

# 1. int32, twice.
for k in (1, 2):
    n = 20011
    x = (np.arange(n, dtype=np.int64) * k + wid * 1000003).astype(np.int32)
    want = sum(np.arange(n, dtype=np.int64) * k + w * 1000003 for w in range(workers))
    assert _Buffer(x).borrowed
    ptr = x.ctypes.data
    assert comm.allreduce(x) is x and x.ctypes.data == ptr
    assert np.array_equal(x.astype(np.int64), want), "int32 call %d: sums differ" % k
seen["int32"] = "exact, twice"

# 2. float32: scaled, and one value beyond INT32_MAX / (workers * scale) in its packet.
g = torch.Generator().manual_seed(11)
base = [torch.randn(30000, generator=g) for _ in range(workers)]
for b in base:
    b[777] = 5000.0  # 5000 * 2^20 * workers > INT32_MAX: that packet travels as floats
t = base[wid].clone()
comm.allreduce(t)
exact = sum(b.double() for b in base)
err = (t.double() - exact).abs()
bound = workers / (2 * SCALE) + 1e-6 * exact.abs()
assert bool((err <= bound).all()), "float32 error %g" % err.max().item()
seen["float32_max_err"] = err.max().item()

# 3. A sum beyond INT32_MAX saturates in the switch: the check says so, the buffer holds the
# clamped result, and the communicator goes on.
x = np.full(1000, 7, dtype=np.int32)
x[500] = 2**31 - 10
seen["saturated"] = expect(inswitch.ResultCheckError, lambda: comm.allreduce(x), "saturated")
assert x[500] == 2**31 - 1 and x[0] == 7 * workers, (x[500], x[0])
x = np.full(1000, 7, dtype=np.int32)
x[500] = 2**31 - 10
comm.allreduce(x, verify=False)  # unchecked: the clamped result, no error
assert x[500] == 2**31 - 1
s = comm.stats
seen["stats"] = s.as_dict()
# (no check of retransmits: ATP workers start unsynchronised, and the first packets of the one
# that starts first time out waiting for the other, by design)
assert s.jobs == 5 and s.verified == 3 and s.results > 0, s

# 4. The PS goes away: the timeout says what to look at, then the communicator is broken.
open(os.path.join(sync, "atp-done.%d" % wid), "w").close()
while not os.path.exists(os.path.join(sync, "ps-stopped")):
    time.sleep(0.02)
seen["no_ps"] = expect(inswitch.AllreduceTimeout, lambda: comm.allreduce(t), "parameter server")
seen["broken"] = expect(inswitch.CommunicatorBroken, lambda: comm.allreduce(t), "failed earlier")
comm.close()
print(json.dumps(seen))
