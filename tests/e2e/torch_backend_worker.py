#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""One rank of tests/e2e/torch_backend.sh, started by torchrun: the "inswitch" process group's
collectives, as a script would call them.

  1. int32 SUM: exact, in place (the tensor's memory, no copy), async (Work.wait() and
     get_future()); float32 SUM within the protocol's quantisation bound; AVG of float32 is
     the SUM divided by the world size, bit for bit.
  2. non-contiguous int32 and float32 views: reduced through a copy, written back (the rest of
     the tensor untouched; float32 bit for bit what a contiguous copy gives);
     leaves that require grad (a parameter), contiguous (AVG) and strided;
     all_reduce_coalesced of int32 tensors: exact, one switch call.
  3. refused all_reduces (MAX, MIN, PRODUCT of int32; SUM of float64, int64, float16): right
     (gloo's), each counted as a fallback; the warning is on stderr, once per kind (the shell
     counts it).
  4. the collectives gloo does: broadcast, all_gather, all_gather_object, gather, scatter,
     reduce, send/recv around the ring, barrier: right (monitored_barrier is gloo's
     alone: torch's Python refuses it for any other backend name); and a group made
     by new_group() runs on gloo.
  5. the counters: every switch call a job of the communicator, checked end to end.
Prints one JSON line (rank 0 to stdout) with what it saw.
"""

import json
import os
import sys

import torch
import torch.distributed as dist

import inswitch.torch

dist.init_process_group("inswitch")
rank, world = dist.get_rank(), dist.get_world_size()
pg = dist.distributed_c10d._get_default_group()
assert dist.get_backend() == "inswitch", dist.get_backend()
protocol = pg.protocol
seen = {"protocol": protocol, "world": world}
switch_calls = 0
fallbacks = 0


def bound(exact, parts):
    """The largest error of a float32 sum through the switch (the protocol's quantisation)."""
    if protocol == "atp":
        scale = float(os.environ.get("INSWITCH_SCALE", 2.0 ** 20))
        return world / (2 * scale) + 1e-6 * exact.abs().max().item()
    emax = max(p.abs().max().item() for p in parts)
    return world * 2.0 ** (torch.tensor(emax).log2().ceil().item() + 1) / 2 ** 31 + \
        1e-6 * exact.abs().max().item()


# 1. int32 exact, in place, async; float32 within the bound; AVG = SUM / world.
n = 100003
x = torch.arange(n, dtype=torch.int32) * 7 + rank * 1000
ptr = x.data_ptr()
work = dist.all_reduce(x, async_op=True)
fut = work.get_future()
work.wait()
want = torch.arange(n, dtype=torch.int32) * 7 * world + 1000 * sum(range(world))
assert x.data_ptr() == ptr and torch.equal(x, want), "int32 sum wrong"
assert fut.wait()[0] is not None and torch.equal(fut.wait()[0], want), "future's value"
switch_calls += 1

g = torch.Generator().manual_seed(11)
parts = [torch.randn(50000, generator=g) * 3 for _ in range(world)]
t = parts[rank].clone()
ptr = t.data_ptr()
dist.all_reduce(t)
exact = sum(p.double() for p in parts)
err = (t.double() - exact).abs().max().item()
assert t.data_ptr() == ptr and err <= bound(exact, parts), "float32 error %g" % err
seen["float32_max_err"] = err
switch_calls += 1

avg = parts[rank].clone()
dist.all_reduce(avg, op=dist.ReduceOp.AVG)
assert torch.equal(avg, t / world), "AVG is not SUM / world"
switch_calls += 1

# 2. non-contiguous views, coalesced.
m = torch.arange(20, dtype=torch.int32).reshape(4, 5) * (rank + 1)
dist.all_reduce(m[:, 1:4])
tri = world * (world + 1) // 2
base = torch.arange(20, dtype=torch.int32).reshape(4, 5)
assert torch.equal(m[:, 1:4], base[:, 1:4] * tri), "strided int32"
assert torch.equal(m[:, 0], base[:, 0] * (rank + 1)) and torch.equal(m[:, 4], base[:, 4] * (rank + 1))
f = (torch.arange(12, dtype=torch.float32).reshape(3, 4) * (rank + 1)).t()  # transposed
assert not f.is_contiguous()
c = f.contiguous()  # the same values in the same order: the same quantised sum
dist.all_reduce(f)
dist.all_reduce(c)
assert torch.equal(f, c), "transposed float32: not what its contiguous copy gives"
exact = (torch.arange(12, dtype=torch.float64).reshape(3, 4) * tri).t()
assert (f.double() - exact).abs().max().item() <= bound(exact, [exact / tri * world]), "bound"
switch_calls += 3
# leaves that require grad (parameters), reduced in place outside autograd as gloo does
leaf = torch.full((6,), float(rank + 1), requires_grad=True)
dist.all_reduce(leaf, op=dist.ReduceOp.AVG)
# (float32 through the switch: within its quantisation bound, far below 1e-5 for these values)
assert torch.allclose(leaf.detach(), torch.full((6,), tri / world), rtol=0, atol=1e-5), "leaf"
leaf = torch.arange(12, dtype=torch.float32).reshape(3, 4).requires_grad_()
dist.all_reduce(leaf.t())
assert torch.allclose(leaf.detach(), torch.arange(12, dtype=torch.float32).reshape(3, 4) * world,
                      rtol=0, atol=1e-5), "strided leaf"
switch_calls += 2
a, b = torch.full((7,), rank, dtype=torch.int32), torch.arange(300, dtype=torch.int32)
dist.all_reduce_coalesced([a, b])
assert torch.equal(a, torch.full((7,), sum(range(world)), dtype=torch.int32))
assert torch.equal(b, torch.arange(300, dtype=torch.int32) * world)
switch_calls += 1

# 3. refused: gloo's result, each one counted.
for op, want in ((dist.ReduceOp.MAX, world - 1), (dist.ReduceOp.MIN, 0),
                 (dist.ReduceOp.PRODUCT, 0)):
    for _ in range(2):  # twice: warned once
        y = torch.full((5,), rank, dtype=torch.int32)
        dist.all_reduce(y, op=op)
        assert torch.equal(y, torch.full((5,), want, dtype=torch.int32)), op
        fallbacks += 1
for dt in (torch.float64, torch.int64, torch.float16):
    y = torch.full((9,), rank + 1, dtype=dt)
    dist.all_reduce(y)
    assert torch.equal(y, torch.full((9,), tri, dtype=dt)), dt
    fallbacks += 1

# 4. what gloo does.
bc = torch.arange(6, dtype=torch.float32) if rank == 0 else torch.zeros(6)
dist.broadcast(bc, 0)
assert torch.equal(bc, torch.arange(6, dtype=torch.float32))
out = [torch.zeros(2, dtype=torch.int64) for _ in range(world)]
dist.all_gather(out, torch.tensor([rank, rank * 10]))
assert all(torch.equal(o, torch.tensor([r, r * 10])) for r, o in enumerate(out))
objs = [None] * world
dist.all_gather_object(objs, {"rank": rank})
assert objs == [{"rank": r} for r in range(world)]
gl = [torch.zeros(1) for _ in range(world)] if rank == 0 else None
dist.gather(torch.tensor([float(rank)]), gl, dst=0)
assert rank != 0 or [v.item() for v in gl] == list(range(world))
sc = torch.zeros(1)
dist.scatter(sc, [torch.tensor([float(r * 3)]) for r in range(world)] if rank == 0 else None, 0)
assert sc.item() == rank * 3
rd = torch.tensor([rank + 1.0])
dist.reduce(rd, dst=0)
assert rank != 0 or rd.item() == tri
nxt, prv = (rank + 1) % world, (rank - 1) % world
got = torch.zeros(1)
if rank % 2 == 0:
    dist.send(torch.tensor([float(rank)]), nxt)
    dist.recv(got, prv)
else:
    dist.recv(got, prv)
    dist.send(torch.tensor([float(rank)]), nxt)
assert got.item() == prv
dist.barrier()
sub = dist.new_group([0, 1])
if rank in (0, 1):
    s = torch.tensor([rank + 1], dtype=torch.int32)
    dist.all_reduce(s, group=sub)
    assert s.item() == 3
    assert sub.protocol == "gloo" and sub.stats()["switch_calls"] == 0
dist.barrier()

# 5. the counters.
st = inswitch.torch.stats()
assert st["switch_calls"] == switch_calls and st["jobs"] == switch_calls, st
assert st["fallbacks"] == fallbacks, st
assert st["copied"] == 4, st  # three strided views, one coalesced pair
if pg.verify:
    assert st["verified"] == switch_calls, st
seen["stats"] = st
seen["switch_calls"], seen["fallbacks"] = switch_calls, fallbacks
dist.destroy_process_group()
if rank == 0:
    print(json.dumps(seen))
sys.exit(0)
