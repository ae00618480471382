"""Ranges and bearings between robots, for many pairs at once, computed exactly as the single-pair
`net.range_to` / `net.bearing_to` do (so per-robot and group controllers agree to the last bit), and
the read-only views of the poses that controllers are handed."""

from __future__ import annotations

import math

import numpy as np

_TWO_PI = 2.0 * math.pi


def read_only(a: np.ndarray) -> np.ndarray:
    """A view of `a` that cannot be written through: a controller given the world's own arrays (to
    read without a copy) cannot change other robots' poses or the trace by writing into them."""
    view = a.view()
    view.flags.writeable = False
    return view


def wrap_angle(x: np.ndarray) -> np.ndarray:
    """Angles wrapped to [-pi, pi] as math.remainder(x, 2 pi) does."""
    return x - np.rint(x / _TWO_PI) * _TWO_PI


def ranges(pos: np.ndarray, me: np.ndarray, others: np.ndarray) -> np.ndarray:
    """Distance (m) from robots `me` to robots `others` (pairwise), summed as Python does."""
    d = pos[others] - pos[me]
    return np.sqrt(d[:, 0] * d[:, 0] + d[:, 1] * d[:, 1] + d[:, 2] * d[:, 2])


def bearings(pos: np.ndarray, headings: np.ndarray, me: np.ndarray, others: np.ndarray) -> np.ndarray:
    """Bearing (rad, in `me`'s frame, counter-clockwise) to `others`; math.atan2 because numpy's
    arctan2 differs from it in the last bit on some machines."""
    d = pos[others] - pos[me]
    angle = np.fromiter(map(math.atan2, d[:, 1].tolist(), d[:, 0].tolist()), dtype=np.float64, count=len(d))
    return wrap_angle(angle - headings[me])
