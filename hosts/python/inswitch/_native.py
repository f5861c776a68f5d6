# SPDX-License-Identifier: BSD-3-Clause
"""ctypes bindings of libinswitch-host (hosts/python/isw_host.h) and the errors it reports."""

import ctypes
import ctypes.util
import errno
import os

API_VERSION = 8  # ISW_HOST_API_VERSION
INT32, FLOAT32 = 0, 1


class InswitchError(Exception):
    """An allreduce or a registration failed. .errno is the library's errno value, .reason its
    message (what the switch said, where it was asked)."""

    def __init__(self, err, reason):
        super().__init__(reason)
        self.errno = err
        self.reason = reason


class SessionError(InswitchError):
    """The switch refused the registration: no such session, another worker holds the rank, the
    host's MAC has no l2 entry, the slots are taken, or (barrier=False, reset=False) the session
    holds another run's state..."""


class AllreduceTimeout(InswitchError, TimeoutError):
    """No result came back for give_up_s seconds; the message says what the switch knows of the
    session (missing workers, no session at all, its counters)."""


class ResultCheckError(InswitchError):
    """The end-to-end check (verify, on by default) failed: the result is not the sum of what
    the workers sent."""


class CommunicatorBroken(InswitchError):
    """An earlier call failed; the communicator must be closed and opened again."""


def error(rc, msg):
    """The exception for a negative return code and its message."""
    e = -rc
    if e == errno.EINVAL:
        return ValueError(msg)
    if e == errno.ETIMEDOUT:
        return AllreduceTimeout(e, msg)
    if e == errno.EBADMSG:
        return ResultCheckError(e, msg)
    if e == errno.EPIPE:
        return CommunicatorBroken(e, msg)
    if e == errno.EPERM:
        return PermissionError(e, msg)
    # The switch's codes for a refused registration (docs/ctl.md, Error codes) among them.
    if e in (errno.ENOENT, errno.EEXIST, errno.EIO, errno.ENOSPC, errno.ECONNREFUSED,
             errno.ENAMETOOLONG, errno.EADDRNOTAVAIL, errno.ENETUNREACH, errno.EBUSY,
             errno.EHOSTUNREACH, errno.EADDRINUSE, errno.ENOTSUP, errno.ERANGE, errno.EAGAIN):
        return SessionError(e, msg)
    return InswitchError(e, msg)


class SaParams(ctypes.Structure):
    _fields_ = [(name, ctypes.c_uint32) for name in (
        "size", "rank", "workers", "session", "threads", "window", "elems", "timeout_ms",
        "give_up_s", "first_timeout_ms", "guard_ms", "worker_port", "no_reset", "no_barrier")] + [
        ("switch_ip", ctypes.c_char_p), ("ctl", ctypes.c_char_p), ("attach", ctypes.c_char_p),
        ("transport", ctypes.c_char_p)]


class AtpParams(ctypes.Structure):
    _fields_ = [(name, ctypes.c_uint32) for name in (
        "size", "id", "workers", "app", "nps", "threads", "window", "pool", "timeout_ms",
        "give_up_s", "cc")] + [
        ("scale", ctypes.c_double), ("dev", ctypes.c_char_p), ("transport", ctypes.c_char_p)]


class Stats(ctypes.Structure):
    """Counters of one communicator since it was opened."""
    _fields_ = [(name, ctypes.c_uint64) for name in (
        "jobs", "elements", "packets", "retransmits", "results", "duplicates", "verified")] + [
        ("seconds", ctypes.c_double)]

    def as_dict(self):
        return {name: getattr(self, name) for name, _ in self._fields_}

    def __repr__(self):
        return "Stats(%s)" % ", ".join("%s=%s" % kv for kv in self.as_dict().items())


def _candidates():
    env = os.environ.get("INSWITCH_HOST_LIB")
    if env:
        return [env]
    here = os.path.dirname(os.path.abspath(__file__))
    out = [os.path.join(here, "libinswitch-host.so"),
           # a build tree: hosts/python/inswitch -> build/hosts/python
           os.path.join(here, "..", "..", "..", "build", "hosts", "python", "libinswitch-host.so")]
    found = ctypes.util.find_library("inswitch-host")
    if found:
        out.append(found)
    return out


def _load():
    tried = []
    for path in _candidates():
        if os.path.sep in path and not os.path.exists(path):
            tried.append(path)
            continue
        try:
            lib = ctypes.CDLL(path, use_errno=True)
        except OSError as e:
            tried.append("%s (%s)" % (path, e))
            continue
        break
    else:
        raise ImportError("libinswitch-host.so not found (build inswitch, or set "
                          "INSWITCH_HOST_LIB); tried: %s" % ", ".join(tried))
    lib.isw_host_api_version.restype = ctypes.c_uint
    if lib.isw_host_api_version() != API_VERSION:
        raise ImportError("%s has API version %d, this package wants %d"
                          % (path, lib.isw_host_api_version(), API_VERSION))
    vp, cp, sz = ctypes.c_void_p, ctypes.c_char_p, ctypes.c_size_t
    lib.isw_sa_open.argtypes = [ctypes.POINTER(SaParams), cp, sz]
    lib.isw_sa_open.restype = vp
    lib.isw_sa_allreduce.argtypes = [vp, vp, ctypes.c_uint64, ctypes.c_int, ctypes.c_int, cp, sz]
    lib.isw_sa_allreduce.restype = ctypes.c_int
    lib.isw_sa_stats.argtypes = [vp, ctypes.POINTER(Stats)]
    lib.isw_sa_stats.restype = None
    lib.isw_sa_close.argtypes = [vp]
    lib.isw_sa_close.restype = None
    lib.isw_atp_open.argtypes = [ctypes.POINTER(AtpParams), cp, sz]
    lib.isw_atp_open.restype = vp
    lib.isw_atp_allreduce.argtypes = [vp, vp, ctypes.c_uint64, ctypes.c_int, ctypes.c_int, cp, sz]
    lib.isw_atp_allreduce.restype = ctypes.c_int
    lib.isw_atp_stats.argtypes = [vp, ctypes.POINTER(Stats)]
    lib.isw_atp_stats.restype = None
    lib.isw_atp_close.argtypes = [vp]
    lib.isw_atp_close.restype = None
    lib.path = path
    return lib


lib = _load()
