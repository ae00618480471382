"""The kinematic world's step kernels, in numpy or compiled with numba (physics.kernels_compiled).

Both do exactly the same arithmetic in the same order, so a run gives the same trace either way
(tests/physics/test_kernels.py compares them). The compiled ones cost about 0.4 s once per process
(importing numba and loading the cached machine code) and then a few microseconds per step instead
of a few dozen numpy calls: `use_compiled()` switches this process to them, which the coordinator
does for runs big enough to pay for it. Callers look the functions up here at each call
(`kernels.move_points(...)`), so the switch reaches them.
"""

from __future__ import annotations

from physics import kernels_numpy as _numpy

compiled = False
"""True once use_compiled() has switched this process to the numba kernels."""

drive_step = _numpy.drive_step
drive_wheels = _numpy.drive_wheels
move_points = _numpy.move_points
push_apart = _numpy.push_apart
drive_writeback = _numpy.drive_writeback
drive_blocked = _numpy.drive_blocked


def use_compiled() -> None:
    """Switch this process to the numba kernels (same results, faster after a one-off load)."""
    global compiled, drive_step, drive_wheels, move_points, push_apart, drive_writeback, drive_blocked
    if compiled:
        return
    from physics import kernels_compiled as k

    drive_step, drive_wheels, move_points, push_apart = k.drive_step, k.drive_wheels, k.move_points, k.push_apart
    drive_writeback, drive_blocked = k.drive_writeback, k.drive_blocked
    compiled = True
