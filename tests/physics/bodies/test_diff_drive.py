"""Differential-drive robots: arcs of the commanded radius, speed and traction limits, no side slip."""

import math

import numpy as np
import pytest

import cosim
from cosim.assembly.simulation import build


def run(controller: dict, seconds: float = 12.0, drive: dict | None = None, count: int = 1):
    data = {
        "name": "wheels", "seed": 1, "duration": seconds, "quantum": "10 ms",
        "physics": {"backend": "kinematic", "dt": "10 ms", "collisions": False},
        "network": {"backend": "none"},
        "world": {"arena_lower": [-50, -50, 0], "arena_upper": [50, 50, 5]},
        "output": {"trace": {"positions_every": 0.01}},
        "groups": [{"name": "r", "count": count, "robot": {"model": "diff_drive", "radius": 0.2, "drive": drive or {}},
                    "layout": {"type": "point", "position": [0, 0, 0.1]}, "controller": controller}],
    }
    sim = build(cosim.from_dict(data))
    sim.run()
    p = sim.recorder.tables()["positions"]
    return sim, {k: np.asarray(v) for k, v in p.items()}


def circle_radius(x: np.ndarray, y: np.ndarray) -> float:
    """Least-squares circle through the points (Kasa fit)."""
    a = np.column_stack([x, y, np.ones_like(x)])
    sol, *_ = np.linalg.lstsq(a, x * x + y * y, rcond=None)
    cx, cy = sol[0] / 2, sol[1] / 2
    return float(math.sqrt(sol[2] + cx * cx + cy * cy))


@pytest.mark.parametrize("v,w", [(0.5, 0.25), (0.8, -0.4), (0.3, 0.6)])
def test_a_commanded_arc_has_the_radius_v_over_w(v, w):
    _, p = run({"class": "tests.controllers.helpers:Drive", "params": {"v": v, "w": w}})
    steady = p["t_ns"] > 2_000_000_000
    radius = circle_radius(p["x"][steady], p["y"][steady])
    assert radius == pytest.approx(abs(v / w), rel=0.05)


def test_wheel_speeds_give_speed_and_turn_rate():
    _, p = run({"class": "tests.controllers.helpers:Drive", "params": {"left": 0.4, "right": 0.6}},
               drive={"wheel_base": 0.3})
    steady = p["t_ns"] > 2_000_000_000
    assert circle_radius(p["x"][steady], p["y"][steady]) == pytest.approx(0.5 / (0.2 / 0.3), rel=0.05)
    speed = np.hypot(p["vx"], p["vy"])[steady]
    assert speed == pytest.approx(0.5, abs=1e-9)


def test_top_speed_and_traction_limit_the_motion():
    _, p = run({"class": "tests.controllers.helpers:Drive", "params": {"v": 5.0, "w": 0.0}}, seconds=3.0,
               drive={"max_wheel_speed": 1.2, "max_accel": 4.0, "friction": 0.1})
    speed = np.hypot(p["vx"], p["vy"])
    t = p["t_ns"] / 1e9
    assert speed.max() == pytest.approx(1.2, abs=1e-9)
    # friction 0.1 allows 0.981 m/s^2, less than the motors' 4: 0.5 s after the start, 0.49 m/s
    assert speed[np.argmin(np.abs(t - 0.5))] == pytest.approx(0.1 * 9.81 * 0.5, abs=0.02)


def test_no_sideways_motion_and_heading_follows_the_turn():
    _, p = run({"class": "tests.controllers.helpers:Drive", "params": {"v": 0.5, "w": 0.3}}, seconds=5.0)
    moving = np.hypot(p["vx"], p["vy"]) > 1e-6
    along = np.cos(p["heading"]) * p["vy"] - np.sin(p["heading"]) * p["vx"]
    assert np.abs(along[moving]).max() < 1e-9


def test_generic_controllers_steer_wheeled_robots_by_heading():
    """RandomWalk only calls set_velocity and turn: the wheels follow, never sideways."""
    _, p = run({"class": "controllers.library.random_walk:RandomWalk", "params": {"max_speed": 0.8}}, seconds=10.0, count=3)
    speed = np.hypot(p["vx"], p["vy"])
    assert speed.max() > 0.1 and speed.max() <= 1.0 + 1e-9
    side = np.cos(p["heading"]) * p["vy"] - np.sin(p["heading"]) * p["vx"]
    assert np.abs(side).max() < 1e-9
