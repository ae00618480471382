"""Calling a compiled kernel many times with arguments of unchanging types, without numba's dispatch.

A numba dispatcher works out every argument's type at every call to pick the machine code: about
5 us for a kernel of forty arrays, two of them namedtuples, which costs more than a small swarm's
whole step. Once the first call has picked it, the chosen overload's own entry point takes the same
arguments and runs the same machine code, only unpacking them.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

log = logging.getLogger(__name__)


def bound_overload(kernel, args: tuple) -> Callable:
    """The machine code `kernel` (a numba dispatcher) runs for arguments typed like `args`, callable
    with such arguments; `kernel` itself where numba does not offer it. Call it only with arguments
    of exactly those types (the same arrays, or arrays of the same dtype, dimensions and layout)."""
    try:
        signature = tuple(kernel.typeof_pyval(a) for a in args)
        return kernel.overloads[signature].entry_point
    except (AttributeError, KeyError) as exc:  # not compiled for these types yet, or another numba
        log.debug("no bound overload of %s (%s): through its dispatcher", getattr(kernel, "__name__", kernel), exc)
        return kernel


class BoundCalls:
    """Kernels called through their bound overloads (bound_overload), each bound at its first call:
    for an object that calls a few kernels many times with arguments of unchanging types."""

    def __init__(self) -> None:
        self._bound: dict[object, Callable] = {}

    def __call__(self, kernel, *args):
        fn = self._bound.get(kernel)
        if fn is not None:
            return fn(*args)
        out = kernel(*args)
        self._bound[kernel] = bound_overload(kernel, args)
        return out
