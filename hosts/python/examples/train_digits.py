#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""Data-parallel training of a small MLP on the digits dataset (scikit-learn's bundled 8x8
handwritten digits, 1797 images), one process per worker, with PyTorch's
DistributedDataParallel. The gradients are averaged either by gloo's allreduce (TCP between the
workers: the reference) or through inswitch (--backend syncagtr: the inswitch.ddp hook), with
the same seeds, model, data split and order, so the two runs differ only in how gradients are
summed. --backend atp aggregates through an ATP app instead (its parameter server must be up).
--backend inswitch runs the whole job on the inswitch torch.distributed backend (import
inswitch.torch; configured by INSWITCH_* variables, docs/training.md) instead of gloo, no hook:
the run differs from --backend gloo by the process group's name alone.

  train_digits.py --rank R --workers N --master HOST:PORT --backend gloo|syncagtr|atp|inswitch
                  [--switch-ip IP --ctl SOCKET] [--app A --dev IFACE] [--epochs E] [--json FILE]
  torchrun ... train_digits.py --backend gloo|inswitch [--epochs E] [--json FILE]

Without --rank, --workers and --master the rank, world size and rendezvous come from the
environment torchrun sets (RANK, WORLD_SIZE, MASTER_ADDR, MASTER_PORT: init_method env://).

Every worker prints its progress; rank 0 writes the run's figures (per-step loss, test
accuracy, time per step, what went through the switch) to --json.
"""

import argparse
import json
import os
import sys
import time

import numpy as np
import torch
import torch.distributed as dist
import torch.nn as nn
from sklearn.datasets import load_digits
from torch.nn.parallel import DistributedDataParallel as DDP


def parse(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--rank", type=int, help="(default: $RANK, from torchrun)")
    p.add_argument("--workers", type=int, help="(default: $WORLD_SIZE, from torchrun)")
    p.add_argument("--master", help="HOST:PORT of rank 0's rendezvous (TCP; default: torchrun's "
                   "env://)")
    p.add_argument("--backend", choices=("gloo", "syncagtr", "atp", "inswitch"),
                   default="syncagtr", help="gloo; gloo with the inswitch.ddp hook through "
                   "SyncAgtr or ATP; or the inswitch process group")
    p.add_argument("--switch-ip", help="the SyncAgtr session's switch IP")
    p.add_argument("--ctl", help="inswitch's control socket (the workers register there)")
    p.add_argument("--session", type=int, default=1)
    p.add_argument("--verify", action="store_true", default=None,
                   help="check every bucket's sum end to end (the default)")
    p.add_argument("--no-verify", dest="verify", action="store_false",
                   help="do not (faster; unsafe: a wrong sum goes into the model unnoticed)")
    p.add_argument("--window", type=int, default=None,
                   help="packets in flight (SyncAgtr, default 64), aggregators (ATP, default "
                        "100: atp-ps's default, which must match)")
    p.add_argument("--app", type=int, default=1, help="the ATP app")
    p.add_argument("--dev", default="eth0", help="ATP: the interface towards the switch")
    p.add_argument("--scale", type=float, default=2.0 ** 24,
                   help="ATP: float32 scale; the PS needs the same")
    p.add_argument("--guard-ms", type=int, default=3, help="SyncAgtr guard (hosts README)")
    p.add_argument("--epochs", type=int, default=20)
    p.add_argument("--batch", type=int, default=32, help="per worker")
    p.add_argument("--lr", type=float, default=0.05)
    p.add_argument("--hidden", type=int, default=128)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--json", help="rank 0 writes the run's figures here")
    a = p.parse_args(argv)
    if a.master is None and (a.rank is None or a.workers is None):
        if "RANK" not in os.environ or "WORLD_SIZE" not in os.environ:
            p.error("--rank, --workers and --master, or run under torchrun")
        a.rank = int(os.environ["RANK"]) if a.rank is None else a.rank
        a.workers = int(os.environ["WORLD_SIZE"]) if a.workers is None else a.workers
    elif a.master is None or a.rank is None or a.workers is None:
        p.error("--rank, --workers and --master go together")
    if a.backend == "syncagtr" and not a.switch_ip:
        p.error("--backend %s needs --switch-ip" % a.backend)
    if a.window is None:
        a.window = 100 if a.backend == "atp" else 64
    return a


def data(seed):
    """The digits, scaled to [0, 1], split 80/20 by a fixed permutation."""
    d = load_digits()
    x = torch.tensor(d.data / 16.0, dtype=torch.float32)
    y = torch.tensor(d.target, dtype=torch.int64)
    perm = np.random.RandomState(seed).permutation(len(y))
    cut = int(0.8 * len(y))
    return (x[perm[:cut]], y[perm[:cut]]), (x[perm[cut:]], y[perm[cut:]])


def comm_hook(a, model):
    """Registers the inswitch hook on the DDP model; returns its state."""
    import inswitch
    import inswitch.ddp

    if a.backend == "atp":
        # The app's PS names the job (on the switch too) once every rank has JOINed: nothing an
        # earlier run of the app left, in the switch or the PS, can join this one.
        comm = inswitch.ATP(a.rank, a.workers, a.app, a.dev, threads=1, window=a.window,
                            scale=a.scale)
    else:
        comm = inswitch.SyncAgtr(a.rank, a.workers, a.switch_ip, ctl=a.ctl, session=a.session,
                                 threads=1, window=a.window, guard_ms=a.guard_ms)
    # None (neither option): the communicator's default, a check of every bucket
    state = inswitch.ddp.HookState(comm, verify=a.verify)
    model.register_comm_hook(state, inswitch.ddp.allreduce_hook)
    return state


def main(argv):
    a = parse(argv)
    torch.set_num_threads(1)
    init = "env://"
    if a.master:
        init = "tcp://%s:%s" % tuple(a.master.rsplit(":", 1))
    group = "gloo"
    if a.backend == "inswitch":
        import inswitch.torch  # registers the backend

        group = "inswitch"
    dist.init_process_group(group, init_method=init, rank=a.rank, world_size=a.workers)
    torch.manual_seed(a.seed)
    (xtr, ytr), (xte, yte) = data(a.seed)
    net = nn.Sequential(nn.Linear(64, a.hidden), nn.ReLU(), nn.Linear(a.hidden, 10))
    model = DDP(net)
    state = comm_hook(a, model) if a.backend in ("syncagtr", "atp") else None
    opt = torch.optim.SGD(model.parameters(), lr=a.lr, momentum=0.9)
    lossf = nn.CrossEntropyLoss()
    gb = a.batch * a.workers  # global batch
    steps_per_epoch = len(ytr) // gb
    losses = []
    dist.barrier()
    t0 = time.monotonic()
    for epoch in range(a.epochs):
        order = np.random.RandomState(a.seed * 1000 + epoch).permutation(len(ytr))
        for s in range(steps_per_epoch):
            idx = order[s * gb + a.rank * a.batch:s * gb + (a.rank + 1) * a.batch]
            opt.zero_grad()
            loss = lossf(model(xtr[idx]), ytr[idx])
            loss.backward()
            opt.step()
            losses.append(loss.item())
        if a.rank == 0:
            print("epoch %d: loss %.4f" % (epoch, losses[-1]), file=sys.stderr, flush=True)
    seconds = time.monotonic() - t0
    with torch.no_grad():
        acc = (net(xte).argmax(1) == yte).float().mean().item()
    out = {"backend": a.backend, "workers": a.workers, "rank": a.rank, "epochs": a.epochs,
           "steps": len(losses), "losses": losses, "test_accuracy": acc, "seconds": seconds,
           "ms_per_step": 1000 * seconds / max(1, len(losses)),
           "params": sum(p.numel() for p in net.parameters())}
    if state is not None:
        out["hook_calls"] = state.calls
        out["hook_elements"] = state.elements
        out["comm"] = state.comm.stats.as_dict()
        # as in every tool's JSON: true if every check ran and passed (a failed one raised),
        # null when none ran
        checked = out["comm"]["verified"]
        out["verified"] = None if not checked else checked == state.calls
        out["comm_threads"], out["comm_window"] = 1, a.window
    elif a.backend == "inswitch":
        out["comm"] = inswitch.torch.stats()  # the communicator's and the backend's counters
        out["protocol"] = dist.distributed_c10d._get_default_group().protocol
    print("rank %d: %s, %d steps, test accuracy %.4f, %.2f ms/step"
          % (a.rank, a.backend, len(losses), acc, out["ms_per_step"]), file=sys.stderr)
    if a.json and a.rank == 0:
        with open(a.json, "w") as f:
            json.dump(out, f)
    dist.barrier()
    if state is not None:
        state.comm.close()
    dist.destroy_process_group()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
