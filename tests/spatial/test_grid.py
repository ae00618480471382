"""The one cell index: every point with a finite x and y sits in the cell its position gives, each
cell's points ascending; a column's cells come back as one run, with a start table or by binary
search; a re-sort after small moves gives the fresh build's index."""

from __future__ import annotations

import math

import numpy as np
import pytest

from spatial.grid import NO_CELL, SHIFT, build, grid_of, run

pytestmark = pytest.mark.kernels  # also run bounds-checked: `make test`, NUMBA_BOUNDSCHECK=1


def _cells_by_hand(pos, cell):
    """Each cell's points, ascending, from plain Python arithmetic."""
    finite = [k for k in range(len(pos)) if math.isfinite(pos[k, 0]) and math.isfinite(pos[k, 1])]
    x0 = min(pos[k, 0] for k in finite)
    y0 = min(pos[k, 1] for k in finite)
    out: dict[tuple[int, int], list[int]] = {}
    for k in finite:
        out.setdefault((int((pos[k, 0] - x0) / cell), int((pos[k, 1] - y0) / cell)), []).append(k)
    return out


def _points(rng, n, spread):
    pos = rng.uniform(-spread, spread, (n, 3))
    pos[rng.choice(n, n // 20, replace=False), rng.integers(0, 2)] = np.nan  # some without a place
    pos[3] = [np.inf, 0.0, 0.0]
    return pos


@pytest.mark.parametrize("spread", [20.0, 5000.0, 1e6])  # cells in a start table; too many (two counting passes; a merge sort)
def test_each_column_run_holds_exactly_its_cells_points(spread):
    rng = np.random.default_rng(4)
    pos, cell = _points(rng, 500, spread), 3.0
    g = grid_of(len(pos))
    build(g, pos, cell, False)
    by_hand = _cells_by_hand(pos, cell)
    assert (g.shape[5] > 0) == (spread < 100)
    placed = int(g.shape[6])
    assert placed == sum(len(v) for v in by_hand.values())
    assert np.all(g.key[placed:] == NO_CELL) and np.all(np.diff(g.key[:placed]) >= 0)
    assert sorted(g.order.tolist()) == list(range(len(pos)))
    for (gx, gy), members in list(by_hand.items())[:60]:
        a, b = run(g, gx, gy, gy)
        assert g.order[a:b].tolist() == members
        a, b = run(g, gx, gy - 1, gy + 1)
        want = sorted(members + by_hand.get((gx, gy - 1), []) + by_hand.get((gx, gy + 1), []))
        assert sorted(g.order[a:b].tolist()) == want
    assert run(g, -1, 0, 5) == (0, 0) and run(g, int(g.shape[3]), 0, 5) == (0, 0)
    assert g.key[0] // SHIFT == min(k[0] for k in by_hand)


@pytest.mark.parametrize("spread", [20.0, 5000.0, 1e6])
def test_a_re_sort_after_small_moves_is_the_fresh_build(spread):
    rng = np.random.default_rng(5)
    pos = _points(rng, 400, spread)
    moved = grid_of(len(pos))
    build(moved, pos, 2.0, False)
    for _ in range(5):
        pos[:, :2] += rng.normal(0, 0.5, (len(pos), 2))
        build(moved, pos, 2.0, True)
        fresh = grid_of(len(pos))
        build(fresh, pos, 2.0, False)
        for a, b in zip(moved, fresh, strict=True):
            assert np.array_equal(a, b)


def test_no_point_placed_gives_an_empty_grid():
    pos = np.full((10, 3), np.nan)
    g = grid_of(10)
    build(g, pos, 1.0, False)
    assert g.shape[6] == 0 and run(g, 0, 0, 0) == (0, 0)


def test_widened_cells_fit_the_start_table_and_hold_the_same_points():
    rng = np.random.default_rng(6)
    pos = _points(rng, 300, 5000.0)
    g = grid_of(len(pos))
    build(g, pos, 3.0, False, True)
    cell = g.shape[2]
    assert g.shape[5] > 0 and cell >= 3.0 and math.log2(cell / 3.0).is_integer()
    assert g.shape[3] * g.shape[4] < len(g.start)
    for (gx, gy), members in list(_cells_by_hand(pos, cell).items())[:60]:
        a, b = run(g, gx, gy, gy)
        assert g.order[a:b].tolist() == members
