"""Start layouts for a group of robots: each maps (count, rng) to an (count, 3) array of positions."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

MAX_EXTENT = 1e6
"""The farthest any layout number may reach (m): an arena's own limit."""


def _within(name: str, *values: float) -> None:
    if any(not abs(v) <= MAX_EXTENT for v in values):
        raise ValueError(f"{name} must be within {MAX_EXTENT:,.0f} m of the origin, got {list(values)}")


@dataclass(frozen=True)
class PointLayout:
    """Everyone at one point (the world's overlap resolution separates them)."""

    position: tuple[float, float, float] = (0.0, 0.0, 0.0)
    """The point (m, x y z)."""

    def __post_init__(self) -> None:
        _within("position", *self.position)

    def positions(self, count: int, rng: np.random.Generator) -> np.ndarray:
        return np.tile(np.array(self.position, dtype=np.float64), (count, 1))


@dataclass(frozen=True)
class GridLayout:
    """Row-major grid starting at `origin`, `columns` per row, `spacing` metres apart; with `snake`
    every other row runs backwards, so consecutive robots are always neighbours."""

    origin: tuple[float, float, float] = (0.0, 0.0, 0.0)
    """The first robot's position (m, x y z)."""
    spacing: float = 1.0
    """The distance between neighbours (m)."""
    columns: int = 0  # 0: as square as possible
    """Robots per row (0: as square as possible)."""
    snake: bool = False
    """Every other row runs backwards, so consecutive robots are neighbours."""

    def __post_init__(self) -> None:
        if self.spacing <= 0:
            raise ValueError(f"spacing must be > 0 metres, got {self.spacing}")
        _within("origin", *self.origin)
        _within("spacing", self.spacing)
        if not 0 <= self.columns <= 1_000_000:
            raise ValueError(f"columns must be within 0..1,000,000, got {self.columns:,}")

    def positions(self, count: int, rng: np.random.Generator) -> np.ndarray:
        cols = self.columns or max(1, math.ceil(math.sqrt(count)))
        k = np.arange(count)
        out = np.tile(np.array(self.origin, dtype=np.float64), (count, 1))
        col = k % cols
        row = k // cols
        if self.snake:
            col = np.where(row % 2 == 1, cols - 1 - col, col)
        out[:, 0] += col * self.spacing
        out[:, 1] += row * self.spacing
        return out


@dataclass(frozen=True)
class RandomDiscLayout:
    """Uniform in a horizontal disc of `radius` metres around `center`."""

    center: tuple[float, float, float] = (0.0, 0.0, 0.0)
    """The disc's centre (m, x y z)."""
    radius: float = 20.0
    """The disc's radius (m)."""

    def __post_init__(self) -> None:
        if self.radius < 0:
            raise ValueError(f"radius must be >= 0 metres, got {self.radius}")
        _within("center", *self.center)
        _within("radius", self.radius)

    def positions(self, count: int, rng: np.random.Generator) -> np.ndarray:
        r = self.radius * np.sqrt(rng.random(count))
        a = rng.random(count) * 2.0 * math.pi
        out = np.tile(np.array(self.center, dtype=np.float64), (count, 1))
        out[:, 0] += r * np.cos(a)
        out[:, 1] += r * np.sin(a)
        return out


@dataclass(frozen=True)
class RandomBoxLayout:
    """Uniform in the axis-aligned box [lower, upper]."""

    lower: tuple[float, float, float] = (0.0, 0.0, 0.0)
    """The box's lowest corner (m, x y z)."""
    upper: tuple[float, float, float] = (10.0, 10.0, 0.0)
    """The box's highest corner (m, x y z)."""

    def __post_init__(self) -> None:
        if any(lo > hi for lo, hi in zip(self.lower, self.upper)):
            raise ValueError(f"lower {self.lower} must be <= upper {self.upper} on every axis")
        _within("lower", *self.lower)
        _within("upper", *self.upper)

    def positions(self, count: int, rng: np.random.Generator) -> np.ndarray:
        lo = np.array(self.lower)
        hi = np.array(self.upper)
        return lo + rng.random((count, 3)) * (hi - lo)


@dataclass(frozen=True)
class ListLayout:
    """Explicit positions, one per robot."""

    points: tuple[tuple[float, float, float], ...] = ()
    """One position per robot (m, x y z), as many as the group's count."""

    def __post_init__(self) -> None:
        _within("points", *(v for p in self.points for v in p))

    def positions(self, count: int, rng: np.random.Generator) -> np.ndarray:
        if len(self.points) != count:
            raise ValueError(f"the list has {len(self.points)} positions but the group has {count} robots")
        return np.array(self.points, dtype=np.float64).reshape(count, 3)


@dataclass(frozen=True)
class LineLayout:
    """Robots on a straight line from `start`, each `step` (m, x y z) from the one before (Kilombo's
    benchmark stands its robots in a line)."""

    start: tuple[float, float, float] = (0.0, 0.0, 0.0)
    """The first robot's position (m, x y z)."""
    step: tuple[float, float, float] = (1.0, 0.0, 0.0)
    """The offset from each robot to the next (m, x y z)."""

    def __post_init__(self) -> None:
        if not any(self.step):
            raise ValueError("step must not be zero: the robots would stand on one point")
        _within("start", *self.start)
        _within("step", *self.step)

    def positions(self, count: int, rng: np.random.Generator) -> np.ndarray:
        return np.array(self.start, dtype=np.float64) + np.arange(count)[:, None] * np.array(self.step, dtype=np.float64)


@dataclass(frozen=True)
class RingLayout:
    """Robots evenly spaced on a horizontal circle of `radius` metres round `center`, the first at
    `start_deg` (degrees from +x, anticlockwise): every one the same distance from the centre, as
    in Bianchi's saturation workload (n stations round one receiver)."""

    center: tuple[float, float, float] = (0.0, 0.0, 0.0)
    """The circle's centre (m, x y z)."""
    radius: float = 1.0
    """The circle's radius (m)."""
    start_deg: float = 0.0
    """Where the first robot stands (degrees from +x, anticlockwise)."""

    def __post_init__(self) -> None:
        if not self.radius > 0:
            raise ValueError(f"radius must be > 0 metres, got {self.radius}")
        _within("center", *self.center)
        _within("radius", self.radius)
        if not abs(self.start_deg) <= 360.0:
            raise ValueError(f"start_deg must be within -360..360 degrees, got {self.start_deg}")

    def positions(self, count: int, rng: np.random.Generator) -> np.ndarray:
        angle = math.radians(self.start_deg) + 2.0 * math.pi * np.arange(count) / max(count, 1)
        out = np.tile(np.array(self.center, dtype=np.float64), (count, 1))
        out[:, 0] += self.radius * np.cos(angle)
        out[:, 1] += self.radius * np.sin(angle)
        return out


LAYOUTS: dict[str, type] = {
    "point": PointLayout,
    "grid": GridLayout,
    "random_disc": RandomDiscLayout,
    "random_box": RandomBoxLayout,
    "list": ListLayout,
    "line": LineLayout,
    "ring": RingLayout,
}
