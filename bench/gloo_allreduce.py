#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""One rank of a PyTorch gloo allreduce, timed: the reference bench/hosts.sh compares inswitch's
allreduce with (torch.distributed, gloo backend, TCP through the switch's l2 path).

  gloo_allreduce.py --rank R --workers N --master IP:PORT --count C --type int32|float32

After a small warm-up allreduce (gloo connects lazily) and a barrier, times one allreduce of C
elements (sum) and checks it: every rank fills its tensor with rank + 1 at every element (int32)
or (rank + 1) / 4 (float32), so the sum is known. Prints one JSON object: seconds, verified.
"""

import argparse
import json
import sys
import time

import torch
import torch.distributed as dist


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--rank", type=int, required=True)
    p.add_argument("--workers", type=int, required=True)
    p.add_argument("--master", required=True)
    p.add_argument("--count", type=int, required=True)
    p.add_argument("--type", choices=["int32", "float32"], default="int32")
    a = p.parse_args()
    dist.init_process_group("gloo", init_method="tcp://" + a.master, rank=a.rank,
                            world_size=a.workers)
    dtype = torch.int32 if a.type == "int32" else torch.float32
    warm = torch.ones(1 << 16, dtype=dtype)
    dist.all_reduce(warm)
    if a.type == "int32":
        t = torch.full((a.count,), a.rank + 1, dtype=dtype)
        want = a.workers * (a.workers + 1) // 2
    else:
        t = torch.full((a.count,), (a.rank + 1) / 4.0, dtype=dtype)
        want = a.workers * (a.workers + 1) / 8.0
    dist.barrier()
    start = time.perf_counter()
    dist.all_reduce(t)
    secs = time.perf_counter() - start
    ok = bool(torch.all(t == want).item())
    dist.barrier()
    dist.destroy_process_group()
    json.dump({"rank": a.rank, "type": a.type, "elems": a.count, "seconds": secs,
               "goodput_gbps": a.count * 4 * 8 / secs / 1e9, "verified": ok}, sys.stdout)
    print()
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
