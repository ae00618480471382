"""The compiled exact IEEE remainder (headings in compiled kernels) against math.remainder."""

from __future__ import annotations

import math

import numpy as np

from physics.kinematic.kernels import remainder

TWO_PI = 2.0 * math.pi


def test_remainder_is_math_remainder_to_the_bit():
    """The fast paths (no turn, one turn either way) and the fmod path give math.remainder's bits."""
    rng = np.random.default_rng(1)
    edges = [math.pi, 3 * math.pi, 2 * TWO_PI, 0.5 * TWO_PI, 1.5 * TWO_PI, 2.5 * TWO_PI, 1e300, 5e-324, 0.0]
    values = [*rng.uniform(-12.0, 12.0, 20_000), *rng.uniform(-1e6, 1e6, 2_000)]
    for e in edges:
        for v in (e, -e):
            values += [v, np.nextafter(v, math.inf), np.nextafter(v, -math.inf)]
    for x in values:
        got, want = remainder(float(x), TWO_PI), math.remainder(float(x), TWO_PI)
        assert np.float64(got).tobytes() == np.float64(want).tobytes(), (x, got, want)


def test_remainder_of_nan_is_nan():
    assert math.isnan(remainder(math.nan, TWO_PI))


def test_mod_two_pi_is_numpys_remainder_to_the_bit():
    """The drives' heading wrap: the fast paths (within a turn either side of 0) and np.remainder's
    own path give numpy's bits, signed zeros, tiny negatives that round to 2 pi and NaN included."""
    from physics.kinematic.kernels import mod_two_pi

    rng = np.random.default_rng(2)
    values = [*rng.uniform(-8.0, 14.0, 20_000), *rng.uniform(-1e6, 1e6, 2_000), 0.0, -0.0, -1e-300, -5e-324, 5e-324,
              math.inf, -math.inf, math.nan]
    for e in (TWO_PI, 2 * TWO_PI, math.pi):
        for v in (e, -e):
            values += [v, np.nextafter(v, math.inf), np.nextafter(v, -math.inf)]
    got = np.array([mod_two_pi(float(x)) for x in values])
    with np.errstate(invalid="ignore"):  # the infinities
        want = np.remainder(np.array(values, dtype=np.float64), TWO_PI)
    assert got.tobytes() == want.tobytes()
