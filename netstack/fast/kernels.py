"""Pair searches and reach queries of the fast radio and the kinematic world, in numpy or compiled
with numba (netstack.fast.kernels_compiled): the same results in the same order either way
(tests/netstack/test_pair_kernels.py). `use_compiled()` switches this process to the compiled
ones, which cost about 0.4 s once and then save most of the per-call overhead; callers look the
functions up here at each call, so the switch reaches them.
"""

from __future__ import annotations

from netstack.fast import crossings_numpy as _crossings
from netstack.fast import kernels_numpy as _numpy

compiled = False
"""True once use_compiled() has switched this process to the numba kernels."""

xy_extent = _numpy.xy_extent
brute_pairs = _numpy.brute_pairs
column_pairs = _numpy.column_pairs
reach_one = _numpy.reach_one
sender_pairs = _numpy.sender_pairs
sender_pairs_cells = _numpy.sender_pairs_cells
max_displacement = _numpy.max_displacement
near_pairs = _numpy.near_pairs
obstacle_crossings = _crossings.crossings
sender_pairs_matrix = _numpy.sender_pairs
"""The numpy version, kept when the compiled one takes over: it is faster for large dense clusters."""


def use_compiled() -> None:
    """Switch this process to the numba kernels (same results, faster after a one-off load)."""
    global compiled, xy_extent, brute_pairs, column_pairs, reach_one, sender_pairs, sender_pairs_cells, max_displacement
    global near_pairs, obstacle_crossings
    if compiled:
        return
    from netstack.fast import kernels_compiled as k

    xy_extent, brute_pairs, column_pairs, reach_one = k.xy_extent, k.brute_pairs, k.column_pairs, k.reach_one
    sender_pairs, sender_pairs_cells = k.sender_pairs, k.sender_pairs_cells
    max_displacement, near_pairs = k.max_displacement, k.near_pairs
    from netstack.fast import crossings_compiled

    obstacle_crossings = crossings_compiled.crossings
    compiled = True
