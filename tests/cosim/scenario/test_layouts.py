"""Start layouts: the line layout Kilombo's benchmark uses."""

import numpy as np
import pytest

from cosim.scenario.layouts import LineLayout


def test_a_line_layout_steps_from_its_start():
    pts = LineLayout((0.0, 1.0, 0.5), (-0.05, 0.0, 0.0)).positions(4, np.random.default_rng(0))
    assert np.allclose(pts, [[0, 1, 0.5], [-0.05, 1, 0.5], [-0.10, 1, 0.5], [-0.15, 1, 0.5]])


def test_a_line_needs_a_step():
    with pytest.raises(ValueError, match="step must not be zero"):
        LineLayout((0.0, 0.0, 0.0), (0.0, 0.0, 0.0))
