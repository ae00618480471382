import numpy as np
import pytest

from netstack.fast.neighbors import CellIndex, VerletPairs, pairs_within, pairs_within_brute, pairs_within_columns


def cloud(n, spread, seed):
    rng = np.random.default_rng(seed)
    return rng.uniform(-spread, spread, size=(n, 3)) * (1, 1, 0.2)


@pytest.mark.parametrize(("n", "spread", "radius"), [(2, 1, 5), (50, 10, 2), (300, 30, 1.5), (2000, 50, 0.8), (3000, 20, 4.0),
                                                     (1500, 5, 0.3)])
def test_cell_search_finds_exactly_the_brute_force_pairs(n, spread, radius):
    pos = cloud(n, spread, n)
    expected = pairs_within_brute(pos, radius)
    assert len(expected) > 0 or n == 2
    assert np.array_equal(pairs_within_columns(pos, radius), expected)
    assert np.array_equal(pairs_within(pos, radius), expected)


def test_points_exactly_at_the_radius_and_on_cell_borders_count():
    pos = np.array([[0, 0, 0], [1.0, 0, 0], [2.0, 0, 0], [1.0, 1.0, 0], [3.0, 0.0, 0.0]])
    assert pairs_within_columns(pos, 1.0).tolist() == pairs_within_brute(pos, 1.0).tolist() == [[0, 1], [1, 2], [1, 3], [2, 4]]


def test_cell_index_candidates_cover_everyone_in_range():
    pos = cloud(5000, 200, 1)
    idx = CellIndex(pos, 15.0)
    for i in (0, 17, 4999):
        d = np.linalg.norm(pos - pos[i], axis=1)
        assert set(np.nonzero(d <= 15.0)[0]) <= set(idx.candidates(pos[i]).tolist())


def test_verlet_pairs_match_a_fresh_search_at_every_step():
    """A random walk of 400 points, steps of a few percent of the radius: the kept candidate list
    gives exactly the pairs of a fresh search, in the same order, with far fewer searches."""
    rng = np.random.default_rng(11)
    pos = rng.uniform(0, 12, (400, 3))
    pos[:, 2] = 0.0
    verlet = VerletPairs()
    found = 0
    for _ in range(60):
        pos += rng.normal(0, 0.01, pos.shape) * [1, 1, 0]
        got = verlet(pos, 0.5)
        assert np.array_equal(got, pairs_within(pos, 0.5))
        found += len(got)
    assert found > 60 * 50
    assert 2 <= verlet.rebuilds <= 20
    pos[0] += 5.0  # a jump (a teleported robot) forces a rebuild
    before = verlet.rebuilds
    assert np.array_equal(verlet(pos, 0.5), pairs_within(pos, 0.5)) and verlet.rebuilds == before + 1
    assert np.array_equal(verlet(pos, 0.7), pairs_within(pos, 0.7)) and verlet.rebuilds == before + 2


def test_verlet_pairs_refuse_a_nonpositive_skin():
    with pytest.raises(ValueError, match="skin_fraction must be positive, got 0"):
        VerletPairs(0.0)
