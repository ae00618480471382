"""The single sends' cell index: its candidates hold everyone a frame may reach, ascending, while it
is valid; it is rebuilt when nodes have moved far, and answers "everyone" when it cannot know."""

from __future__ import annotations

import numpy as np
import pytest

from netstack.fast.cells import FEW_CELLS, MIN_NODES, candidates, cells_of, index

pytestmark = pytest.mark.kernels  # also run bounds-checked: `make test`, NUMBA_BOUNDSCHECK=1


def _in_range(pos, vel, src, dt, r):
    p = pos + vel * dt
    return set(np.nonzero(np.linalg.norm(p - p[src], axis=1) <= r)[0].tolist())


@pytest.mark.parametrize("spread", [30.0, 3000.0])  # a table of cell starts; columns found by binary search
def test_candidates_cover_everyone_in_range_as_nodes_move(spread):
    rng = np.random.default_rng(1)
    n, r = 2000, 15.0
    pos = rng.uniform(-spread, spread, (n, 3)) * [1, 1, 0.05]
    vel = rng.normal(0, 1.0, (n, 3)) * [1, 1, 0]
    c = cells_of(n)
    narrowed = 0
    for step in range(40):
        pos += vel * 0.1
        index(c, pos, vel, r)
        for src in (0, 17, n - 1):
            m = candidates(c, n, src, 0.05)
            got = c.cand[:m]
            assert np.all(np.diff(got) > 0), step
            assert _in_range(pos, vel, src, 0.05, r) <= set(got.tolist()), step
            narrowed += m < n
    assert narrowed == 120 if spread > 100 else narrowed > 0
    assert (c.grid.shape[5] == 0.0) == (spread > 100) and c.state[2] == 1.0


def test_a_small_swarm_or_a_stale_index_gives_everyone():
    pos = np.zeros((MIN_NODES - 1, 3))
    c = cells_of(len(pos))
    index(c, pos, pos, 10.0)
    assert candidates(c, len(pos), 0, 0.0) == len(pos)
    n = 200
    pos = np.random.default_rng(2).uniform(0, 500, (n, 3))
    vel = np.full((n, 3), 3.0)
    c = cells_of(n)
    index(c, pos, vel, 10.0)
    assert candidates(c, n, 0, 0.0) < n
    assert candidates(c, n, 0, 1000.0) == n  # a thousand seconds of dead reckoning: nobody can be ruled out


def test_a_swarm_within_a_few_cells_gives_everyone():
    """200 nodes in a 40 m disc with a 30 m range: nine cells would hold nearly all of them."""
    rng = np.random.default_rng(3)
    pos = rng.uniform(-20, 20, (200, 3)) * [1, 1, 0]
    c = cells_of(200)
    index(c, pos, np.zeros_like(pos), 30.0)
    assert c.state[2] == 1.0 and c.grid.shape[3] * c.grid.shape[4] <= FEW_CELLS
    assert candidates(c, 200, 0, 0.0) == 200
