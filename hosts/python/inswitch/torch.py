# SPDX-License-Identifier: BSD-3-Clause
"""The "inswitch" torch.distributed backend: import this module, then

    torch.distributed.init_process_group("inswitch", ...)

and all_reduce (SUM of int32 and float32 CPU tensors; AVG of float32) goes through the switch,
SyncAgtr by default, ATP with INSWITCH_PROTOCOL=atp; every other collective, and an all_reduce
the switch cannot do (MAX, MIN, PRODUCT..., float64, int64, float16..., CUDA or sparse tensors),
runs on a gloo group made from the same store, the latter with a warning on stderr, once per
kind. DDP, and scripts that call broadcast, barrier, all_gather..., run unchanged.

The communicator is configured from the environment (torchrun passes it on to every worker);
its rank is the process group's rank, its workers the world size. docs/training.md lists the
variables; a missing one is named in the error init_process_group raises. Only the default
group goes through the switch: a group made by new_group() runs on gloo and says so.

The backend is a C++ extension (inswitch._c10d, a c10d::ProcessGroup) built by meson against
Debian's libtorch-dev; it drives the communicator that inswitch.SyncAgtr or inswitch.ATP opened,
through the functions of the libinswitch-host those loaded.
"""

import ctypes
import glob
import importlib.machinery
import importlib.util
import os
import warnings

import torch.distributed as dist

from . import _native
from .comm import ATP, SyncAgtr

BACKEND = "inswitch"

# (variable, keyword of the communicator, parser); docs/training.md documents each.
_COMMON = [("INSWITCH_THREADS", "threads", int), ("INSWITCH_WINDOW", "window", int),
           ("INSWITCH_TIMEOUT_MS", "timeout_ms", int), ("INSWITCH_GIVE_UP_S", "give_up_s", int),
           ("INSWITCH_TRANSPORT", "transport", str)]
_SYNCAGTR = [("INSWITCH_CTL", "ctl", str), ("INSWITCH_SESSION", "session", int),
             ("INSWITCH_ATTACH", "attach", str), ("INSWITCH_ELEMS", "elems", int),
             ("INSWITCH_FIRST_TIMEOUT_MS", "first_timeout_ms", int),
             ("INSWITCH_GUARD_MS", "guard_ms", int), ("INSWITCH_WORKER_PORT", "worker_port", int),
             ("INSWITCH_RESET", "reset", "bool"), ("INSWITCH_BARRIER", "barrier", "bool")]
_ATP = [("INSWITCH_NPS", "nps", int), ("INSWITCH_POOL", "pool", int),
        ("INSWITCH_SCALE", "scale", float), ("INSWITCH_CC", "cc", "bool")]
# read elsewhere: the library's and the extension's paths
_OTHER = {"INSWITCH_PROTOCOL", "INSWITCH_VERIFY", "INSWITCH_SWITCH_IP", "INSWITCH_APP",
          "INSWITCH_DEV", "INSWITCH_HOST_LIB", "INSWITCH_TORCH_EXT"}

_BOOL = {"1": True, "true": True, "yes": True, "on": True,
         "0": False, "false": False, "no": False, "off": False}


class ConfigError(ValueError):
    """The environment does not say how to reach the switch (the message names the variable)."""


def _value(env, name, kind):
    raw = env[name]
    if kind == "bool":
        if raw.lower() not in _BOOL:
            raise ConfigError("%s=%r: not a boolean (1/0, true/false, yes/no, on/off)"
                              % (name, raw))
        return _BOOL[raw.lower()]
    try:
        return kind(raw)
    except ValueError:
        raise ConfigError("%s=%r: not %s" % (name, raw, "an integer" if kind is int
                                             else "a number" if kind is float else "valid"))


def _required(env, name, what, protocol):
    if not env.get(name):
        raise ConfigError("the inswitch backend needs %s: %s (INSWITCH_PROTOCOL=%s; "
                          "docs/training.md, The torch.distributed backend)"
                          % (name, what, protocol))
    return env[name]


