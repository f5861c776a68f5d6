# SPDX-License-Identifier: BSD-3-Clause
"""Communicators: one worker of a job whose allreduces inswitch aggregates."""

import ctypes
import errno

import numpy as np

from . import _native
from ._native import FLOAT32, INT32, lib

_NP_TYPES = {np.dtype(np.int32): INT32, np.dtype(np.float32): FLOAT32}


def _is_torch(x):
    return type(x).__module__.split(".")[0] == "torch"


class _Buffer:
    """A tensor's memory as (pointer, count, dtype), borrowed when the layout allows (an int32 or
    float32 C-contiguous, writable numpy array; a contiguous CPU torch tensor), else a contiguous
    copy written back by finish()."""

    def __init__(self, x):
        self.x, self.copy = x, None
        if _is_torch(x):
            import torch

            codes = {torch.int32: INT32, torch.float32: FLOAT32}
            if x.dtype not in codes:
                raise TypeError("inswitch aggregates int32 and float32 tensors, not %s" % x.dtype)
            self.dtype = codes[x.dtype]
            t = x
            if x.device.type != "cpu" or not x.is_contiguous():
                t = self.copy = x.detach().to("cpu").contiguous()
            self.ptr, self.count = t.data_ptr(), t.numel()
            return
        if not isinstance(x, np.ndarray):
            raise TypeError("allreduce takes a numpy array or a torch tensor, not %s"
                            % type(x).__name__)
        native = x.dtype.newbyteorder("=")
        if native not in _NP_TYPES:
            raise TypeError("inswitch aggregates int32 and float32 arrays, not %s" % x.dtype)
        if not x.flags.writeable:
            raise ValueError("the array is read-only: allreduce writes the sum into it")
        self.dtype = _NP_TYPES[native]
        a = x
        if not (x.flags.c_contiguous and x.dtype.isnative):
            a = self.copy = np.ascontiguousarray(x, dtype=native)
        self.ptr, self.count = a.ctypes.data, a.size

    @property
    def borrowed(self):
        return self.copy is None

    def finish(self):
        if self.copy is None:
            return
        if _is_torch(self.x):
            with __import__("torch").no_grad():
                self.x.copy_(self.copy)
        else:
            self.x[...] = self.copy


class _Comm:
    """What the communicators share: allreduce through the library, stats, closing."""

    _h = None  # the library's handle; None once closed (or if opening failed)
    _allreduce = _stats = _close = None

    def _call(self, x, verify):
        if not self._h:
            raise _native.CommunicatorBroken(errno.EPIPE, "communicator closed")
        b = _Buffer(x)
        err = ctypes.create_string_buffer(1024)
        rc = self._allreduce(b, verify, err)
        if rc < 0 and rc != -errno.EBADMSG:  # EBADMSG: a result arrived, it is not the sum
            raise _native.error(rc, err.value.decode(errors="replace"))
        b.finish()
        if rc < 0:
            raise _native.error(rc, err.value.decode(errors="replace"))
        return x

    @property
    def stats(self):
        s = _native.Stats()
        if self._h:
            self._stats(self._h, ctypes.byref(s))
        return s

    def close(self):
        if self._h:
            self._close(self._h)
            self._h = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        self.close()


def _open(fn, params):
    err = ctypes.create_string_buffer(1024)
    h = fn(ctypes.byref(params), err, len(err))
    if not h:
        raise _native.error(-(ctypes.get_errno() or errno.EIO),
                            err.value.decode(errors="replace") or "open failed")
    return h


