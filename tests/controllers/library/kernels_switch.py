"""A run's trajectories with the numpy kernels and with the compiled ones, compared (test helper)."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest

from physics import kernels as physics_kernels


def assert_same_with_compiled_kernels(monkeypatch: pytest.MonkeyPatch, positions: Callable[[], dict]) -> None:
    """`positions()` (a run's positions table) is the same to the bit with COSIM_COMPILED=0 and =1."""
    monkeypatch.setattr(physics_kernels, "compiled", False)  # an earlier test may have switched this process
    monkeypatch.setenv("COSIM_COMPILED", "0")
    reference = positions()
    monkeypatch.setenv("COSIM_COMPILED", "1")
    other = positions()
    assert physics_kernels.compiled
    for column in ("x", "y", "heading"):
        assert np.array_equal(reference[column], other[column]), column