def config(env=None):
    """(protocol, keyword arguments of the communicator, verify) from env (os.environ):
    raises ConfigError naming what is missing or wrong. Unknown INSWITCH_* variables are
    warned about (a typo would otherwise go unnoticed)."""
    env = os.environ if env is None else env
    protocol = env.get("INSWITCH_PROTOCOL", "syncagtr").lower()
    if protocol not in ("syncagtr", "atp"):
        raise ConfigError("INSWITCH_PROTOCOL=%r: syncagtr (the default) or atp"
                          % env["INSWITCH_PROTOCOL"])
    table = _COMMON + (_SYNCAGTR if protocol == "syncagtr" else _ATP)
    other = _ATP if protocol == "syncagtr" else _SYNCAGTR
    known = {name for name, _, _ in table} | _OTHER
    for name in sorted(n for n in env if n.startswith("INSWITCH_") and n not in known):
        if name in {n for n, _, _ in other}:
            warnings.warn("inswitch backend: %s is ignored with INSWITCH_PROTOCOL=%s"
                          % (name, protocol), stacklevel=3)
        else:
            warnings.warn("inswitch backend: %s is not a setting of the backend "
                          "(docs/training.md lists them)" % name, stacklevel=3)
    kw = {arg: _value(env, name, kind) for name, arg, kind in table if env.get(name)}
    if protocol == "syncagtr":
        kw["switch_ip"] = _required(env, "INSWITCH_SWITCH_IP", "the SyncAgtr session's switch "
                                    "IP", protocol)
    else:
        kw["app"] = _value({"INSWITCH_APP": _required(env, "INSWITCH_APP", "the ATP app "
                                                      "(atp app add)", protocol)},
                           "INSWITCH_APP", int)
        kw["dev"] = _required(env, "INSWITCH_DEV", "the interface towards the switch", protocol)
    verify = _value(env, "INSWITCH_VERIFY", "bool") if env.get("INSWITCH_VERIFY") else True
    return protocol, kw, verify


def _extension():
    """inswitch._c10d: at INSWITCH_TORCH_EXT, next to this package (installed), or next to the
    libinswitch-host in use (a build tree)."""
    env = os.environ.get("INSWITCH_TORCH_EXT")
    if env:
        paths = [env]
    else:
        paths = []
        for d in (os.path.dirname(os.path.abspath(__file__)),
                  os.path.dirname(os.path.abspath(_native.lib.path))):
            paths += sorted(glob.glob(os.path.join(d, "_c10d.cpython-*.so")))
    for path in paths:
        if os.path.exists(path):
            loader = importlib.machinery.ExtensionFileLoader(__package__ + "._c10d", path)
            spec = importlib.util.spec_from_file_location(__package__ + "._c10d", path,
                                                          loader=loader)
            mod = importlib.util.module_from_spec(spec)
            loader.exec_module(mod)
            return mod
    raise ImportError("inswitch._c10d (the torch backend's extension) not found next to the "
                      "package or to %s: build inswitch with libtorch-dev and pybind11-dev "
                      "installed (scripts/deps.sh), or set INSWITCH_TORCH_EXT"
                      % _native.lib.path)


_c10d = _extension()
ProcessGroupInswitch = _c10d.ProcessGroupInswitch


def _addr(fn):
    return ctypes.cast(fn, ctypes.c_void_p).value


def _create(opts, pg_options):
    """torch's creator (extended API): the gloo group, then the communicator for the default
    group."""
    store, rank, size = opts.store, opts.group_rank, opts.group_size
    gloo = dist.ProcessGroupGloo(dist.PrefixStore("gloo/", store), rank, size, opts.timeout)
    if opts.global_ranks_in_group:
        warnings.warn("inswitch backend: the group of ranks %s runs on gloo: only the default "
                      "group goes through the switch" % list(opts.global_ranks_in_group),
                      stacklevel=3)
        return ProcessGroupInswitch(gloo, rank, size, "gloo", 0, 0, 0, 0, False)
    protocol, kw, verify = config()
    if protocol == "syncagtr":
        comm = SyncAgtr(rank, size, kw.pop("switch_ip"), **kw)
        fns = (_native.lib.isw_sa_allreduce, _native.lib.isw_sa_stats, _native.lib.isw_sa_close)
    else:
        comm = ATP(rank, size, kw.pop("app"), kw.pop("dev"), **kw)
        fns = (_native.lib.isw_atp_allreduce, _native.lib.isw_atp_stats,
               _native.lib.isw_atp_close)
    handle, comm._h = comm._h, None  # the group owns it now, and closes it when destroyed
    return ProcessGroupInswitch(gloo, rank, size, protocol, handle, *map(_addr, fns), verify)


dist.Backend.register_backend(BACKEND, _create, extended_api=True)


def stats(group=None):
    """The counters of an inswitch group (the default one when None): the communicator's
    (jobs, elements, packets, retransmits, results, duplicates, verified, seconds) and the
    backend's (switch_calls, switch_elements, copied: calls through a contiguous copy,
    fallbacks: all_reduces sent to gloo)."""
    pg = group if group is not None else dist.distributed_c10d._get_default_group()
    if not isinstance(pg, ProcessGroupInswitch):
        raise TypeError("not an inswitch process group: %r" % pg)
    return pg.stats()