class SyncAgtr(_Comm):
    """One worker of a SyncAgtr (SwitchML protocol) session.

    Opening it registers the worker with the switch (with ctl, its control socket), waits until
    every worker of the session is there and runs the start barrier, so it returns when all
    workers have opened theirs. Then allreduce() sums a tensor over the workers, in place; every
    worker must make the same calls (same sizes, dtypes and verify) in the same order.

    rank, workers: this worker (0..workers-1) and how many there are.
    switch_ip: the session's switch IP. ctl: the switch's control socket, to register there
    (None: the operator registered the workers). session: 1..64. attach: the switch port this
    host is behind, "l2" (the switch's static l2 entry for this host's MAC), "auto" or a port
    number. threads, window, elems: worker threads (one UDP socket each), packets in flight per
    thread, values per packet (64 or 256); the session takes threads * window slots.
    timeout_ms, first_timeout_ms, give_up_s, guard_ms, worker_port, transport: as
    syncagtr-worker's options. Closing takes the registration back (with ctl), so that the next
    run's workers wait for each other again.

    reset (with ctl; None: True): rank 0 starts a new epoch of the session before anyone sends
    (its slots cleared, registrations older than this job's dropped by the switch).
    reset=False trades safety: the job shares its epoch with the runs before it. barrier=False
    trades safety for speed: no start barrier; it needs ctl, and with reset=False it is refused
    (SessionError) while the session holds another run's state. guard_ms=0 is unsafe where
    packets are duplicated and reordered (docs/training.md).
    """

    def __init__(self, rank, workers, switch_ip, *, ctl=None, session=1, attach="l2", threads=4,
                 window=128, elems=256, timeout_ms=50, first_timeout_ms=250, give_up_s=20,
                 guard_ms=3, worker_port=4000, reset=None, barrier=True, transport=None):
        p = _native.SaParams()
        p.size = ctypes.sizeof(p)
        p.rank, p.workers, p.session = rank, workers, session
        p.threads, p.window, p.elems = threads, window, elems
        p.timeout_ms, p.give_up_s = timeout_ms, give_up_s
        p.first_timeout_ms = 0xFFFFFFFF if first_timeout_ms == 0 else first_timeout_ms
        p.guard_ms = 0xFFFFFFFF if guard_ms == 0 else guard_ms
        p.worker_port, p.no_barrier = worker_port, int(not barrier)
        p.no_reset = int(reset is not None and not reset)
        p.switch_ip = str(switch_ip).encode()
        p.ctl = str(ctl).encode() if ctl is not None else None
        p.attach = str(attach).encode()
        p.transport = str(transport).encode() if transport is not None else None
        self.rank, self.workers, self.session = rank, workers, session
        self._h = None
        self._stats, self._close = lib.isw_sa_stats, lib.isw_sa_close
        self._h = _open(lib.isw_sa_open, p)

    def _allreduce(self, b, verify, err):
        return lib.isw_sa_allreduce(self._h, b.ptr, b.count, b.dtype, int(bool(verify)), err,
                                    len(err))

    def allreduce(self, x, *, verify=True):
        """x := the sum of every worker's x (numpy array or torch tensor, int32 or float32),
        in place; returns x. int32 sums wrap around modulo 2^32; float32 goes through SwitchML's
        block exponent quantisation (error at most workers * 2^emax / 2^31 per element, emax the
        block's largest exponent over the workers). verify (on by default) checks the result end
        to end (one more packet per thread, in the job's last window) and raises ResultCheckError
        when it is not the sum; verify=False trades that safety for the packet and the checksums'
        arithmetic: a wrong sum is returned silently.
        Every worker must pass the same verify."""
        return self._call(x, verify)


class ATP(_Comm):
    """One worker of an ATP app: aggregation in the switch's shared aggregator pool, with
    collisions and lost packets falling back to the app's parameter server (docs/atp.md).

    The switch's app (atp app add) and its parameter server(s) (atp-ps, with the same threads,
    window, pool and scale) must be up; the workers need no registration: the first allreduce
    JOINs the app's job, which the PS names (on the switch too) once all workers have JOINed, and
    every later call runs in that job (docs/atp.md, Job lifetime). Raw Ethernet frames on dev,
    over transport: "auto" (None, the default: AF_XDP where it can be set up, else AF_PACKET;
    one line on stderr says which), "xdp" or "socket" (hosts/README.md, The transport): needs
    CAP_NET_RAW, and CAP_NET_ADMIN and CAP_BPF for AF_XDP.

    id, workers: this worker (bit id of the bitmap) and how many there are. app: 1..12.
    dev: the interface towards the switch. nps: parameter servers. threads, window: one socket
    per thread, aggregators per thread (threads * window <= pool). scale: float32 values are
    sent as round(x * scale) (a packet with a value beyond INT32_MAX / (workers * scale) goes as
    floats, summed by the PS). job, ctl, reset: accepted and ignored (a DeprecationWarning says
    so): the PS names every job.
    """

    def __init__(self, id, workers, app, dev, *, nps=1, threads=1, window=100, pool=20000,
                 scale=1048576.0, timeout_ms=20, give_up_s=20, cc=False, job=None, ctl=None,
                 reset=None, transport=None):
        for name, v in (("job", job), ("ctl", ctl), ("reset", reset)):
            if v is not None:
                import warnings

                warnings.warn("inswitch.ATP: %s= is ignored: the app's parameter server names "
                              "every job (docs/atp.md, Job lifetime)" % name,
                              DeprecationWarning, stacklevel=2)
        p = _native.AtpParams()
        p.size = ctypes.sizeof(p)
        p.id, p.workers, p.app, p.nps = id, workers, app, nps
        p.threads, p.window, p.pool = threads, window, pool
        p.timeout_ms, p.give_up_s, p.cc = timeout_ms, give_up_s, int(cc)
        p.scale = scale
        p.dev = str(dev).encode()
        p.transport = str(transport).encode() if transport is not None else None
        self.rank, self.workers, self.app = id, workers, app
        self._h = None
        self._stats, self._close = lib.isw_atp_stats, lib.isw_atp_close
        self._h = _open(lib.isw_atp_open, p)

    def _allreduce(self, b, verify, err):
        return lib.isw_atp_allreduce(self._h, b.ptr, b.count, b.dtype, int(bool(verify)), err,
                                     len(err))

    def allreduce(self, x, *, verify=True):
        """x := the sum of every worker's x, in place; returns x. int32 sums saturate at the
        int32 range in the switch; float32 is scaled (see the class). verify=True (the default)
        checks the result end to end (one more round trip: checksums of what every worker sent
        against what this one got) and raises ResultCheckError when it is not the sum, saying
        "saturated" where an element sits at an int32 rail; results that came back as floats
        (overflow packets, summed by the PS) are not covered. verify=False skips the check:
        faster, and a wrong result then goes unnoticed. Every worker passes the same verify."""
        return self._call(x, verify)
