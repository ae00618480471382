"""Quadrotors at a lower control rate (`robot.control_hz`): pybullet holds each tick's wrench over
engine steps of at most 1/240 s, and the flight matches the 400 Hz flight and the kinematic world;
rates that cannot work are refused naming the key."""

from __future__ import annotations

import copy
import re

import numpy as np
import pybullet
import pytest

import cosim
from cosim.errors import ScenarioError
from tests.conftest import ROOT

CONFIG = ROOT / "configs" / "gym_circle.yaml"


def _fly(backend: str, control_hz: float, seconds: float = 8.0):
    step = "20 ms" if control_hz == 50 else "10 ms"
    sim = cosim.build(cosim.load(CONFIG, {"duration": seconds, "physics.backend": backend, "physics.dt": step,
                                          "quantum": step, "groups.0.controller.period": step,
                                          "groups.0.robot.control_hz": control_hz}))
    sim.run()
    return sim


def test_fifty_hertz_control_steps_the_engine_at_250_hz_and_flies_as_at_400_hz():
    slow = _fly("pybullet", 50)
    engine = pybullet.getPhysicsEngineParameters(physicsClientId=slow.world._cid)["fixedTimeStep"]
    assert engine == pytest.approx(0.004)  # five engine steps per 20 ms tick, under the 1/240 s limit
    fast = _fly("pybullet", 400)
    assert pybullet.getPhysicsEngineParameters(physicsClientId=fast.world._cid)["fixedTimeStep"] == pytest.approx(0.0025)
    a, b = slow.world.positions(), fast.world.positions()
    assert np.abs(a - b).max() < 0.02  # 2 cm over 6 s of circling
    start = np.array(cosim.load(CONFIG).groups[0].layout.origin)
    assert np.abs(a[:, 2] - (0.5 + 0.05 * np.arange(10))).max() < 0.05  # at their stacked heights
    assert np.hypot(a[:, 0] - start[0], a[:, 1] - start[1]).max() > 0.1  # and circling


def test_the_kinematic_world_flies_the_same_at_fifty_hertz():
    rigid, kinematic = _fly("pybullet", 50), _fly("kinematic", 50)
    assert np.abs(rigid.world.positions() - kinematic.world.positions()).max() < 0.05


def _groups(extra: dict) -> dict:
    """A valid two-vehicle scenario at 50 Hz, with `extra` (dotted keys) set over it."""
    raw = {"name": "rate", "duration": 1, "quantum": "20 ms", "physics": {"backend": "kinematic", "dt": "20 ms"},
           "network": {"backend": "none"}, "world": {"arena_lower": [-10, -10, 0], "arena_upper": [10, 10, 5]},
           "groups": [{"name": "q", "count": 2, "robot": {"model": "quadrotor", "radius": 0.06, "control_hz": 50},
                       "layout": {"type": "grid", "origin": [0, 0, 0], "spacing": 1.0},
                       "controller": {"class": "controllers.library.circle:CircleGroup"}}]}
    merged = copy.deepcopy(raw)
    for key, value in extra.items():
        node = merged
        *path, last = key.split(".")
        for part in path:
            node = node[int(part)] if part.isdigit() else node[part]
        node[last] = value
    return merged


@pytest.mark.parametrize("extra, message", [
    ({"groups.0.robot.control_hz": 48}, "control_hz must divide one second into whole nanoseconds"),
    ({"groups.0.robot.control_hz": 0}, "control_hz must divide one second into whole nanoseconds"),
    ({"groups.0.robot": {"model": "point", "control_hz": 50}}, "a point robot takes none"),
    ({"physics.dt": "10 ms", "quantum": "10 ms"}, "physics.dt: quadrotors need a physics step that is a multiple of "
                                                  "their control tick (20 ms)"),
    ({"groups.1": {"name": "r", "count": 1, "robot": {"model": "quadrotor", "control_hz": 100},
                   "layout": {"type": "point", "position": [3, 3, 0]},
                   "controller": {"class": "controllers.library.circle:CircleGroup"}}},
     "groups[1].robot.control_hz: all quadrotors share one control rate; group 'q' has 50 Hz"),
    ({"mavlink": {"serve": [{"group": "q", "personality": "px4", "port": 0}]},
      "groups.0.controller": {"class": "controllers.library.random_walk:RandomWalk"}},
     "vehicles flown over MAVLink run the 2.5 ms control tick"),
])
def test_impossible_control_rates_are_refused_naming_the_key(extra, message):
    data = _groups({k: v for k, v in extra.items() if not k.startswith("groups.1")})
    if "groups.1" in extra:
        data["groups"].append(extra["groups.1"])
    with pytest.raises(ScenarioError, match=re.escape(message)):
        cosim.from_dict(data, "rate.yaml")
