"""The pairs of robots close enough to touch, kept from step to step: a Verlet list of the pairs within
twice the reach, rebuilt by a fresh search (physics.kinematic.pairs.column_pairs) when some robot has moved
nearly half the reach since, and filtered to the pairs within reach at every step. The answer is the
fresh search's, pair for pair and in order, however often the list is rebuilt.

Both engines step the kinematic world through one record of this kind, so they share the list too.
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np
from numba import njit

from physics.kinematic.pairs import column_pairs

Verlet = namedtuple("Verlet", ["ref", "cand", "state"])
"""A kept list: the positions when it was built (`ref`), room for its candidate pairs (`cand`) and
state = candidates kept, valid (0: build at the next call), rebuilds so far."""

ROWS_PER_ROBOT = 16
"""Room for candidate pairs per robot: packed discs of one size have about 7 others within twice
their reach. A crowd that needs more is searched afresh at every step, with the same answer."""


def verlet_of(n: int) -> Verlet:
    """An empty list for n robots (built at its first use)."""
    return Verlet(np.zeros((n, 3)), np.zeros((ROWS_PER_ROBOT * n + 64, 2), np.int64), np.zeros(3, np.int64))


@njit(cache=True)
def _d2(pos: np.ndarray, ref: np.ndarray, i: int, j: int) -> float:
    x = pos[i, 0] - ref[j, 0]
    y = pos[i, 1] - ref[j, 1]
    z = pos[i, 2] - ref[j, 2]
    return (x * x + z * z) + y * y


@njit(cache=True)
def _moved_far(pos: np.ndarray, ref: np.ndarray, limit: float) -> bool:
    """Whether some robot is more than `limit` from where it was when the list was built."""
    l2 = limit * limit
    for i in range(len(pos)):
        if _d2(pos, ref, i, i) > l2:
            return True
    return False


@njit(cache=True)
def touching(v: Verlet, pos: np.ndarray, reach: float) -> np.ndarray:
    """Every pair i < j within reach (distance <= reach), in lexicographic order."""
    state = v.state
    cand = v.cand
    if len(pos) < 2 or not reach > 0:
        return cand[:0]
    if not state[1] or _moved_far(pos, v.ref, 0.49 * reach):  # 0.49: a margin far above rounding
        found = column_pairs(pos, 2.0 * reach)
        state[2] += 1
        if len(found) > len(cand):  # too crowded to keep: this step's pairs from a fresh search
            state[1] = 0
            return column_pairs(pos, reach)
        cand[:len(found)] = found
        state[0] = len(found)
        state[1] = 1
        v.ref[:] = pos
    r2 = reach * reach
    kept = cand[:state[0]]
    keep = np.empty(len(kept), dtype=np.bool_)
    for t in range(len(kept)):
        keep[t] = _d2(pos, pos, kept[t, 0], kept[t, 1]) <= r2
    return kept[keep]
