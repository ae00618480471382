"""A kernel's bound overload runs the dispatcher's machine code for arguments of the same types."""

from __future__ import annotations

from collections import namedtuple

import numpy as np
from numba import njit

from jit.calls import BoundCalls, bound_overload

Pair = namedtuple("Pair", ["a", "b"])


@njit
def _scaled_sum(k, x, p):
    return k * (x.sum() + p.a.sum() - p.b.sum())


def test_the_bound_overload_gives_the_dispatchers_answers():
    x, p = np.arange(5.0), Pair(np.ones(3), np.full(2, 0.5))
    assert bound_overload(_scaled_sum, (2.0, x, p)) is _scaled_sum  # not compiled for these types yet
    want = _scaled_sum(2.0, x, p)
    fast = bound_overload(_scaled_sum, (2.0, x, p))
    assert fast is not _scaled_sum and fast(2.0, x, p) == want == 2.0 * (10.0 + 3.0 - 1.0)
    x[0] = 100.0  # the same arrays, changed: read afresh
    assert fast(3.0, x, p) == _scaled_sum(3.0, x, p)
    assert bound_overload(_scaled_sum, (2, x, p)) is _scaled_sum  # an int: another signature, not compiled


def test_anything_else_is_called_as_it_is():
    def plain(a):
        return a + 1

    assert bound_overload(plain, (1,)) is plain


@njit
def _doubled(x):
    return 2.0 * x.sum()


@njit
def _weighted(k, x, p):
    return k * (x.sum() + p.a.sum() - p.b.sum())


def test_bound_calls_bind_each_kernel_at_its_first_call():
    calls, x, p = BoundCalls(), np.arange(4.0), Pair(np.ones(3), np.zeros(2))
    assert calls(_weighted, 1.0, x, p) == 9.0 and calls(_doubled, x) == 12.0  # through the dispatchers, then bound
    x[:] = 1.0
    assert calls(_weighted, 2.0, x, p) == 14.0 and calls(_doubled, x) == 8.0  # each its own machine code
