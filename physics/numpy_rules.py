"""numpy's elementwise rules for NaN and signed zeros, as scalar functions for compiled loops, so a
loop gives what the numpy ufunc it replaces gives, to the bit (tests/physics/test_numpy_rules.py)."""

from __future__ import annotations

from numba import njit


@njit(cache=True, inline="always")
def np_max(a: float, b: float) -> float:
    """np.maximum: NaN wins, and b is taken when equal (-0.0 against 0.0)."""
    return a if (a > b or a != a) else b


@njit(cache=True, inline="always")
def np_min(a: float, b: float) -> float:
    """np.minimum."""
    return a if (a < b or a != a) else b


@njit(cache=True, inline="always")
def np_clip(x: float, lo: float, hi: float) -> float:
    """numpy's clip ufunc: x kept when equal to a bound (-0.0 against 0.0); a NaN x or bound gives NaN."""
    m = x if (x != x or x >= lo) else lo
    return m if (m != m or m <= hi) else hi
