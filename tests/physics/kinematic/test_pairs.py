"""The compiled pair searches find every pair within a radius, in lexicographic order: brute force's
answer, and the numpy reference's."""

from __future__ import annotations

import numpy as np
import pytest

from physics.kinematic.pairs import brute_pairs, column_pairs
from tests.physics.kinematic import pairs_reference as reference

pytestmark = pytest.mark.kernels  # also run bounds-checked: `make test`, NUMBA_BOUNDSCHECK=1


def sets(rng: np.random.Generator):
    """Point sets and radii: the edge cases, then random clouds, clusters and flat swarms."""
    yield np.zeros((2, 3)), 0.5
    yield np.array([[0.0, 0, 0], [0.5, 0, 0]]), 0.5  # exactly at the radius counts
    yield np.array([[0, 0, 0], [1.0, 0, 0], [2.0, 0, 0], [1.0, 1.0, 0], [3.0, 0.0, 0.0]]), 1.0  # on cell borders
    yield np.zeros((6, 3)), 0.2  # all in one spot
    yield np.column_stack([np.linspace(-3, 3, 50), np.zeros(50), np.zeros(50)]), 0.13  # a line
    for k in range(30):
        n = int(rng.integers(2, 400))
        side = float(rng.choice([1.0, 10.0, 100.0]))
        pos = rng.uniform(-side, side, (n, 3)) * [1, 1, 0.1 * (k % 3)]
        if k % 4 == 0:  # clusters
            pos = rng.normal(0, 0.2, (n, 3)) + rng.integers(0, 4, (n, 1)) * 5.0
        yield pos, float(rng.choice([0.05, 0.17, 0.5, 2.0]))


def test_the_column_search_finds_brute_forces_pairs_in_order():
    found = 0
    for pos, r in sets(np.random.default_rng(2)):
        want = reference.brute_pairs(pos, r)
        assert np.array_equal(brute_pairs(pos, r), want), (len(pos), r)
        assert np.array_equal(column_pairs(pos, r), want), (len(pos), r)
        found += len(want)
    assert found > 1000
    pos = np.array([[0, 0, 0], [1.0, 0, 0], [2.0, 0, 0], [1.0, 1.0, 0], [3.0, 0.0, 0.0]])
    assert column_pairs(pos, 1.0).tolist() == [[0, 1], [1, 2], [1, 3], [2, 4]]


@pytest.mark.parametrize("n, spread", [(300, 5.0), (2000, 30.0), (500, 0.5)])
def test_the_column_search_is_the_numpy_references(n, spread):
    rng = np.random.default_rng(n)
    pos = np.column_stack([rng.uniform(0, spread, n), rng.uniform(0, spread, n), rng.uniform(0, 0.3, n)])
    pos[:50, 1] = 1.0  # ties in the sort key (robots in a line)
    got = column_pairs(pos, 0.4)
    assert np.array_equal(got, reference.column_pairs(pos, 0.4)) and len(got) > 0


def test_columns_far_apart_are_searched_through_sorted_keys():
    """Columns spread much wider than the swarm is numerous: sorted keys instead of a column table."""
    rng = np.random.default_rng(9)
    pos = np.column_stack([rng.uniform(0, 5000, 200), rng.uniform(0, 1, 200), np.zeros(200)])
    pos[100:] = pos[:100] + rng.uniform(-0.2, 0.2, (100, 3))
    got = column_pairs(pos, 0.4)
    assert np.array_equal(got, reference.brute_pairs(pos, 0.4)) and len(got) >= 50
