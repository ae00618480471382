"""`borrow`: the same arrays, no reference counting inside a compiled call."""

from __future__ import annotations

import sys
from collections import namedtuple

import numpy as np
from numba import njit, typed

from jit.borrow import borrow

Pair = namedtuple("Pair", ["a", "items"])


@njit
def _write_through(p, k):
    q = borrow(p)
    q.a[k] += 1.0
    return len(q.items) + q.a.sum()


@njit
def _counted(p):
    q = borrow(p)
    return q.a.ctypes.data


def test_a_borrowed_array_is_the_same_memory_and_leaves_counts_alone():
    a = np.zeros(4)
    items = typed.List([1, 2, 3])
    p = Pair(a, items)
    before = sys.getrefcount(a), sys.getrefcount(items)
    for k in range(1000):
        total = _write_through(p, k % 4)
    assert a.tolist() == [250.0] * 4
    assert total == 3 + 1000.0
    assert _counted(p) == a.ctypes.data
    assert (sys.getrefcount(a), sys.getrefcount(items)) == before


@njit
def _draw(gens, k):
    g = borrow(gens)
    return g[k].random(), len(g)


def test_a_borrowed_typed_list_reads_the_same_items():
    """The robots' random streams reach compiled callbacks as a borrowed typed list: draws advance the
    very generators Python holds, and the list outlives every call."""
    gens = [np.random.default_rng(s) for s in range(3)]
    listed = typed.List(gens)
    draws = [_draw(listed, 1) for _ in range(5)]
    assert draws == [(x, 3) for x in np.random.default_rng(1).random(5).tolist()]
    assert gens[1].random() == np.random.default_rng(1).random(6)[5]
    assert len(listed) == 3 and sys.getrefcount(listed) == 2
