"""What stays put in a view: the arena, the obstacles and props at their start, and who each robot is.

Read from the resolved scenario (the run directory's scenario.yaml, as plain data), so a run can be
viewed without importing its controllers.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from physics.scene.obstacles import Wall

PALETTE = np.array([(31, 119, 180), (255, 127, 14), (44, 160, 44), (214, 39, 40), (148, 103, 189),
                    (140, 86, 75), (227, 119, 194), (127, 127, 127), (188, 189, 34), (23, 190, 207)], dtype=np.uint8)
"""Group colours, in group order (matplotlib's tab10)."""
DEAD = np.array((90, 90, 90), dtype=np.uint8)


@dataclass(frozen=True)
class Shape:
    """A static solid to draw: a box (half sizes, yaw), a vertical cylinder (radius, height) or a mesh file."""

    kind: str
    center: tuple[float, float, float]
    half_sizes: tuple[float, float, float] = (0.0, 0.0, 0.0)
    yaw: float = 0.0
    radius: float = 0.0
    height: float = 0.0
    file: str = ""
    scale: float = 1.0


@dataclass(frozen=True)
class Scene:
    """The arena corners, the static shapes, each robot's group index and radius, group names and
    which robots are quadrotors (their attitude is drawn)."""

    arena_lower: tuple[float, float, float]
    arena_upper: tuple[float, float, float]
    shapes: tuple[Shape, ...]
    group_names: tuple[str, ...]
    group_of: np.ndarray
    radius: np.ndarray
    quad: np.ndarray

    @property
    def n(self) -> int:
        return len(self.group_of)

    def colours(self, alive: np.ndarray) -> np.ndarray:
        """One RGB row per robot: its group's colour, grey once dead."""
        out = PALETTE[self.group_of % len(PALETTE)].copy()
        out[~alive] = DEAD
        return out


def scene_of(resolved: dict[str, Any]) -> Scene:
    """The scene of a resolved scenario (cosim.scenario.schema.dump's form, or its YAML)."""
    world = resolved.get("world") or {}
    groups = resolved.get("groups") or []
    group_of = []
    radius = []
    quad = []
    for k, g in enumerate(groups):
        robot = g.get("robot") or {}
        group_of += [k] * int(g["count"])
        radius += [float(robot.get("radius", 0.1))] * int(g["count"])
        quad += [robot.get("model") == "quadrotor"] * int(g["count"])
    shapes = [s for item in world.get("obstacles") or () if (s := _shape(item)) is not None]
    shapes += [s for item in world.get("props") or () if (s := _shape(item)) is not None]
    return Scene(tuple(world.get("arena_lower", (-500.0, -500.0, 0.0))),
                 tuple(world.get("arena_upper", (500.0, 500.0, 100.0))),
                 tuple(shapes), tuple(g["name"] for g in groups), np.array(group_of, dtype=np.int64),
                 np.array(radius, dtype=np.float64), np.array(quad, dtype=bool))


def plain_scene(n: int) -> Scene:
    """n robots of one group in the default arena: what a replay draws when the run's scenario.yaml
    is missing or torn (the trace still holds every position)."""
    return Scene((-500.0, -500.0, 0.0), (500.0, 500.0, 100.0), (), ("robots",), np.zeros(n, dtype=np.int64),
                 np.full(n, 0.1), np.zeros(n, dtype=bool))


def _shape(item: dict[str, Any]) -> Shape | None:
    kind = item.get("type")
    if kind == "box":
        return Shape("box", tuple(item["center"]), tuple(0.5 * float(v) for v in item["size"]), float(item.get("yaw", 0.0)))
    if kind == "cylinder":
        return Shape("cylinder", tuple(item["center"]), radius=float(item["radius"]), height=float(item["height"]))
    if kind == "wall":
        box = Wall(**{k: tuple(v) if isinstance(v, list) else v for k, v in item.items() if k != "type"}).box
        return Shape("box", tuple(box.center), tuple(box.half_extents), box.yaw)
    if kind in ("mesh", "model"):
        return Shape("mesh", tuple(item.get("position", (0.0, 0.0, 0.0))), yaw=float(item.get("yaw", 0.0)),
                     file=str(item["file"]), scale=float(item.get("scale", 1.0)))
    return None
