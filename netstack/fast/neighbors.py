"""The fast radio's cell index: who may be within range of a point (the pair searches of the
world's collisions are physics.pairs)."""

from __future__ import annotations

import math

import numpy as np

_OFFSETS = np.array([(dx, dy, dz) for dx in (-1, 0, 1) for dy in (-1, 0, 1) for dz in (-1, 0, 1)], dtype=np.int64)


def _cell_keys(cells: np.ndarray, lo: np.ndarray, dims: np.ndarray) -> np.ndarray:
    c = cells - lo
    return (c[:, 0] * dims[1] + c[:, 1]) * dims[2] + c[:, 2]


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
