"""Fixed-radius neighbour search: a column cell list (near-linear time) and the brute-force reference."""

from __future__ import annotations

import math

import numpy as np

from netstack.fast import kernels

# Brute force below this many points, or when each point has many candidates and N is moderate
# (measured on the 2-core dev machine with benchmarks/neighbor_search.py).
BRUTE_FORCE_MAX_N = 64
DENSE_CANDIDATES = 30.0
DENSE_BRUTE_MAX_N = 5000

_OFFSETS = np.array([(dx, dy, dz) for dx in (-1, 0, 1) for dy in (-1, 0, 1) for dz in (-1, 0, 1)], dtype=np.int64)


def pairs_within_brute(pos: np.ndarray, radius: float) -> np.ndarray:
    """All pairs (i<j) with distance <= radius, checking every pair (compiled); shape (P, 2), row-major."""
    if len(pos) < 2:
        return np.zeros((0, 2), dtype=np.int64)
    return kernels.brute_pairs(np.ascontiguousarray(pos, dtype=np.float64), float(radius))


def _cell_keys(cells: np.ndarray, lo: np.ndarray, dims: np.ndarray) -> np.ndarray:
    c = cells - lo
    return (c[:, 0] * dims[1] + c[:, 1]) * dims[2] + c[:, 2]


def pairs_within_columns(pos: np.ndarray, radius: float) -> np.ndarray:
    """All pairs (i<j) within radius, in lexicographic order: cells of width `radius` in x, points
    sorted by y inside each column, and a sweep over the same and the next column (near-linear for
    sparse sets)."""
    if len(pos) < 2 or radius <= 0:
        return np.zeros((0, 2), dtype=np.int64)
    return kernels.column_pairs(np.ascontiguousarray(pos, dtype=np.float64), float(radius))


def pairs_within(pos: np.ndarray, radius: float) -> np.ndarray:
    """All pairs (i<j) within radius, in lexicographic order (so anything summed over them, such
    as collision pushes, does not depend on the search); brute force for few points or many
    candidates per point."""
    n = len(pos)
    if n <= BRUTE_FORCE_MAX_N:
        return pairs_within_brute(pos, radius)
    extent = kernels.xy_extent(np.ascontiguousarray(pos, dtype=np.float64))
    area = max(extent[0], radius) * max(extent[1], radius)
    candidates_per_point = n * 3.0 * radius * radius / area
    if candidates_per_point > DENSE_CANDIDATES and n <= DENSE_BRUTE_MAX_N:
        return pairs_within_brute(pos, radius)
    return pairs_within_columns(pos, radius)


class CellIndex:
    """A cell list over a snapshot of positions, answering 'who may be within r of this point'."""

    def __init__(self, pos: np.ndarray, cell_size: float) -> None:
        self.cell_size = float(cell_size)
        self.pos = pos
        cells = np.floor(pos / self.cell_size).astype(np.int64)
        self._lo = cells.min(axis=0) - 1
        self._dims = cells.max(axis=0) - self._lo + 2
        keys = _cell_keys(cells, self._lo, self._dims)
        self._order = np.argsort(keys, kind="stable")
        self._sorted = keys[self._order]
        self._by_cell: dict[tuple[int, int, int], np.ndarray] = {}  # answers so far, sorted (the index is a snapshot)

    def candidates_sorted(self, point: np.ndarray) -> np.ndarray:
        """`candidates(point)` in ascending order, remembered per cell (many senders share a cell)."""
        size = self.cell_size
        key = (math.floor(point[0] / size), math.floor(point[1] / size), math.floor(point[2] / size))
        found = self._by_cell.get(key)
        if found is None:
            found = self._by_cell[key] = np.sort(self.candidates(point))
        return found

    def candidates(self, point: np.ndarray) -> np.ndarray:
        """Indices of points in the 27 cells around `point` (a superset of those within cell_size)."""
        cell = np.floor(point / self.cell_size).astype(np.int64)
        nb = cell + _OFFSETS
        inside = np.all((nb >= self._lo) & (nb < self._lo + self._dims), axis=1)
        keys = _cell_keys(nb[inside], self._lo, self._dims)
        start = np.searchsorted(self._sorted, keys, side="left")
        stop = np.searchsorted(self._sorted, keys, side="right")
        return np.concatenate([self._order[a:b] for a, b in zip(start, stop) if b > a] or [np.zeros(0, np.int64)])


class VerletPairs:
    """`pairs_within` for points that move a little between calls (a swarm's collision check every
    physics step): a list of the pairs within radius + skin, kept until some point has moved nearly
    half the skin since it was built (a Verlet list), so most calls only re-measure those
    candidates. Same pairs in the same order as `pairs_within`, whenever it is rebuilt."""

    def __init__(self, skin_fraction: float = 1.0) -> None:
        if skin_fraction <= 0:
            raise ValueError(f"skin_fraction must be positive, got {skin_fraction}")
        self.skin_fraction = skin_fraction
        self.rebuilds = 0
        self._ref = np.zeros((0, 3))
        self._radius = -1.0
        self._candidates = np.zeros((0, 2), dtype=np.int64)

    def __call__(self, pos: np.ndarray, radius: float) -> np.ndarray:
        if len(pos) <= BRUTE_FORCE_MAX_N or radius <= 0:
            return pairs_within(pos, radius)
        pos = np.ascontiguousarray(pos, dtype=np.float64)
        skin = self.skin_fraction * radius
        # 0.49 rather than 0.5: a margin far above rounding for pairs right at radius + skin
        if (radius != self._radius or pos.shape != self._ref.shape
                or kernels.max_displacement(pos, self._ref) > 0.49 * skin):
            self._ref = pos.copy()
            self._radius = radius
            self._candidates = pairs_within(pos, radius + skin)
            self.rebuilds += 1
        return kernels.near_pairs(pos, self._candidates, radius)
