"""Modules generated for compiled programs, cached on disk so that later processes (a sweep's child
runs) load the machine code instead of compiling it again.

numba caches a function's machine code only for functions whose callees are module globals. A
program's callbacks are therefore made globals of a small generated module (one per program class;
the fused engine's, one per set of classes, is cosim.fused_engine.codegen's) in the project's cache folder (jit.cache, named by
a digest of the project's compiled code), under a file name holding a hash of the program's own
sources: change a program or the engine and a new module is compiled.
"""

from __future__ import annotations

import functools
import hashlib
import importlib.util
import inspect
import logging
import os
import sys
import warnings
from pathlib import Path
from types import ModuleType
from typing import Any

import numba
import numpy as np
from numba import typed, typeof
from numba.core.errors import NumbaError, NumbaWarning

from controllers.compiled import core, kilolib
from controllers.compiled.refusals import ProgramError, check_source, controller_command, explain, unknown_field
from jit import cache

log = logging.getLogger(__name__)

_loaded: dict[str, ModuleType] = {}


def _digest(texts: list[str]) -> str:
    h = hashlib.sha256(numba.__version__.encode())
    for t in texts:
        h.update(t.encode())
    return h.hexdigest()[:16]


def class_ref(cls: type) -> str:
    """The start of a line importing `cls` under a name the generated code gives it."""
    if "." in cls.__qualname__:
        raise ProgramError(f"{cls.__qualname__}: a compiled program must be a class at the top level of its module")
    return f"from {cls.__module__} import {cls.__name__} as "


def sources(classes: list[type]) -> list[str]:
    """The texts a generated module depends on: the classes' modules, the context and kilolib, and this generator."""
    files = {inspect.getsourcefile(c) for c in classes} | {core.__file__, kilolib.__file__, __file__}
    return [Path(f).read_text() for f in sorted(files)]


def load_generated(stem: str, text: str, depends: list[str]) -> ModuleType:
    """Write (once) and import the module `text` under a name hashed from it and `depends`, in the
    cache folder of this code (jit.cache): changed kernels it calls start a new folder."""
    name = f"cosim_generated_{stem}_{_digest([text, *depends])}"
    if name in _loaded:
        return _loaded[name]
    path = cache.programs() / f"{name}.py"
    if not path.exists() or path.read_text() != text:
        tmp = path.with_suffix(f".tmp{os.getpid()}")
        tmp.write_text(text)
        tmp.replace(path)  # atomic: concurrent sweep children never read half a file
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # numba's cache finds the module again by name
    spec.loader.exec_module(module)
    _loaded[name] = module
    return module


_NONE = {"alive": "ONE_ALIVE", "gi": "0", "pos": "NO_POS", "heading": "NO_HEADING", "in_dst": "NO_IN_DST",
         "in_src": "NO_IN_SRC", "in_t": "NO_IN_T", "in_len": "NO_IN_LEN", "in_payload": "NO_IN_PAYLOAD", "cmd": "NO_CMD",
         "out_src": "NO_OUT_SRC", "out_dst": "NO_OUT_DST", "out_payload": "NO_OUT_PAYLOAD", "out_n": "NO_OUT_N",
         "timers": "NO_TIMERS", "timer_n": "NO_TIMER_N"}
_NAMES = ", ".join(sorted(set(_NONE.values()) - {"0"}))
CONTEXT_IMPORTS = f"from controllers.compiled.core import Ctl, Msg, no_motors, pending, {_NAMES}"
"""The names a generated module's contexts use."""


def context(**given: str) -> str:
    """`k = Ctl(...)` (core.Ctl) in generated code: the fields `given` as expressions, the rest what a
    kind of call has none of (core's read-only NO_* arrays; row 0 alive)."""
    return "k = Ctl(" + ", ".join(given.get(f, _NONE.get(f, f)) for f in core.CTL_FIELDS) + ")"


def chain(selector: str, cases: list[tuple[object, list[str]]], indent: str) -> list[str]:
    """if/elif branches on the value of `selector`, one per (value, lines) case."""
    out = []
    for j, (value, body) in enumerate(cases):
        out.append(f"{indent}{'if' if j == 0 else 'elif'} {selector} == {value}:")
        out += [f"{indent}    {line}" for line in body]
    return out


def function(head: str, first: tuple[str, ...] | list[str] = (), selector: str = "",
             cases: list[tuple[object, list[str]]] | None = None, last: str | None = None, inline: bool = False) -> str:
    """The text of a compiled function (`head`: its name and arguments) that runs `first`, then the
    case whose value `selector` has, then `last` (reached when no case returned). Every generated
    function is one of these: the event engine's entry points (`entry`) and the fused loop's
    dispatchers (cosim.fused_engine.codegen)."""
    decorator = '@njit(cache=True, inline="always")' if inline else "@njit(cache=True)"
    lines = ["", "", decorator, f"def {head}:", *(f"    {line}" for line in first), *chain(selector, cases or [], "    ")]
    if last is not None:
        lines.append(f"    {last}")
    elif not cases and not first:
        lines.append("    pass")
    return "\n".join(lines) + "\n"


