"""Differential-drive robots as pybullet rigid bodies: they drive as in the kinematic world, push
movable props, climb a gentle slope; props and terrain are refused where they cannot exist."""

from __future__ import annotations

import numpy as np
import pytest

import cosim
from cosim.assembly.simulation import build
from cosim.errors import ScenarioError


def scenario(backend: str, drive: dict, duration: float = 6.0, **world) -> dict:
    return {
        "name": "wheels", "seed": 1, "duration": duration, "quantum": "10 ms",
        "physics": {"backend": backend, "dt": "10 ms"},
        "network": {"backend": "none"},
        "world": {"arena_lower": [-20, -20, 0], "arena_upper": [20, 20, 5], **world},
        "output": {"trace": {"positions_every": 0.1}},
        "groups": [{"name": "r", "count": 1,
                    "robot": {"model": "diff_drive", "radius": 0.2, "mass": 5.0,
                              "drive": {"wheel_base": 0.3, "max_wheel_speed": 1.0, "max_accel": 2.0, "friction": 0.8}},
                    "layout": {"type": "point", "position": [0, 0, 0.2]},
                    "controller": {"class": "tests.controllers.helpers:Drive", "params": drive}}],
    }


def _run(data: dict):
    sim = build(cosim.from_dict(data))
    sim.run()
    return sim


def test_driving_agrees_with_the_kinematic_world():
    """A straight run at 0.5 m/s, and an arc at 0.3 m/s and 0.5 rad/s: within 3 cm and 0.02 rad
    after 6 s (the rigid wheels slip a little and the body settles on them at the start)."""
    for params in ({"v": 0.5, "w": 0.0}, {"v": 0.3, "w": 0.5}):
        poses = []
        for backend in ("kinematic", "pybullet"):
            sim = _run(scenario(backend, params))
            poses.append((sim.world.position_of(0)[:2], float(sim.world.headings()[0])))
        (kin, kin_h), (rigid, rigid_h) = poses
        assert np.linalg.norm(kin - rigid) < 0.03 and abs(kin_h - rigid_h) < 0.02
        assert np.linalg.norm(kin) > 1.0  # it went somewhere


def test_a_robot_pushes_a_movable_box():
    data = scenario("pybullet", {"v": 0.4, "w": 0.0}, duration=8.0,
                    props=[{"center": [1.0, 0.0, 0.15], "size": [0.3, 0.6, 0.3], "mass": 1.0}])
    sim = _run(data)
    box = sim.world.prop_positions()[0]
    assert box[0] > 2.0 and abs(box[1]) < 0.2  # pushed ahead, about 3.2 m of driving minus the gap
    assert sim.world.position_of(0)[0] == pytest.approx(box[0] - 0.35, abs=0.1)  # right behind it
    heavy = scenario("pybullet", {"v": 0.4, "w": 0.0}, duration=8.0,
                     props=[{"center": [1.0, 0.0, 0.15], "size": [0.3, 0.6, 0.3], "mass": 200.0}])
    sim = _run(heavy)
    assert sim.world.prop_positions()[0][0] < 1.05  # too heavy for the wheels' friction: the robot stalls
    assert sim.world.position_of(0)[0] < 0.7


def test_a_robot_climbs_a_gentle_slope():
    """A heightfield rising 0.35 m over 4 m along x (5 degrees), flat before and after."""
    x = np.arange(-4.0, 10.01, 0.5)
    row = np.clip((x - 1.0) * 0.0875, 0.0, 0.35)
    sim = _run(scenario("pybullet", {"v": 0.5, "w": 0.0}, duration=14.0,
                        terrain={"heights": [row.tolist()] * 9, "cell": 0.5, "center": [3.0, 0.0]},
                        arena_lower=[-4, -2, 0], arena_upper=[10, 2, 5]))
    p = sim.world.position_of(0)
    assert p[0] > 5.5  # up the ramp and onto the plateau
    assert p[2] == pytest.approx(0.35 + 0.09, abs=0.03)  # the plateau's height plus the chassis' height


def test_a_heightfield_must_cover_the_arena():
    data = scenario("pybullet", {"v": 0.1}, terrain={"heights": [[0, 0, 0], [0, 0, 0]], "cell": 2.0})
    with pytest.raises(ScenarioError, match=r"world\.terrain: the heightfield covers x -2\.\.2, y -1\.\.1 m but the arena"):
        cosim.from_dict(data)


def test_props_and_terrain_need_pybullet():
    data = scenario("kinematic", {"v": 0.1}, props=[{"center": [1, 0, 0.1], "size": [0.2, 0.2, 0.2]}])
    with pytest.raises(ScenarioError, match=r"world\.props: movable props need physics\.backend: pybullet"):
        cosim.from_dict(data)
    data = scenario("kinematic", {"v": 0.1}, terrain={"heights": [[0, 0], [0, 1]]})
    with pytest.raises(ScenarioError, match=r"world\.terrain: terrain needs physics\.backend: pybullet"):
        cosim.from_dict(data)


@pytest.mark.parametrize("terrain, message", [
    ({"heights": [[0, 0], [0]]}, "every row must have the same number of values"),
    ({"file": "nowhere.csv"}, "file: no such file: .*nowhere.csv"),
    ({"heights": [[0, 0], [0, 0]], "mesh": "ground.obj"}, "give exactly one of heights, file and mesh"),
])
def test_bad_terrain_is_refused_with_the_key(terrain, message):
    with pytest.raises(ScenarioError, match=rf"world.terrain.*{message}"):
        cosim.from_dict(scenario("pybullet", {"v": 0.1}, terrain=terrain))


def test_an_obj_prop_needs_a_mass(tmp_path):
    (tmp_path / "crate.obj").write_text("v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nf 1 2 3\nf 1 2 4\nf 1 3 4\nf 2 3 4\n")
    data = scenario("pybullet", {"v": 0.1}, props=[{"type": "model", "file": str(tmp_path / "crate.obj")}])
    with pytest.raises(ScenarioError, match=r"world.props\[0\].*an OBJ model needs `mass`"):
        cosim.from_dict(data)
