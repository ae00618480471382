"""The kinematic world's compiled pair search finds every pair within reach, in lexicographic order."""

from __future__ import annotations

import numpy as np
import pytest

from physics.pair_kernels import grid_pairs, near_pairs

pytestmark = pytest.mark.kernels  # also run bounds-checked: `make test`, NUMBA_BOUNDSCHECK=1


def _brute(pos: np.ndarray, r: float) -> np.ndarray:
    d = pos[None, :, :] - pos[:, None, :]
    d2 = (d[..., 0] ** 2 + d[..., 2] ** 2) + d[..., 1] ** 2
    i, j = np.nonzero(np.triu(d2 <= r * r, 1))
    return np.column_stack([i, j]).astype(np.int64)


def _sets(rng: np.random.Generator):
    yield np.zeros((0, 3)), 0.5
    yield np.zeros((1, 3)), 0.5
    yield np.array([[0.0, 0, 0], [0.5, 0, 0]]), 0.5  # exactly at the radius counts
    yield np.zeros((6, 3)), 0.2  # all in one spot
    yield np.column_stack([np.linspace(-3, 3, 50), np.zeros(50), np.zeros(50)]), 0.13  # a line
    for k in range(30):
        n = int(rng.integers(2, 400))
        side = float(rng.choice([1.0, 10.0, 100.0]))
        pos = rng.uniform(-side, side, (n, 3)) * [1, 1, 0.1 * (k % 3)]
        if k % 4 == 0:  # clusters
            pos = rng.normal(0, 0.2, (n, 3)) + rng.integers(0, 4, (n, 1)) * 5.0
        yield pos, float(rng.choice([0.05, 0.17, 0.5, 2.0]))


def test_grid_pairs_are_brute_force_pairs_in_order():
    found = 0
    for pos, r in _sets(np.random.default_rng(2)):
        want = _brute(pos, r)
        got = grid_pairs(pos, r)
        assert np.array_equal(got, want), (len(pos), r)
        found += len(want)
    assert found > 1000
    assert len(grid_pairs(np.zeros((5, 3)), 0.0)) == 0  # no reach, no pairs


@pytest.mark.parametrize("speed", [0.001, 0.05])
def test_the_verlet_list_follows_moving_robots(speed):
    """Every step's pairs within reach are brute force's, whether the list was rebuilt or kept."""
    rng = np.random.default_rng(4)
    pos = rng.uniform(0, 6, (300, 3)) * [1, 1, 0]
    reach = 0.34
    ref, built, cand = np.zeros_like(pos), np.zeros(1, np.int64), np.zeros((0, 2), np.int64)
    rebuilds = 0
    for step in range(200):
        pos += rng.normal(0, speed, pos.shape) * [1, 1, 0]
        before = ref.copy()
        pairs, cand = near_pairs(pos, reach, ref, built, cand)
        rebuilds += not np.array_equal(before, ref)
        assert np.array_equal(pairs, _brute(pos, reach)), step
    assert built[0] == 1
    assert (rebuilds < 5) if speed < 0.01 else (rebuilds > 50)
