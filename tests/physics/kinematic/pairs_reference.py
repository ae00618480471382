"""The pair searches in numpy: the reference the compiled ones (physics.kinematic.pairs) must match, pair for
pair and in order."""

from __future__ import annotations

import numpy as np


def brute_pairs(pos: np.ndarray, radius: float) -> np.ndarray:
    """All pairs i < j within radius, row-major."""
    diff = pos[:, None, :] - pos[None, :, :]
    d2 = np.einsum("ijk,ijk->ij", diff, diff)
    i, j = np.nonzero(np.triu(d2 <= radius * radius, k=1))
    return np.stack([i, j], axis=1).astype(np.int64)


def column_pairs(pos: np.ndarray, radius: float) -> np.ndarray:
    """All pairs i < j within radius, sorted lexicographically: cells of width `radius` in x, points
    sorted by y inside each column, and a sweep over the same and the next column."""
    n = len(pos)
    x, y = pos[:, 0], pos[:, 1]
    col = np.floor((x - x.min()) / radius)
    y0 = y - y.min()
    span = float(y0.max()) + 2.0 * radius + 1.0  # keys of different columns differ by more than radius
    key = col * span + y0
    order = np.argsort(key)  # stability is not needed: pairs are sorted at the end
    k = key[order]
    first_next = np.searchsorted(k, k + (span - radius), side="left")
    out_a, out_b = [], []
    active = np.nonzero(k[1:] - k[:-1] <= radius)[0]
    s = 1
    while len(active):
        out_a.append(active)
        out_b.append(active + s)
        s += 1
        active = active[active + s < n]
        active = active[k[active + s] - k[active] <= radius]
    j = first_next
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
    pairs = np.stack([np.minimum(a, b), np.maximum(a, b)], axis=1)
    return pairs[np.lexsort((pairs[:, 1], pairs[:, 0]))]
