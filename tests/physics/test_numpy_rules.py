"""physics.numpy_rules against numpy's own ufuncs."""

import math

import numpy as np


def test_the_scalar_rules_are_numpys_for_signed_zeros_nan_and_infinities():
    from physics.numpy_rules import np_clip, np_max, np_min

    special = [-math.inf, -1.0, -0.0, 0.0, 1.0, math.inf, math.nan]
    clip = np._core.umath.clip
    for a in special:
        for b in special:
            for n in (1, 9):  # numpy's scalar and vector loops
                x = np.full(n, a)
                assert np.array_equal(np.maximum(x, b)[:1].view(np.int64), np.array([np_max(a, b)]).view(np.int64)), (a, b)
                assert np.array_equal(np.minimum(x, b)[:1].view(np.int64), np.array([np_min(a, b)]).view(np.int64)), (a, b)
                for c in special:
                    assert np.array_equal(clip(x, b, c)[:1].view(np.int64), np.array([np_clip(a, b, c)]).view(np.int64)), \
                        (a, b, c)
