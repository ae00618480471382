"""The compiled reach query gives the numpy reference's results in the same order."""

from __future__ import annotations

import numpy as np
import pytest

from netstack.fast import kernels as compiled
from tests.netstack import kernels_reference as reference

pytestmark = pytest.mark.kernels  # also run bounds-checked: `make test`, NUMBA_BOUNDSCHECK=1


def _both(name: str, *args):
    return getattr(reference, name)(*args), getattr(compiled, name)(*args)


def _equal(a, b) -> bool:
    if isinstance(a, tuple):
        return all(_equal(x, y) for x, y in zip(a, b))
    return np.array_equal(np.asarray(a), np.asarray(b))


def test_a_single_sends_receivers_are_the_references():
    rng = np.random.default_rng(3)
    pos, vel = rng.normal(0, 10, (200, 3)), rng.normal(0, 2, (200, 3))
    alive = rng.random(200) > 0.2
    cand = np.arange(200)
    nodes, dist = np.empty(200, np.int64), np.empty(200)
    for dt in (0.0, 0.0375):
        found = []
        for limit in (np.inf, 16.0):
            want = reference.within(pos, vel, dt, alive, cand, 7, limit)
            found.append(compiled.within(pos, vel, dt, alive, cand, 200, 7, limit, nodes, dist))
            assert _equal((nodes[:found[-1]], dist[:found[-1]]), want)
        assert found[0] > found[1] > 20  # the limit leaves some out