def entry(name: str, args: str, ctx: str, body: list[str]) -> str:
    """A compiled one-robot entry point `name(args)`: the records of an earlier, failed call dropped,
    the context `ctx` built, then `body`."""
    return function(f"{name}({args})", ("rec_n[0] = 0  # the records are collected after every call: rows left here are "
                                         "a failed call's", ctx, *body))


_HEAD = "from numba import njit\n" + CONTEXT_IMPORTS + "\n{ref}{alias}\n"
_PROGRAM_ARGS = "st, io, gens, params, rec_i, rec_v, rec_n, t_ns"
_PROGRAM_CONTEXT = context(now="t_ns / 1e9", t_ns="t_ns", me="io[0].uid", params="params[0]", gens="gens", io="io[0]",
                           rec_i="rec_i", rec_v="rec_v", rec_n="rec_n")
_PROGRAM_CALLS = (("setup", "", "setup", "_setup(st[0], k)", ()), ("loop", "", "loop", "_loop(st[0], k)", ()),
                  ("rx", ", msg, dist", "message_rx", "_rx(st[0], k, msg[0], dist[0])", ()),
                  ("tx", ", msg", "message_tx", "sent = bool(_tx(st[0], k, msg[0]))", ("return sent",)),
                  ("txs", "", "message_tx_success", "_txs(st[0], k)", ()))


@functools.cache
def program_module(cls: type) -> ModuleType:
    """The one-robot entry points of program `cls` (setup_one, loop_one, rx_one, tx_one, txs_one); once
    per class and process (each robot's controller asks: reading and hashing the sources is ~250 us)."""
    text = _HEAD.format(ref=class_ref(cls), alias="_P") + "".join(
        f"\n_{name} = _P.callbacks[{callback!r}]\n" + entry(f"{name}_one", _PROGRAM_ARGS + more, _PROGRAM_CONTEXT, [call, *after])
        for name, more, callback, call, after in _PROGRAM_CALLS)
    return load_generated(cls.__name__.lower(), text, sources([cls]))


_CONTROLLER_ARGS = ("st, now, t_ns, me, params, gens, io, pos, heading, cmd, out_src, out_dst, out_payload, out_n, rec_i, "
                    "rec_v, rec_n, timers, timer_n")
_CONTROLLER_CONTEXT = context(**{**{f: f for f in _CONTROLLER_ARGS.split(", ")[1:]}, "params": "params[0]", "io": "io[0]"})
_MESSAGE = ["inbound[:] = 0", "for j in range(min(len(data), len(inbound))):", "    inbound[j] = data[j]",
            "m = Msg(src, t, len(data), inbound, rssi)"]


@functools.cache
def controller_module(cls: type) -> ModuleType:
    """The one-robot entry points of compiled controller `cls`, `<callback>_one(state, *context)` for
    each callback (`on_message_one` also takes the message): each builds the context `k` (core.Ctl)
    from its arguments, calls the callback and returns whether it left commands to apply. Once per class
    and process, as program_module."""
    parts = []
    for name in cls.callbacks:
        heard = name == "on_message"
        body = [*(_MESSAGE if heard else []), f"_{name}(st[0], k{', m' if heard else ''})", "no_motors(k)", "return pending(k)"]
        parts.append(f"\n_{name} = _C.callbacks[{name!r}]\n"
                     + entry(f"{name}_one", _CONTROLLER_ARGS + (", inbound, src, t, data, rssi" if heard else ""),
                             _CONTROLLER_CONTEXT, body))
    return load_generated(f"ctl_{cls.__name__.lower()}", _HEAD.format(ref=class_ref(cls), alias="_C") + "".join(parts),
                          sources([cls]))


def check_compiles(cls: type, entries: ModuleType, values: Any) -> None:
    """Compile every callback of `cls` now, for the types it will run with; a construct outside the
    subset raises ProgramError naming the file, the line and the construct."""
    from controllers.compiled.kilolib import DISTANCE_DTYPE, IO_DTYPE, MESSAGE_DTYPE

    check_source(cls)
    base = (np.zeros(1, cls.dtype), np.zeros(1, IO_DTYPE), typed.List([np.random.default_rng(0)]), values,
            np.zeros((1, 3), np.int64), np.zeros(1), np.zeros(1, np.int64), 0)
    extra = {"rx_one": (np.zeros(1, MESSAGE_DTYPE), np.zeros(1, DISTANCE_DTYPE)), "tx_one": (np.zeros(1, MESSAGE_DTYPE),)}
    for entry in ("setup_one", "loop_one", "rx_one", "tx_one", "txs_one"):
        args = base + extra.get(entry, ())
        try:
            with warnings.catch_warnings():  # numba's warnings on the way to a refusal are noise
                warnings.simplefilter("ignore", NumbaWarning)
                getattr(entries, entry).compile(tuple(typeof(a) for a in args))
        except NumbaError as exc:
            raise (controller_command(cls, exc) or explain(cls, exc)) from None
        except KeyError as exc:  # numba's answer to a record field that does not exist
            raise unknown_field(cls, str(exc.args[0])) from None
