"""The compiled reach queries give the numpy reference's results in the same order."""

from __future__ import annotations

import numpy as np
import pytest

from netstack.fast import kernels as compiled
from netstack.fast.cells import SendIndex
from tests.netstack import kernels_reference as reference

pytestmark = pytest.mark.kernels  # also run bounds-checked: `make test`, NUMBA_BOUNDSCHECK=1


def _both(name: str, *args):
    return getattr(reference, name)(*args), getattr(compiled, name)(*args)


def _equal(a, b) -> bool:
    if isinstance(a, tuple):
        return all(_equal(x, y) for x, y in zip(a, b))
    return np.array_equal(np.asarray(a), np.asarray(b))


def test_a_single_sends_receivers_are_the_references():
    rng = np.random.default_rng(3)
    pos, vel = rng.normal(0, 10, (200, 3)), rng.normal(0, 2, (200, 3))
    alive = rng.random(200) > 0.2
    cand = np.arange(200)
    nodes, dist = np.empty(200, np.int64), np.empty(200)
    for dt in (0.0, 0.0375):
        found = []
        for limit in (np.inf, 16.0):
            want = reference.within(pos, vel, dt, alive, cand, 7, limit)
            found.append(compiled.within(pos, vel, dt, alive, cand, 200, 7, limit, nodes, dist))
            assert _equal((nodes[:found[-1]], dist[:found[-1]]), want)
        assert found[0] > found[1] > 20  # the limit leaves some out


def _index(pos: np.ndarray, vel: np.ndarray, range_m: float) -> SendIndex:
    room = SendIndex(len(pos), range_m)
    room.look(pos, vel)
    return room


@pytest.mark.parametrize("spread", [40.0, 2000.0])  # a start table of cells, and sorted keys searched
def test_many_senders_find_what_each_would_alone(spread):
    """reach_many through the index gives, sender by sender, the numpy reference's receivers among
    every node (the index only narrows the search), with positions dead-reckoned or not."""
    rng = np.random.default_rng(4)
    n = 800
    pos = np.column_stack([rng.uniform(0, spread, n), rng.uniform(0, spread, n), np.zeros(n)])
    pos[n // 2:, :2] = pos[: n // 2, :2] + rng.uniform(-2, 2, (n // 2, 2))  # everyone has a neighbour
    vel = np.column_stack([rng.normal(0, 1, (n, 2)), np.zeros(n)])
    alive = rng.random(n) > 0.1
    srcs = rng.choice(n, 60, replace=False)
    room = _index(pos, vel, 3.0)
    assert room.indexed and len(room.candidates(int(srcs[0]), 0.0)) < n // 4  # the index narrows
    for dt in (0.0, 0.05):
        got = compiled.reach_many(room.cells, pos, vel, dt, alive, srcs, 3.0, room.found, room.dist)
        want = [reference.within(pos, vel, dt, alive, np.arange(n), int(s), 3.0) for s in srcs]
        rows = np.concatenate([np.full(len(w[0]), r) for r, w in enumerate(want) if alive[srcs[r]]])
        nodes = np.concatenate([w[0] for r, w in enumerate(want) if alive[srcs[r]]])
        dists = np.concatenate([w[1] for r, w in enumerate(want) if alive[srcs[r]]])
        assert _equal(got, (rows, nodes, dists)) and len(rows) > 40


def test_a_crowd_larger_than_the_first_room_grows_it():
    """Every sender hears every other: more rows than the kernel's first room (8 per sender)."""
    rng = np.random.default_rng(6)
    n = 100
    pos, vel = rng.uniform(0, 5, (n, 3)), np.zeros((n, 3))
    alive = np.ones(n, dtype=bool)
    room = _index(pos, vel, 50.0)
    rows, nodes, _ = compiled.reach_many(room.cells, pos, vel, 0.0, alive, np.arange(n), np.inf, room.found, room.dist)
    assert len(rows) == n * (n - 1) and np.array_equal(np.bincount(rows), np.full(n, n - 1))
    assert all(np.array_equal(nodes[rows == r], np.delete(np.arange(n), r)) for r in range(n))
