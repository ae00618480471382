"""The compiled reach queries give the numpy twins' results in the same order."""

from __future__ import annotations

import numpy as np
import pytest

from netstack.fast import kernels as compiled
from tests.netstack import kernels_reference as reference

pytestmark = pytest.mark.kernels  # also run bounds-checked: `make test`, NUMBA_BOUNDSCHECK=1


def _both(name: str, *args):
    return getattr(reference, name)(*args), getattr(compiled, name)(*args)


def _equal(a, b) -> bool:
    if isinstance(a, tuple):
        return all(_equal(x, y) for x, y in zip(a, b))
    return np.array_equal(np.asarray(a), np.asarray(b))


def test_extent():
    rng = np.random.default_rng(2)
    pos = rng.uniform(0, 2, (60, 3))
    assert _both("xy_extent", pos)[0] == pytest.approx(_both("xy_extent", pos)[1], rel=0, abs=0)


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


def test_sender_pairs_dense_and_cells():
    rng = np.random.default_rng(4)
    n = 800
    pos = np.column_stack([rng.uniform(0, 40, n), rng.uniform(0, 40, n), np.zeros(n)])
    alive = rng.random(n) > 0.1
    srcs = rng.choice(n, 60, replace=False)
    dense = _both("sender_pairs", pos, alive, srcs, 3.0)
    cells = _both("sender_pairs_cells", pos, alive, srcs, 3.0, 3.0)
    assert _equal(*dense) and _equal(*cells) and _equal(dense[0], cells[0]) and len(dense[0][0]) > 60


def test_sender_pairs_cells_sparse_keys():
    """Nodes spread far beyond the cell width: the compiled kernel searches sorted keys instead of a
    start table, with the same answer."""
    rng = np.random.default_rng(5)
    n = 300
    pos = np.column_stack([rng.uniform(0, 2000, n), rng.uniform(0, 2000, n), np.zeros(n)])
    pos[n // 2:, :2] = pos[: n // 2, :2] + rng.uniform(-2, 2, (n // 2, 2))  # everyone has a neighbour
    alive = np.ones(n, dtype=bool)
    srcs = rng.choice(n, 50, replace=False)
    dense = _both("sender_pairs", pos, alive, srcs, 3.0)
    cells = _both("sender_pairs_cells", pos, alive, srcs, 3.0, 3.0)
    assert _equal(*cells) and _equal(dense[0], cells[0]) and len(cells[0][0]) >= 40


def test_the_radios_matrix_pairs_give_the_compiled_rows_in_order():
    """reach picks the vectorised matrix for many senders in a dense cluster: the same rows as the kernel."""
    from netstack.fast.reach import SMALL_PAIRS, _matrix_pairs, reachable_many

    rng = np.random.default_rng(4)
    pos = rng.uniform(0, 10, (300, 3))
    alive = rng.random(300) > 0.1
    srcs = np.arange(0, 300, 2, dtype=np.int64)
    assert len(srcs) * len(pos) > SMALL_PAIRS  # reachable_many takes the matrix here
    want = compiled.sender_pairs(pos, alive, srcs, 4.0)
    assert len(want[0]) > 1000
    assert _equal(_matrix_pairs(pos, alive, srcs, 4.0), want)
    got = reachable_many(pos, alive, srcs, 4.0)
    assert _equal(got[:2], want[:2])
