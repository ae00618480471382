"""The obstacle avoider as a group controller and per robot: the same seed, the same trajectories,
on both worlds."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

import cosim
from controllers.library.avoider_compiled import group_rule
from cosim.errors import SimulationError
from tests.controllers.library.avoider_reference import rule_numpy

pytestmark = pytest.mark.kernels  # also run bounds-checked: `make test`, NUMBA_BOUNDSCHECK=1

CONFIG = Path(__file__).resolve().parents[3] / "configs" / "ground_robots.yaml"


def _run(cls: str, world: str, count: int, overrides: dict | None = None):
    scenario = cosim.load(CONFIG, {"duration": 6.0, "groups.0.count": count, "physics.backend": world,
                                   "network.backend": "none", "output.trace.positions_every": 0.5,
                                   "groups.0.sensors.range.rate_hz": 10.0, "groups.0.controller.class": cls,
                                   "groups.0.controller.phase": 0, **(overrides or {})})
    sim = cosim.build(scenario)
    sim.run()
    return sim, sim.recorder.tables()["positions"]


@pytest.mark.parametrize("world, count", [("kinematic", 60), ("pybullet", 12)])
def test_group_and_per_robot_avoiders_are_bit_identical(world, count):
    _, group = _run("controllers.library.avoider_group:ObstacleAvoiderGroup", world, count)
    _, robots = _run("controllers.library.avoider:ObstacleAvoider", world, count)
    for column in ("x", "y", "heading"):
        assert np.array_equal(group[column], robots[column]), column
    moved = np.hypot(group["x"][-count:] - group["x"][:count], group["y"][-count:] - group["y"][:count])
    assert np.median(moved) > 0.5  # they walked


def test_the_group_turns_away_from_a_wall_it_faces():
    """One robot driving at a wall 0.6 m ahead stops and turns instead of reaching it."""
    wall = {"arena_lower": [-5, -5, 0], "arena_upper": [5, 5, 3],
            "obstacles": [{"center": [0.9, 0, 0.5], "size": [0.2, 4, 1]}]}
    sim, pos = _run("controllers.library.avoider_group:ObstacleAvoiderGroup", "kinematic", 1,
                    {"world": wall, "groups.0.layout": {"type": "grid", "origin": [0, 0, 0.2], "spacing": 1.0},
                     "groups.0.controller.params": {"max_speed": 0.8, "safe_distance": 1.0, "velocity_sigma": 0.0,
                                                    "heading_sigma": 0.0}})
    assert pos["x"].max() < 0.6  # never reached the wall's face at 0.8 m (less its radius)
    assert abs(sim.world.headings()[0]) > 0.5  # it turned


def test_a_group_without_range_rays_is_refused():
    with pytest.raises(SimulationError, match="ObstacleAvoiderGroup needs a range sensor"):
        _run("controllers.library.avoider_group:ObstacleAvoiderGroup", "kinematic", 3, {"groups.0.sensors": {}})


def test_the_compiled_rule_is_the_numpy_one_on_random_fans_ties_nan_and_blind_views():
    rng = np.random.default_rng(9)
    avoided = 0
    for k in range(300):
        n, rays = int(rng.integers(1, 40)), int(rng.integers(1, 30))
        angles = np.arange(rays) * (2 * math.pi / rays) if k % 2 else np.sort(rng.uniform(-4, 4, rays))
        d = rng.choice([0.02, 0.05, 0.08, 0.1], (n, rays)) if k % 3 else rng.uniform(0, 0.1, (n, rays))
        if k % 7 == 0:
            d[rng.integers(n), rng.integers(rays)] = np.nan
        turn = rng.normal(0, 0.3, n)
        vx, vy = rng.choice([0.0, 0.03, -0.02], n) * (k % 4 != 0), rng.normal(0, 0.02, n) * (k % 5 != 0)
        args = (angles, d, turn, vx, vy, float(rng.choice([1e-6, 0.3, math.pi / 4, math.pi])), 0.05, 1.5,
                float(rng.choice([0.0, 0.1])))
        for want, got in zip(rule_numpy(*args), group_rule(*args)):
            assert np.array_equal(want.view(np.uint64), got.view(np.uint64)), k
        avoided += int(np.sum(rule_numpy(*args)[1] != vx))
    assert avoided > 500  # the avoiding branch ran, not only the clear one
