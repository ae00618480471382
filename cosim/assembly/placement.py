"""Start positions: drawn from each group's layout, inside the arena and clear of obstacles."""

from __future__ import annotations

import numpy as np

from cosim.scenario.layouts import RandomBoxLayout, RandomDiscLayout
from cosim.scenario.schema import Mapper
from cosim.scenario.specs import Scenario
from physics.scene.obstacles import SOLID_SHAPES

RANDOM_LAYOUTS = (RandomBoxLayout, RandomDiscLayout)


def start_positions(s: Scenario, gi: int, rng: np.random.Generator, mapper: Mapper) -> np.ndarray:
    """Group `gi`'s start positions (count, 3), checked against the arena and the obstacles."""
    g = s.groups[gi]
    starts = g.layout.positions(g.count, rng)
    _check_inside_arena(s, gi, starts, mapper)
    return _clear_of_obstacles(s, gi, starts, rng, mapper)


def _check_inside_arena(s: Scenario, gi: int, starts: np.ndarray, mapper: Mapper) -> None:
    lo = np.array(s.world.arena_lower)
    hi = np.array(s.world.arena_upper)
    outside = np.nonzero(np.any((starts < lo) | (starts > hi), axis=1))[0]
    if len(outside):
        k = int(outside[0])
        raise mapper.error(
            f"groups[{gi}].layout",
            f"{len(outside)} start positions lie outside the arena {tuple(map(float, lo))}..{tuple(map(float, hi))}, "
            f"e.g. robot {k} at {tuple(round(float(x), 3) for x in starts[k])}; move the layout or widen world.arena_*",
        )


def _clear_of_obstacles(s: Scenario, gi: int, starts: np.ndarray, rng: np.random.Generator, mapper: Mapper) -> np.ndarray:
    """Start positions that do not overlap an obstacle or a prop: random layouts draw again for the
    robots that do (from the same seeded stream); fixed layouts are an error naming the robot. Mesh
    obstacles and URDF props are left to pybullet; an OBJ prop counts as its bounding box."""
    g = s.groups[gi]
    shapes = [o for o in s.world.obstacles if isinstance(o, SOLID_SHAPES)]
    shapes += [shape for shape in (p.footprint() for p in s.world.props) if shape is not None]
    if not shapes:
        return starts
    radius = np.full(len(starts), g.robot.radius)

    def overlapping(points: np.ndarray) -> np.ndarray:
        bad = np.zeros(len(points), dtype=bool)
        for sh in shapes:
            bad[sh.push_out(points.copy(), radius[: len(points)])] = True
        return bad

    bad = overlapping(starts)
    if not bad.any():
        return starts
    if not isinstance(g.layout, RANDOM_LAYOUTS):
        k = int(np.nonzero(bad)[0][0])
        where = tuple(round(float(x), 3) for x in starts[k])
        raise mapper.error(f"groups[{gi}].layout",
                           f"{int(bad.sum())} start positions overlap an obstacle or a prop, e.g. robot {k} at {where}; "
                           "move them")
    starts = starts.copy()
    for _ in range(1000):
        idx = np.nonzero(bad)[0]
        if not len(idx):
            return starts
        starts[idx] = g.layout.positions(len(idx), rng)
        bad[idx] = overlapping(starts[idx])
    raise mapper.error(f"groups[{gi}].layout", "cannot place the robots clear of the obstacles: the free area is too small")
