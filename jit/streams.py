"""Random streams as the typed lists compiled code draws from: a numpy Generator handed to compiled
code directly is unboxed at every call, through three `ctypes.cast` calls in Python (microseconds,
and a signal handler that raises in them makes numba read a null pointer); a typed list holding it
is unboxed as one pointer. Made in compiled code: typed.List's own constructor costs ~150 us; the
generator is shared, not copied, so numpy and compiled code draw from one stream."""

from __future__ import annotations

import numpy as np
from numba import njit, typed

from jit.calls import bound_overload


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
