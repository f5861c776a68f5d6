# SPDX-License-Identifier: BSD-3-Clause
"""The switch's aggregator allocator from Python (docs/memory.md, docs/ctl.md "alloc").

    from inswitch.alloc import Allocator
    a = Allocator("/run/inswitch.sock")
    a.add("resnet", "syncagtr", 1, deadline_s=600, model_mb=100, iters=5000, compute_ms=120)
    for it in range(5000):
        ...                                   # train an iteration
        a.update("resnet", done=it + 1)       # the allocator plans for what is left
    print(a.show()["jobs"])
    a.remove("resnet")

Every call is one command on the switch's control socket; a refusal raises InswitchError with
the switch's message and code (e.g. "EEXIST").
"""

import json
import socket

from ._native import InswitchError

# keyword argument -> the command's word
_FIGURES = {"deadline_s": "deadline-s", "model_mb": "model-mb", "compute_ms": "compute-ms",
            "iters": "iters", "rtt_us": "rtt-us", "peak_gbps": "peak-gbps", "elems": "elems",
            "min_units": "min-units", "done": "done"}


class AllocError(InswitchError):
    """The switch refused an allocator command; .code is its error code (e.g. "ENOENT")."""

    def __init__(self, message, code=None):
        super().__init__(message)
        self.code = code


class Allocator:
    """The allocator of the switch whose control socket is ctl."""

    def __init__(self, ctl, timeout=5.0):
        self.ctl = ctl
        self.timeout = timeout

    def _call(self, words):
        line = " ".join(str(w) for w in words)
        if "\n" in line:
            raise ValueError("a command is one line")
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
            s.settimeout(self.timeout)
            s.connect(self.ctl)
            s.sendall(line.encode() + b"\n")
            buf = b""
            while not buf.endswith(b"\n"):
                chunk = s.recv(65536)
                if not chunk:
                    break
                buf += chunk
        reply = json.loads(buf)
        if not reply.get("ok"):
            raise AllocError("%s: %s" % (line, reply.get("error")), reply.get("code"))
        return reply

    @staticmethod
    def _figures(fig):
        words = []
        for k, v in fig.items():
            if k not in _FIGURES:
                raise TypeError("unknown figure %r (one of %s)" % (k, ", ".join(_FIGURES)))
            if v is not None:
                words += [_FIGURES[k], v]
        return words

    def add(self, name, kind, tenant, **figures):
        """Registers job name on kind's tenant (syncagtr: a session id) with its figures
        (deadline_s, model_mb, compute_ms, iters, rtt_us, peak_gbps, elems, min_units)."""
        if "done" in figures:
            raise TypeError("done is for update()")
        return self._call(["alloc", "job", "add", name, kind, tenant] + self._figures(figures))

    def update(self, name, **figures):
        """Changes a job's figures while it runs: done (iterations made), and the others."""
        return self._call(["alloc", "job", "update", name] + self._figures(figures))

    def remove(self, name):
        """Forgets a job; its tenant keeps its region."""
        return self._call(["alloc", "job", "del", name])

    def policy(self, policy):
        """"static", "fcfs" or "edf"."""
        return self._call(["alloc", "policy", policy])

    def capacity(self, kind, units):
        """The units of kind's pool the allocator shares among its jobs."""
        return self._call(["alloc", "capacity", kind, units])

    def plan(self):
        """Plans now; returns what show() does."""
        return self._call(["alloc", "plan"])

    def show(self):
        """The policy, the kinds and every job's region, plan, need, class and throughputs."""
        return self._call(["alloc", "show"])
