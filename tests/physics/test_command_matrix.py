"""Every Robot method on every simulated body: the same command has the same effect on every body
that can do it, and a clear refusal on every body that cannot (issue 32)."""

from __future__ import annotations

import math

import numpy as np
import pytest

import cosim
from cosim.assembly.simulation import build
from cosim.errors import SimulationError
from tests.conftest import ROOT

ROVER = {"model": "diff_drive", "radius": 0.2, "mass": 5.0,
         "drive": {"wheel_base": 0.3, "max_wheel_speed": 1.0, "max_accel": 2.0, "friction": 0.8}}
OMNI = {"model": "omni", "radius": 0.2, "mass": 4.0, "omni": {"max_wheel_speed": 0.8, "max_accel": 1.5}}
BODIES = {  # name: (physics backend, robot section, start height)
    "point": ("kinematic", {"model": "point", "radius": 0.1, "max_speed": 1.0}, 1.0),
    "point_rigid": ("pybullet", {"model": "point", "radius": 0.1, "max_speed": 1.0}, 1.0),
    "diff_drive": ("kinematic", ROVER, 0.2),
    "diff_drive_rigid": ("pybullet", ROVER, 0.2),
    "omni": ("kinematic", OMNI, 0.1),
    "omni_rigid": ("pybullet", OMNI, 0.1),
    "quadrotor": ("kinematic", {"model": "quadrotor", "airframe": "crazyflie", "radius": 0.06}, 2.0),
    "quadrotor_rigid": ("pybullet", {"model": "quadrotor", "airframe": "crazyflie", "radius": 0.06}, 2.0),
    "urdf": ("pybullet", {"model": "urdf", "radius": 0.25, "urdf": {
        "file": str(ROOT / "configs" / "models" / "rover.urdf"), "left_wheel": "left_wheel_joint",
        "right_wheel": "right_wheel_joint", "wheel_radius": 0.06, "track": 0.34}}, 0.0),
}
WHEELED = {"diff_drive", "diff_drive_rigid", "urdf"}
QUADS = {"quadrotor", "quadrotor_rigid"}


def _run(body: str, tmp_path, duration: float = 4.0, **params):
    backend, robot, z = BODIES[body]
    data = {"name": "matrix", "seed": 1, "duration": duration, "quantum": "10 ms",
            "physics": {"backend": backend, "dt": "10 ms"}, "network": {"backend": "none"},
            "world": {"arena_lower": [-20, -20, 0], "arena_upper": [20, 20, 10]},
            "output": {"trace": {"positions_every": None}},
            "groups": [{"name": "r", "count": 1, "robot": robot, "layout": {"type": "point", "position": [0, 0, z]},
                        "controller": {"class": "tests.controllers.helpers:Command", "params": params}}]}
    sim = build(cosim.from_dict(data, source=str(tmp_path / "scenario.yaml")))
    sim.run()
    rec = sim.recorder.tables()["records"]
    last = {name: float(np.asarray(rec["value"])[np.asarray(rec["name"]) == name][-1]) for name in ("heading", "vx", "vy")}
    return last


def _angle(a: float, b: float) -> float:
    return abs(math.remainder(a - b, 2 * math.pi))


@pytest.mark.parametrize("body", sorted(BODIES))
def test_set_heading_and_turn_reach_the_heading(body, tmp_path):
    assert _angle(_run(body, tmp_path, method="set_heading", args=(1.0,))["heading"], 1.0) < 0.05
    assert _angle(_run(body, tmp_path, method="turn", args=(-1.2,))["heading"], -1.2) < 0.05


@pytest.mark.parametrize("body", sorted(BODIES))
def test_body_frame_velocity_flies_along_the_heading(body, tmp_path):
    """set_heading(1.0) then set_velocity(0.5 forward): the body ends up moving at 0.5 m/s toward 1.0 rad."""
    last = _run(body, tmp_path, method="set_heading", args=(1.0,), then="set_velocity", then_args=(0.5, 0.0, 0.0))
    assert _angle(math.atan2(last["vy"], last["vx"]), 1.0) < 0.05
    assert math.hypot(last["vx"], last["vy"]) == pytest.approx(0.5, abs=0.05)


@pytest.mark.parametrize("body", sorted(BODIES))
def test_sideways_velocity_moves_left_of_the_heading_or_is_refused(body, tmp_path):
    if body in WHEELED:
        with pytest.raises(SimulationError, match="cannot move sideways"):
            _run(body, tmp_path, method="set_velocity", args=(0.0, 0.4, 0.0))
        return
    last = _run(body, tmp_path, method="set_heading", args=(0.5,), then="set_velocity", then_args=(0.0, 0.4, 0.0))
    assert _angle(math.atan2(last["vy"], last["vx"]), 0.5 + math.pi / 2) < 0.05


@pytest.mark.parametrize("body", sorted(BODIES))
def test_wheel_commands_turn_wheeled_robots_and_are_refused_elsewhere(body, tmp_path):
    if body in WHEELED or body.startswith("omni"):
        last = _run(body, tmp_path, duration=2.1, method="drive", args=(0.0, 0.5))
        assert last["heading"] == pytest.approx(1.0, abs=0.1)  # 0.5 rad/s for 2 s, after the wheels ramp up
    else:
        with pytest.raises(SimulationError, match="is not a wheeled robot"):
            _run(body, tmp_path, method="drive", args=(0.0, 0.5))
    if body in WHEELED:
        half = 0.25 * (0.34 if body == "urdf" else 0.3)  # half the track times 0.5 rad/s
        last = _run(body, tmp_path, duration=2.1, method="set_wheel_speeds", args=(-half, half))
        assert last["heading"] == pytest.approx(1.0, abs=0.1)
    else:
        with pytest.raises(SimulationError, match="has no left and right wheel"):
            _run(body, tmp_path, method="set_wheel_speeds", args=(0.1, 0.2))


@pytest.mark.parametrize("body", sorted(BODIES))
def test_fly_moves_quadrotors_and_is_refused_elsewhere(body, tmp_path):
    if body in QUADS:
        last = _run(body, tmp_path, method="fly", mode="position", args=(0.0, 0.0, 2.0, 0.8))
        assert _angle(last["heading"], 0.8) < 0.05
    else:
        with pytest.raises(SimulationError, match="is not a quadrotor"):
            _run(body, tmp_path, method="fly", mode="position", args=(0.0, 0.0, 2.0, 0.8))


@pytest.mark.parametrize("body", sorted(BODIES))
def test_hover_stops_every_body(body, tmp_path):
    last = _run(body, tmp_path, method="set_velocity", args=(0.5, 0.0, 0.0), then="hover")
    assert math.hypot(last["vx"], last["vy"]) < 0.02


def test_a_quadrotor_refuses_a_heading_in_attitude_mode(tmp_path):
    with pytest.raises(SimulationError, match="attitude mode, which has no heading to hold"):
        _run("quadrotor", tmp_path, method="fly", mode="attitude", args=(0.0, 0.0, 0.0, 0.3), then="set_heading",
             then_args=(1.0,))
