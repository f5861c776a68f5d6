#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""Runs train_digits.py on N workers in network namespaces, once per backend (gloo, the
reference, and inswitch's), and prints them side by side: test accuracy, loss, time per step,
and how far the losses of the inswitch run stray from gloo's.

  compare.py --ns NS1,NS2,... --master IP [--switch-ip IP --ctl SOCKET] [--epochs E]
             [--backends gloo,syncagtr] [--reference GLOO_JSON] [--out DIR] [--check]
             [--torchrun] [train_digits.py options for the inswitch runs]

--torchrun starts every worker under torchrun (one per namespace: --nnodes N --node_rank i,
static rendezvous at the master IP) and passes train_digits.py only --backend, --epochs and
--json: rank, world size and rendezvous come from torchrun. Backend inswitch (the process
group) takes its settings from the INSWITCH_* environment, which torchrun passes on.

Worker i runs in namespace NSi; rank 0's namespace holds the master IP (the rendezvous of
torch.distributed, and gloo's TCP). With --check the exit status is 1 unless every inswitch
run's test accuracy is within 1 point of gloo's and its losses track gloo's: at every step
|loss - loss_gloo| <= 1e-3 (docs/training.md says why: the two runs' gradient sums differ only
in rounding, which moves the loss by about 1e-7; one stale gradient bucket moves it by 5e-3 or
more).
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
LOSS_TOLERANCE = 1e-3


def run(a, backend, port, out):
    procs = []
    for rank, ns in enumerate(a.ns):
        cmd = ["ip", "netns", "exec", ns, sys.executable]
        if a.torchrun:
            # --redirects/--tee: Debian 12's torchrun (1.13 on Python 3.11) cannot parse its
            # default "0"; a mapping for a local rank that does not run (docs/training.md)
            cmd += ["-m", "torch.distributed.run", "--redirects", "9:1", "--tee", "9:1",
                    "--nnodes", str(len(a.ns)), "--node_rank",
                    str(rank), "--nproc_per_node", "1", "--master_addr", a.master,
                    "--master_port", str(port), os.path.join(HERE, "train_digits.py")]
        else:
            cmd += [os.path.join(HERE, "train_digits.py"), "--rank", str(rank), "--workers",
                    str(len(a.ns)), "--master", "%s:%d" % (a.master, port)]
        cmd += ["--backend", backend, "--epochs", str(a.epochs), "--json", out]
        if backend == "syncagtr":
            cmd += ["--switch-ip", a.switch_ip]
        if backend in ("syncagtr", "atp"):  # the hook's; the inswitch group reads INSWITCH_*
            cmd += (["--ctl", a.ctl] if a.ctl else []) + a.extra
        log = open(out + ".%d.log" % rank, "w")
        procs.append((subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT), log))
    failed = []
    for rank, (p, log) in enumerate(procs):
        try:
            rc = p.wait(timeout=a.timeout)
        except subprocess.TimeoutExpired:
            p.kill()
            rc = "timeout"
        log.close()
        if rc != 0:
            failed.append(rank)
    if failed:
        for rank in failed:
            with open(out + ".%d.log" % rank) as f:
                sys.stderr.write("--- %s rank %d:\n%s" % (backend, rank, f.read()[-3000:]))
        raise SystemExit("%s: ranks %s failed" % (backend, failed))
    with open(out) as f:
        return json.load(f)


def track(ref, run_):
    """Largest |loss - loss_ref| and the first step over the tolerance, if any."""
    worst, worst_at, over = 0.0, 0, None
    for i, (r, x) in enumerate(zip(ref["losses"], run_["losses"])):
        d = abs(x - r)
        if d > worst:
            worst, worst_at = d, i
        if over is None and d > LOSS_TOLERANCE:
            over = i
    return worst, worst_at, over


def via(r):
    """How a run's gradients were summed."""
    if "hook_calls" in r:
        return "switch: %d buckets" % r["hook_calls"]
    if r["backend"] == "inswitch":
        return "%s: %d all_reduces" % (r["protocol"], r["comm"]["switch_calls"])
    return "gloo allreduce (TCP)"


def main(argv):
    p = argparse.ArgumentParser()
    p.add_argument("--ns", required=True, type=lambda s: s.split(","))
    p.add_argument("--master", required=True)
    p.add_argument("--switch-ip")
    p.add_argument("--ctl")
    p.add_argument("--reference",
                   help="earlier runs to show and compare with instead of running them again: a "
                   "run's JSON or a summary.json (its gloo run is the reference)")
    p.add_argument("--epochs", type=int, default=20)
    p.add_argument("--backends", default="gloo,syncagtr", type=lambda s: s.split(","))
    p.add_argument("--out", help="directory for the runs' JSON and logs (default: a new one)")
    p.add_argument("--timeout", type=float, default=600)
    p.add_argument("--check", action="store_true")
    p.add_argument("--torchrun", action="store_true", help="start the workers under torchrun")
    a, a.extra = p.parse_known_args(argv)  # the rest goes to the inswitch runs' workers
    out = a.out or tempfile.mkdtemp(prefix="inswitch-train.")
    os.makedirs(out, exist_ok=True)
    res = {}
    if a.reference:
        with open(a.reference) as f:
            d = json.load(f)
        res.update({d["backend"]: d} if "backend" in d else d)
    for i, b in enumerate(a.backends):
        res[b] = run(a, b, 29500 + i, os.path.join(out, b + ".json"))
    names = list(res)
    rows = [("test accuracy", lambda r: "%.4f" % r["test_accuracy"]),
            ("final loss", lambda r: "%.4f" % r["losses"][-1]),
            ("steps", lambda r: "%d" % r["steps"]),
            ("time per step", lambda r: "%.2f ms" % r["ms_per_step"]),
            ("gradients via", via)]
    print("%-16s" % "" + "".join("%-24s" % n for n in names))
    for label, f in rows:
        print("%-16s" % label + "".join("%-24s" % f(res[n]) for n in names))
    ok = True
    ref = res.get("gloo")
    for n in names:
        if n == "gloo" or ref is None:
            continue
        worst, at, over = track(ref, res[n])
        dacc = abs(res[n]["test_accuracy"] - ref["test_accuracy"])
        print("%s vs gloo: accuracy %+.2f points, largest loss difference %.2e (step %d of %d)%s"
              % (n, 100 * (res[n]["test_accuracy"] - ref["test_accuracy"]), worst, at,
                 len(ref["losses"]), "" if over is None else
                 ", over the tolerance from step %d" % over))
        if dacc > 0.01 or over is not None or res[n]["steps"] != ref["steps"]:
            ok = False
    with open(os.path.join(out, "summary.json"), "w") as f:
        json.dump(res, f)
    print("figures: %s" % os.path.join(out, "summary.json"))
    if a.check and not ok:
        print("CHECK FAILED: an inswitch run does not match gloo's within the bounds")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
