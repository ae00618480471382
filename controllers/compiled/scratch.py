"""What a compiled robot's one-robot calls need but need not own: its random stream as the typed
list compiled code draws from (made in compiled code: typed.List's own constructor costs ~150 us a
robot; the fused engine joins the robots' lists into one the same way), and the record buffers a
callback writes into, one set per thread (a thread's calls run one after another and each call's
records are collected before the next; RECORD_CAPACITY rows a robot would be 130 KB each, 1.3 GB for
10,000 robots).
"""

from __future__ import annotations

import threading

import numpy as np
from numba import njit, typed

from controllers.compiled.kilolib import RECORD_CAPACITY
from jit.calls import bound_overload

_LOCAL = threading.local()


@njit(cache=True)
def _listed(rng: np.random.Generator) -> typed.List:
    out = typed.List()
    out.append(rng)
    return out


_LISTED: list = []
"""_listed's machine code once it has run (numba's dispatcher types a generator in ~70 us)."""


def own_stream(rng: np.random.Generator) -> typed.List:
    """[rng] as a typed list (the generator shared, not copied)."""
    if _LISTED:
        return _LISTED[0](rng)
    out = _listed(rng)
    _LISTED.append(bound_overload(_listed, (rng,)))
    return out


@njit(cache=True)
def _first_of(one: typed.List) -> typed.List:
    out = typed.List()
    out.append(one[0])
    return out


@njit(cache=True)
def _append_first(out: typed.List, one: typed.List) -> None:
    out.append(one[0])


_JOIN: list = []
"""_first_of's and _append_first's machine code once they have run."""


def joined(streams: list[typed.List]) -> typed.List:
    """One typed list of the generators of these one-generator lists, in order (shared, not copied): a
    call per list through its machine code, about 3 us, where a Python list of generators handed to
    numba costs a typing per generator (about 12 us)."""
    if not _JOIN:
        out = _first_of(streams[0])
        _append_first(out, streams[0])
        _JOIN.extend((bound_overload(_first_of, (streams[0],)), bound_overload(_append_first, (out, streams[0]))))
    first, append = _JOIN
    out = first(streams[0])
    for one in streams[1:]:
        append(out, one)
    return out


def record_buffers() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """This thread's (rows: t_ns, node, channel; values; count) for kilolib's record()."""
    buffers = getattr(_LOCAL, "records", None)
    if buffers is None:
        buffers = _LOCAL.records = (np.zeros((RECORD_CAPACITY, 3), dtype=np.int64), np.zeros(RECORD_CAPACITY),
                                    np.zeros(1, dtype=np.int64))
    return buffers
