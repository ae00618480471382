"""Start layouts: the line Kilombo's benchmark uses, the ring of Bianchi's saturation workload."""

import numpy as np
import pytest

from cosim.scenario.layouts import LineLayout, RingLayout


def test_a_line_layout_steps_from_its_start():
    pts = LineLayout((0.0, 1.0, 0.5), (-0.05, 0.0, 0.0)).positions(4, np.random.default_rng(0))
    assert np.allclose(pts, [[0, 1, 0.5], [-0.05, 1, 0.5], [-0.10, 1, 0.5], [-0.15, 1, 0.5]])


def test_a_line_needs_a_step():
    with pytest.raises(ValueError, match="step must not be zero"):
        LineLayout((0.0, 0.0, 0.0), (0.0, 0.0, 0.0))


def test_a_ring_puts_every_robot_at_the_radius_evenly_spaced():
    pts = RingLayout((1.0, 2.0, 0.5), 2.5, 90.0).positions(4, np.random.default_rng(0))
    assert np.allclose(pts, [[1.0, 4.5, 0.5], [-1.5, 2.0, 0.5], [1.0, -0.5, 0.5], [3.5, 2.0, 0.5]])
    many = RingLayout(radius=2.5).positions(50, np.random.default_rng(0))
    assert np.allclose(np.hypot(many[:, 0], many[:, 1]), 2.5)
    gaps = np.hypot(*(many - np.roll(many, 1, axis=0))[:, :2].T)
    assert np.allclose(gaps, gaps[0]) and gaps[0] > 0.3


@pytest.mark.parametrize("kwargs, message", [({"radius": 0.0}, "radius must be > 0 metres, got 0.0"),
                                             ({"start_deg": 400.0}, "start_deg must be within -360..360 degrees")])
def test_a_ring_refuses_a_bad_radius_or_start(kwargs, message):
    with pytest.raises(ValueError, match=message):
        RingLayout(**kwargs)
