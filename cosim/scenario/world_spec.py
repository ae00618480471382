"""The world a scenario's robots move in (`physics`, `world`): the physics backend and its step, the
arena, obstacles, props, terrain and wind."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from cosim.errors import KeyValueError
from physics.scene.obstacles import OBSTACLES
from physics.scene.props import PROPS, Terrain

MAX_COORDINATE = 1e6
"""The farthest an arena may reach from the origin (m): 1,000 km, where float64 positions still
resolve nanometres."""
MAX_SOLVER_ITERATIONS = 1_000
"""pybullet's contact solver: more iterations than this cost without converging further."""


@dataclass(frozen=True)
class WindSpec:
    """Wind on aerial robots: a constant `mean` (m/s, x y z) plus gusts with standard deviation
    `gust_std` (m/s) and correlation time `gust_tau` (s), drawn from the run's seeded streams."""

    mean: tuple[float, float, float] = (0.0, 0.0, 0.0)
    """The constant part of the wind (m/s, x y z)."""
    gust_std: float = 0.0
    """The gusts' standard deviation (m/s; 0: no gusts)."""
    gust_tau: float = 2.0
    """The gusts' correlation time (s): how long a gust lasts."""

    def __post_init__(self) -> None:
        if self.gust_std < 0 or self.gust_tau <= 0:
            raise ValueError("gust_std must be >= 0 m/s and gust_tau > 0 s")


@dataclass(frozen=True)
class WorldSpec:
    """The arena (robots are kept inside), static obstacles, optional wind on aerial robots, and
    (pybullet only) movable props and a terrain instead of the flat ground."""

    arena_lower: tuple[float, float, float] = (-500.0, -500.0, 0.0)
    """The arena's lowest corner (m, x y z): robots are kept inside."""
    arena_upper: tuple[float, float, float] = (500.0, 500.0, 100.0)
    """The arena's highest corner (m, x y z)."""
    obstacles: tuple[Any, ...] = field(default=(), metadata={"item_registry": OBSTACLES, "tag": "type"})
    """Static obstacles (walls, boxes, cylinders, meshes): robots cannot pass them, and radios may lose power
    through them."""
    wind: WindSpec | None = None
    """Wind on aerial robots (null: still air)."""
    props: tuple[Any, ...] = field(default=(), metadata={"item_registry": PROPS, "tag": "type"})
    """Movable bodies robots can push (pybullet only)."""
    terrain: Terrain | None = None
    """A height field instead of the flat ground (pybullet only; null: flat)."""

    def __post_init__(self) -> None:
        if max(abs(v) for v in (*self.arena_lower, *self.arena_upper)) > MAX_COORDINATE:
            raise ValueError(f"the arena must lie within {MAX_COORDINATE:,.0f} m of the origin on every axis, got "
                             f"arena_lower {list(self.arena_lower)} and arena_upper {list(self.arena_upper)}")
        if any(lo >= hi for lo, hi in zip(self.arena_lower, self.arena_upper)):
            raise ValueError(f"arena_lower {self.arena_lower} must be below arena_upper {self.arena_upper} on every axis")


@dataclass(frozen=True)
class PhysicsSpec:
    """World backend and its step. `kinematic` options: max_accel (m/s^2; null: no limit),
    collisions. `pybullet`: drag, solver_iterations. Each is refused on the other backend
    (cosim.scenario.checks), except at its default."""

    backend: Literal["kinematic", "pybullet"] = "kinematic"
    """The world's engine: `kinematic` (numpy, for large swarms) or `pybullet` (rigid bodies and contacts)."""
    dt_ns: int = 10_000_000
    """The physics step."""
    max_accel: float | None = None
    """kinematic only: the most a robot's velocity may change per second (m/s²; null: velocity commands act at
    once)."""
    collisions: bool = True
    """kinematic only: robots are kept apart by their radii and stopped by obstacles (false: they pass through
    each other)."""
    drag: float = 5.0
    """pybullet only: the gain (1/s) with which a point robot's body follows its commanded velocity."""
    solver_iterations: int = 10
    """pybullet only: the contact solver's iterations per step."""

    def __post_init__(self) -> None:
        if self.dt_ns <= 0:
            raise ValueError("dt must be a positive duration")
        if self.max_accel is not None and self.max_accel <= 0:
            raise ValueError(f"max_accel must be > 0 m/s^2, got {self.max_accel}")
        if not 0 < self.drag <= 1e4:
            raise ValueError(f"drag must be > 0 and at most 1e4 1/s, got {self.drag}")
        if not 1 <= self.solver_iterations <= MAX_SOLVER_ITERATIONS:
            raise KeyValueError("solver_iterations", f"solver_iterations must be within 1..{MAX_SOLVER_ITERATIONS:,} "
                                                     f"(the default is 10), got {self.solver_iterations:,}")


BACKEND_KEYS = {"max_accel": "kinematic", "collisions": "kinematic", "drag": "pybullet", "solver_iterations": "pybullet"}
"""The physics keys only one backend reads."""
