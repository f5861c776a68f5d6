# SPDX-License-Identifier: BSD-3-Clause
"""PyTorch DistributedDataParallel through inswitch: a communication hook that aggregates every
gradient bucket in the switch instead of with the process group's allreduce.

    import torch.distributed as dist
    from torch.nn.parallel import DistributedDataParallel as DDP
    import inswitch, inswitch.ddp

    dist.init_process_group("gloo", ...)          # DDP still needs a group for its set-up
    comm = inswitch.SyncAgtr(rank, world, switch_ip, ctl=ctl, threads=1, window=16)
    model = DDP(net)
    model.register_comm_hook(inswitch.ddp.HookState(comm), inswitch.ddp.allreduce_hook)

The hook averages, as DDP's default does: the switch sums each bucket, the hook divides by the
number of workers. It runs synchronously in the backward pass (the switch's answer is the sum
of all workers, so there is nothing to overlap with but the other buckets' computation).
An inswitch error (a timeout naming what the switch knows, a failed check) raises in
loss.backward() instead of hanging, so the optimizer step that would use the bucket is not
taken. Every bucket's sum is checked end to end by default: verify=None (the default) keeps the
communicator's own default, on for both inswitch.SyncAgtr (one more packet per thread, no round
trip of its own) and inswitch.ATP; HookState(comm, verify=False) trades that for a little
speed, and a wrong sum from the switch then goes into the model undetected.
"""

import torch


class HookState:
    """What the hook needs: the communicator, and counters of what went through it.

    comm: an inswitch communicator (inswitch.SyncAgtr or inswitch.ATP). verify: check every
    bucket's result end to end; None, the default, takes the communicator's own default (on for
    both). verify=False is unsafe: a wrong sum is not detected."""

    def __init__(self, comm, verify=None):
        self.comm = comm
        self.verify = verify
        self.calls = 0  # buckets aggregated through the switch
        self.elements = 0

    def __repr__(self):
        return "HookState(calls=%d, elements=%d)" % (self.calls, self.elements)


def allreduce_hook(state, bucket):
    """DDP communication hook: the bucket's gradients summed by the switch, then averaged."""
    buf = bucket.buffer()
    work = buf if buf.dtype == torch.float32 else buf.to(torch.float32)
    if state.verify is None:
        state.comm.allreduce(work)
    else:
        state.comm.allreduce(work, verify=state.verify)
    work.div_(state.comm.workers)
    if work is not buf:
        buf.copy_(work)
    state.calls += 1
    state.elements += buf.numel()
    fut = torch.futures.Future()
    fut.set_result(buf)
    return fut
