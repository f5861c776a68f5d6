#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""One rank of bench/train.sh: DDP training of an MLP large enough that its gradients dominate a
step, on synthetic data, on the process group named by --backend (gloo, or inswitch: import
inswitch.torch, configured by INSWITCH_*). The same seeds, data and order for every backend, so
runs differ only in how the gradients are summed.

  train_mlp.py --rank R --workers N --master IP:PORT --backend gloo|inswitch
               [--width W] [--depth D] [--batch B] [--steps S] [--warmup K]

The model: Linear(W, W) + ReLU, D times, then Linear(W, 10) (W=1856, D=3: 10.4 M parameters,
41 MB of float32 gradients); inputs drawn from a fixed seed, labels from a fixed random linear
teacher. Each step: forward,
backward (DDP's all_reduce of every bucket), SGD step. After K warm-up steps (gloo connects
lazily, DDP rebuilds its buckets after the first), S steps are timed one by one on every rank
after a barrier. Rank 0 prints one JSON object: per-step seconds (the slowest rank's), per-step
loss (rank 0's batch), parameters, backend, and the inswitch counters when on inswitch.
"""

import argparse
import json
import sys
import time

import torch
import torch.distributed as dist
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel as DDP


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--rank", type=int, required=True)
    p.add_argument("--workers", type=int, required=True)
    p.add_argument("--master", required=True)
    p.add_argument("--backend", choices=("gloo", "inswitch"), required=True)
    p.add_argument("--width", type=int, default=1856)
    p.add_argument("--depth", type=int, default=3)
    p.add_argument("--batch", type=int, default=8, help="per worker")
    p.add_argument("--steps", type=int, default=10)
    p.add_argument("--warmup", type=int, default=2)
    p.add_argument("--lr", type=float, default=0.05)
    a = p.parse_args()
    torch.set_num_threads(1)
    if a.backend == "inswitch":
        import inswitch.torch  # registers the backend
    dist.init_process_group(a.backend, init_method="tcp://" + a.master, rank=a.rank,
                            world_size=a.workers)
    torch.manual_seed(1)
    layers = []
    for _ in range(a.depth):
        layers += [nn.Linear(a.width, a.width), nn.ReLU()]
    net = nn.Sequential(*layers, nn.Linear(a.width, 10))
    model = DDP(net)
    opt = torch.optim.SGD(model.parameters(), lr=a.lr)
    lossf = nn.CrossEntropyLoss()
    g = torch.Generator().manual_seed(2)
    teacher = torch.randn(a.width, 10, generator=g)
    total = a.warmup + a.steps
    x = torch.randn(total, a.workers, a.batch, a.width, generator=g)
    y = (x @ teacher).argmax(-1)
    seconds, losses = [], []
    for s in range(total):
        if s == a.warmup:
            dist.barrier()
        t0 = time.monotonic()
        opt.zero_grad()
        loss = lossf(model(x[s, a.rank]), y[s, a.rank])
        loss.backward()
        opt.step()
        dt = time.monotonic() - t0
        if s >= a.warmup:
            seconds.append(dt)
            losses.append(loss.item())
    out = {"backend": a.backend, "params": sum(q.numel() for q in net.parameters()),
           "workers": a.workers, "batch": a.batch, "losses": losses}
    if a.backend == "inswitch":  # the training's counters, before the MAX below
        out["protocol"] = dist.distributed_c10d._get_default_group().protocol
        out["comm"] = inswitch.torch.stats()
    # the slowest rank's time of each step
    t = torch.tensor(seconds, dtype=torch.float64)
    dist.all_reduce(t, op=dist.ReduceOp.MAX)  # float64 MAX: gloo's, on either backend
    out["seconds"] = t.tolist()
    dist.barrier()
    dist.destroy_process_group()
    if a.rank == 0:
        print(json.dumps(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
