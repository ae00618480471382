"""The compiled pair search gives the numpy sweep's pairs in the numpy sweep's order."""

from __future__ import annotations

import numpy as np
import pytest

from netstack.fast.neighbors import pairs_within_brute, pairs_within_columns


def _columns_numpy(pos: np.ndarray, radius: float) -> np.ndarray:
    """The numpy column sweep the kernel replaced (sort=False), kept here as the reference."""
    n = len(pos)
    x, y = pos[:, 0], pos[:, 1]
    col = np.floor((x - x.min()) / radius)
    y0 = y - y.min()
    span = float(y0.max()) + 2.0 * radius + 1.0
    key = col * span + y0
    order = np.argsort(key)
    k = key[order]
    out_a, out_b = [], []
    active = np.nonzero(k[1:] - k[:-1] <= radius)[0]
    s = 1
    while len(active):
        out_a.append(active)
        out_b.append(active + s)
        s += 1
        active = active[active + s < n]
        active = active[k[active + s] - k[active] <= radius]
    j = np.searchsorted(k, k + (span - radius), side="left")
    limit = k + (span + radius)
    active = np.arange(n)
    while len(active):
        ok = j < n
        active, j = active[ok], j[ok]
        ok = k[j] <= limit[active]
        active, j = active[ok], j[ok]
        out_a.append(active)
        out_b.append(j)
        j = j + 1
    a = order[np.concatenate(out_a)]
    b = order[np.concatenate(out_b)]
    d = pos[a] - pos[b]
    near = np.einsum("ij,ij->i", d, d) <= radius * radius
    a, b = a[near], b[near]
    return np.stack([np.minimum(a, b), np.maximum(a, b)], axis=1)


@pytest.mark.parametrize("n, spread", [(300, 5.0), (2000, 30.0), (500, 0.5)])
def test_column_pairs_match_the_numpy_sweep_in_order(n, spread):
    rng = np.random.default_rng(n)
    pos = np.column_stack([rng.uniform(0, spread, n), rng.uniform(0, spread, n), rng.uniform(0, 0.3, n)])
    pos[:50, 1] = 1.0  # ties in the sort key (robots in a line)
    assert np.array_equal(pairs_within_columns(pos, 0.4, sort=False), _columns_numpy(pos, 0.4))


def test_brute_pairs_match_the_upper_triangle():
    rng = np.random.default_rng(2)
    pos = rng.uniform(0, 2, (60, 3))
    diff = pos[:, None, :] - pos[None, :, :]
    d2 = np.einsum("ijk,ijk->ij", diff, diff)
    i, j = np.nonzero(np.triu(d2 <= 0.5 * 0.5, k=1))
    assert np.array_equal(pairs_within_brute(pos, 0.5), np.stack([i, j], axis=1))


def test_reach_one_matches_the_numpy_dead_reckoning():
    from netstack.fast.pair_kernels import reach_one

    rng = np.random.default_rng(3)
    pos, vel = rng.normal(0, 10, (200, 3)), rng.normal(0, 2, (200, 3))
    alive = rng.random(200) > 0.2
    cand = np.arange(200)
    for dt in (0.0, 0.0375):
        got, dist = reach_one(pos, vel, dt, alive, cand, 7)
        keep = cand[(cand != 7) & alive[cand]]
        at = pos if dt == 0.0 else pos + vel * dt
        d = at[keep] - at[7]
        assert np.array_equal(got, keep) and np.array_equal(dist, np.sqrt(np.einsum("ij,ij->i", d, d)))
