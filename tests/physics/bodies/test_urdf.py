"""Your own robot from a URDF file: it drives like a diff_drive robot, and a wrong file, joint,
unit or backend is refused with the key named."""

from __future__ import annotations

import shutil

import pytest
import yaml

import cosim
from cosim.assembly.simulation import build
from cosim.errors import ScenarioError
from tests.conftest import ROOT

ROVER = ROOT / "configs" / "models" / "rover.urdf"


def scenario(urdf: dict | None = None, backend: str = "pybullet", command: dict | None = None, **robot) -> dict:
    spec = {"file": str(ROVER), "left_wheel": "left_wheel_joint", "right_wheel": "right_wheel_joint",
            "wheel_radius": 0.06, "track": 0.34, **(urdf or {})}
    return {
        "name": "urdf", "seed": 1, "duration": 5.0, "quantum": "10 ms",
        "physics": {"backend": backend, "dt": "10 ms"}, "network": {"backend": "none"},
        "world": {"arena_lower": [-10, -10, 0], "arena_upper": [10, 10, 3]},
        "groups": [{"name": "r", "count": 1, "robot": {"model": "urdf", "radius": 0.25, "urdf": spec, **robot},
                    "layout": {"type": "point", "position": [0, 0, 0]},
                    "controller": {"class": "tests.controllers.helpers:Drive", "params": command or {"v": 0.3, "w": 0.0}}}],
    }


def test_the_rover_drives_straight_and_turns_the_commanded_way():
    sim = build(cosim.from_dict(scenario()))
    sim.run()
    x, y, z = sim.world.position_of(0)
    assert x == pytest.approx(0.3 * 5.0 - 0.05, abs=0.1) and abs(y) < 0.05  # 0.3 m/s for 5 s, less the start
    assert 0.05 < z < 0.15  # on its wheels, not sunk or flying
    sim = build(cosim.from_dict(scenario(command={"v": 0.2, "w": 0.4})))
    sim.run()
    assert float(sim.world.headings()[0]) == pytest.approx(0.4 * 5.0 - 0.05, abs=0.15)  # counter-clockwise


def test_the_model_file_is_found_beside_the_scenario(tmp_path):
    shutil.copy(ROVER, tmp_path / "mine.urdf")
    data = scenario({"file": "mine.urdf"})
    path = tmp_path / "s.yaml"
    path.write_text(yaml.safe_dump(data))
    assert cosim.load(path).groups[0].robot.urdf.file == str(tmp_path / "mine.urdf")


@pytest.mark.parametrize("urdf, message", [
    ({"file": "/nowhere/robot.urdf"}, "file: no such file: /nowhere/robot"),
    ({"left_wheel": "left_wheel"}, "left_wheel: 'left_wheel' is not a joint of the model; its turning joints: "
                                   "left_wheel_joint, right_wheel_joint"),
    ({"right_wheel": "caster_joint"}, "right_wheel: 'caster_joint' is not a revolute or continuous joint"),
    ({"scale": 1000.0}, "its largest shape is 400 m across"),
    ({"wheel_radius": 0.0}, "wheel_radius, track and scale must be > 0"),
])
def test_bad_models_are_refused_with_the_key(urdf, message):
    with pytest.raises(ScenarioError, match=r"groups\[0\]\.robot\.urdf.*" + message.replace(".", r"\.")):
        cosim.from_dict(scenario(urdf))


def test_a_urdf_robot_needs_pybullet_and_its_track_in_one_place():
    with pytest.raises(ScenarioError, match=r"groups\[0\]\.robot\.model: urdf robots need physics\.backend: pybullet"):
        cosim.from_dict(scenario(backend="kinematic"))
    with pytest.raises(ScenarioError, match=r"a urdf robot's wheel base is urdf\.track"):
        cosim.from_dict(scenario(drive={"wheel_base": 0.5}))
    data = scenario()
    data["groups"][0]["robot"] = {"model": "diff_drive", "urdf": data["groups"][0]["robot"]["urdf"]}
    with pytest.raises(ScenarioError, match="only it takes them"):
        cosim.from_dict(data)


def test_a_wheel_joint_that_does_not_turn_about_the_axle_is_refused(tmp_path):
    bent = tmp_path / "bent.urdf"
    bent.write_text(ROVER.read_text().replace('<origin xyz="0 0.17 -0.03" rpy="-1.5708 0 0"/>',
                                              '<origin xyz="0 0.17 -0.03" rpy="0 0 0"/>'))
    sim_data = scenario({"file": str(bent)})
    with pytest.raises(ValueError, match="does not turn about the robot's left-right"):
        build(cosim.from_dict(sim_data))
