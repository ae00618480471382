"""ObstacleAvoider's compiled test of the way ahead gives the numpy reference's answer."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from controllers.library.avoider_compiled import clear_ahead
from tests.controllers.library.avoider_reference import clear_ahead_numpy

pytestmark = pytest.mark.kernels  # also run bounds-checked: `make test`, NUMBA_BOUNDSCHECK=1

CONFIG = Path(__file__).resolve().parents[3] / "configs" / "ground_robots.yaml"


def test_the_compiled_test_agrees_with_numpy_on_random_fans_ties_nan_and_narrow_views():
    rng = np.random.default_rng(5)
    cases, clear = 0, 0
    for k in range(4000):
        n = int(rng.integers(1, 30))
        angles = np.arange(n) * (2 * math.pi / n) if k % 2 else np.sort(rng.uniform(-4, 4, n))
        d = rng.choice([0.02, 0.05, 0.08, 0.1], n) if k % 3 else rng.uniform(0, 0.1, n)
        if k % 17 == 0:
            d[rng.integers(n)] = np.nan
        travel = float(rng.choice([0.0, math.pi, -math.pi, rng.uniform(-9, 9)]))
        half_fov = float(rng.choice([1e-6, 0.3, math.pi / 4, math.pi / 2, math.pi]))
        want = clear_ahead_numpy(angles, d, travel, half_fov, 0.05)
        assert clear_ahead(angles, d, travel, half_fov, 0.05) == want, (angles, d, travel, half_fov)
        cases, clear = cases + 1, clear + want
    assert 0.2 * cases < clear < 0.8 * cases  # both answers were exercised
