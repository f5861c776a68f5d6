# SPDX-License-Identifier: BSD-3-Clause
"""inswitch from Python: allreduce numpy arrays and torch tensors through an inswitch switch.

    import inswitch
    with inswitch.SyncAgtr(rank, workers, "10.99.0.254", ctl="/run/inswitch.sock") as comm:
        comm.allreduce(tensor)          # in place: the sum over the workers

inswitch.ddp has the hook that makes PyTorch's DistributedDataParallel aggregate its
gradients through the switch; inswitch.alloc registers jobs with the switch's aggregator
allocator (docs/memory.md). The package wraps libinswitch-host (ctypes); docs/training.md
is its guide.
"""

from ._native import (AllreduceTimeout, CommunicatorBroken, InswitchError, ResultCheckError,
                      SessionError, Stats)
from .comm import ATP, SyncAgtr

__all__ = ["SyncAgtr", "ATP", "Stats", "InswitchError", "SessionError", "AllreduceTimeout",
           "ResultCheckError", "CommunicatorBroken"]
