"""95% intervals for a sweep's metrics over replications: Student's t for means, Wilson's score
interval for proportions (a delivery ratio stays within [0, 1]). Each says how many runs it rests on.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

_T975 = (12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160, 2.145, 2.131,
         2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042)
"""t quantiles 0.975 for 1..30 degrees of freedom (beyond: the normal's 1.96)."""
Z975 = 1.959963984540054
PROPORTION_WORDS = ("ratio", "fraction", "probability", "share")
"""A metric whose name holds one of these, with every value in [0, 1], is a proportion."""


@dataclass(frozen=True)
class Interval:
    """The mean of n runs' values and a 95% interval [low, high] (NaN when n < 2); `method` is
    "t" (Student's t on the mean) or "wilson" (score interval of a proportion, n runs as trials)."""

    mean: float
    low: float
    high: float
    n: int
    method: str

    def text(self) -> str:
        """`0.95 [0.57, 1] (n = 5, Wilson)`; without the interval for one run."""
        if self.n == 0:
            return ""
        if math.isnan(self.low):
            return f"{self.mean:.4g} (n = {self.n})"
        return f"{self.mean:.4g} [{self.low:.3g}, {self.high:.3g}] (n = {self.n}{', Wilson' if self.method == 'wilson' else ''})"


def is_proportion(name: str, values: list[float]) -> bool:
    return any(w in name.lower() for w in PROPORTION_WORDS) and all(0.0 <= v <= 1.0 for v in values)


def interval(values: list, proportion: bool = False) -> Interval:
    """The 95% interval of the finite values (None and NaN are left out)."""
    x = np.array([v for v in values if v is not None and math.isfinite(v)], dtype=float)
    n = len(x)
    method = "wilson" if proportion else "t"
    if n == 0:
        return Interval(math.nan, math.nan, math.nan, 0, method)
    mean = float(x.mean())
    if n == 1:
        return Interval(mean, math.nan, math.nan, 1, method)
    if proportion:
        return Interval(mean, *wilson(mean, n), n, method)
    t = _T975[n - 2] if n - 1 <= len(_T975) else 1.96
    half = float(t * x.std(ddof=1) / math.sqrt(n))
    return Interval(mean, mean - half, mean + half, n, method)


def wilson(p: float, n: int, z: float = Z975) -> tuple[float, float]:
    """Wilson's score interval of a proportion p observed over n trials: always within [0, 1], and
    not of zero width at p = 0 or 1."""
    z2 = z * z
    centre = (p + z2 / (2 * n)) / (1 + z2 / n)
    half = z / (1 + z2 / n) * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n))
    return max(0.0, centre - half), min(1.0, centre + half)
