"""Props and terrain from model files in the pybullet world: OBJ and URDF props a robot pushes, a
static URDF obstacle that blocks rays and robots, and an OBJ mesh as the ground."""

from __future__ import annotations

import numpy as np
import pytest

import cosim
from cosim.assembly.simulation import build
from cosim.errors import ScenarioError
from tests.physics.pybullet.test_wheeled import scenario

CRATE_URDF = """<?xml version="1.0"?>
<robot name="crate">
  <link name="body">
    <inertial><mass value="{mass}"/><inertia ixx="0.03" iyy="0.03" izz="0.03" ixy="0" ixz="0" iyz="0"/></inertial>
    <collision><geometry><box size="{x} {y} {z}"/></geometry></collision>
  </link>
</robot>
"""


def _cube_obj(half_x: float, half_y: float, half_z: float) -> str:
    """A box as an OBJ mesh, centred on its origin."""
    corners = [(sx * half_x, sy * half_y, sz * half_z) for sz in (-1, 1) for sy in (-1, 1) for sx in (-1, 1)]
    faces = ["f 1 3 4 2", "f 5 6 8 7", "f 1 2 6 5", "f 3 7 8 4", "f 1 5 7 3", "f 2 4 8 6"]
    return "\n".join([f"v {x} {y} {z}" for x, y, z in corners] + faces) + "\n"


def _ramp_obj(x: np.ndarray, height: np.ndarray, y_half: float) -> str:
    """A ground surface z = height(x), flat across y in [-y_half, y_half], as strips of triangles."""
    lines = []
    for xi, zi in zip(x, height):
        lines += [f"v {xi} {-y_half} {zi}", f"v {xi} {y_half} {zi}"]
    for k in range(len(x) - 1):
        a, b, c, d = 2 * k + 1, 2 * k + 2, 2 * k + 3, 2 * k + 4  # OBJ counts vertices from 1
        lines += [f"f {a} {c} {b}", f"f {b} {c} {d}"]
    return "\n".join(lines) + "\n"


def _run(data: dict, tmp_path):
    sim = build(cosim.from_dict(data, source=str(tmp_path / "scenario.yaml")))
    sim.run()
    return sim


@pytest.mark.parametrize("model", ["crate.obj", "crate.urdf"])
def test_a_robot_pushes_a_model_prop(model, tmp_path):
    """The same 0.3 x 0.6 x 0.3 m, 1 kg crate from an OBJ (mass given) and from a URDF (mass in the
    file), found beside the scenario: pushed ahead as far as the box prop; 200 kg stalls the robot."""
    for mass in (1.0, 200.0):
        (tmp_path / "crate.obj").write_text(_cube_obj(0.15, 0.3, 0.15))
        (tmp_path / "crate.urdf").write_text(CRATE_URDF.format(mass=mass, x=0.3, y=0.6, z=0.3))
        prop = {"type": "model", "file": model, "position": [1.0, 0.0, 0.15]}
        if model.endswith(".obj"):
            prop["mass"] = mass
        sim = _run(scenario("pybullet", {"v": 0.4, "w": 0.0}, duration=8.0, props=[prop]), tmp_path)
        crate = sim.world.prop_positions()[0]
        if mass == 1.0:
            assert crate[0] > 2.0 and abs(crate[1]) < 0.2 and crate[2] == pytest.approx(0.15, abs=0.02)
            assert sim.world.position_of(0)[0] == pytest.approx(crate[0] - 0.35, abs=0.1)  # right behind it
        else:
            assert crate[0] < 1.05 and sim.world.position_of(0)[0] < 0.7


def test_a_dropped_obj_prop_lands_on_the_ground(tmp_path):
    (tmp_path / "crate.obj").write_text(_cube_obj(0.2, 0.2, 0.2))
    prop = {"type": "model", "file": "crate.obj", "position": [3.0, 3.0, 1.5], "mass": 2.0}
    sim = _run(scenario("pybullet", {"v": 0.0, "w": 0.0}, duration=2.0, props=[prop]), tmp_path)
    assert sim.world.prop_positions()[0] == pytest.approx([3.0, 3.0, 0.2], abs=0.01)


def test_a_static_urdf_obstacle_blocks_rays_and_robots(tmp_path):
    (tmp_path / "pillar.urdf").write_text(CRATE_URDF.format(mass=5.0, x=0.4, y=2.0, z=1.0))
    obstacle = {"type": "mesh", "file": "pillar.urdf", "position": [2.0, 0.0, 0.5]}
    sim = _run(scenario("pybullet", {"v": 0.4, "w": 0.0}, duration=8.0, obstacles=[obstacle]), tmp_path)
    x = sim.world.position_of(0)[0]
    assert x == pytest.approx(1.8 - 0.2, abs=0.05)  # against its face at x = 1.8, the robot's radius away
    d = sim.world.cast_rays(0, np.array([[1.0, 0.0, 0.0], [-1.0, 0.0, 0.0]]), 5.0)
    assert d[0] == pytest.approx(1.8 - x - 0.2, abs=0.02) and d[1] == 5.0
    assert sim.world.position_of(0)[0] == x  # fixed: nothing moved it


def test_an_obj_mesh_is_the_ground(tmp_path):
    """An OBJ ramp rising 0.35 m over 4 m along x, as the heightfield test's: up it and onto the plateau."""
    x = np.arange(-4.0, 10.01, 0.5)
    (tmp_path / "ground.obj").write_text(_ramp_obj(x, np.clip((x - 1.0) * 0.0875, 0.0, 0.35), 2.0))
    data = scenario("pybullet", {"v": 0.5, "w": 0.0}, duration=14.0, terrain={"mesh": "ground.obj"},
                    arena_lower=[-4, -2, 0], arena_upper=[10, 2, 5])
    sim = _run(data, tmp_path)
    p = sim.world.position_of(0)
    assert p[0] > 5.5
    assert p[2] == pytest.approx(0.35 + 0.09, abs=0.03)  # the plateau's height plus the chassis' height


@pytest.mark.parametrize("prop, message", [
    ({"type": "model", "file": "crate.urdf", "mass": 1.0}, "a URDF model's masses come from its file"),
    ({"type": "model", "file": "crate.stl", "mass": 1.0}, "model file must be .obj or .urdf"),
    ({"type": "model", "file": "nowhere.obj", "mass": 1.0}, "file: no such file: .*nowhere.obj"),
    ({"type": "model", "file": "crate.obj", "mass": 1.0, "scale": 0}, "scale must be > 0"),
])
def test_bad_model_props_are_refused_with_the_key(prop, message, tmp_path):
    (tmp_path / "crate.obj").write_text(_cube_obj(0.1, 0.1, 0.1))
    (tmp_path / "crate.urdf").write_text(CRATE_URDF.format(mass=1.0, x=0.2, y=0.2, z=0.2))
    (tmp_path / "crate.stl").write_text("solid x\nendsolid x\n")
    with pytest.raises(ScenarioError, match=rf"world\.props\[0\].*{message}"):
        cosim.from_dict(scenario("pybullet", {"v": 0.1}, props=[prop]), source=str(tmp_path / "scenario.yaml"))


@pytest.mark.parametrize("suffix", [".csv", ".npy"])
def test_heights_from_a_file_beside_the_scenario_are_the_inline_ground(suffix, tmp_path):
    """The heightfield slope of test_pybullet_wheeled, read from a file: the same climb, to the bit."""
    x = np.arange(-4.0, 10.01, 0.5)
    grid = np.array([np.clip((x - 1.0) * 0.0875, 0.0, 0.35)] * 9)
    if suffix == ".csv":
        np.savetxt(tmp_path / "ground.csv", grid, delimiter=",")
    else:
        np.save(tmp_path / "ground.npy", grid)
    ends = []
    for terrain in ({"heights": grid.tolist()}, {"file": f"ground{suffix}"}):
        data = scenario("pybullet", {"v": 0.5, "w": 0.0}, duration=8.0, terrain={**terrain, "cell": 0.5, "center": [3.0, 0.0]},
                        arena_lower=[-4, -2, 0], arena_upper=[10, 2, 5])
        ends.append(_run(data, tmp_path).world.position_of(0))
    assert ends[0][2] > 0.2 and np.array_equal(ends[0], ends[1])


def test_random_layouts_keep_clear_of_props(tmp_path):
    """Props fill much of a 4 m square; 30 rovers drawn at random with collision kills start clear
    of every box, cylinder and OBJ model prop, and none dies touching one (touching each other at the
    start is the layout's own matter: random layouts do not space robots)."""
    (tmp_path / "crate.obj").write_text(_cube_obj(0.5, 0.5, 0.15))
    props = [{"type": "box", "center": [x, y, 0.15], "size": [0.9, 0.9, 0.3], "yaw": 0.3}
             for x in (-1.5, 0.5) for y in (-1.5, 0.5)]
    props += [{"type": "cylinder", "center": [1.5, -1.5, 0.15], "radius": 0.5, "height": 0.3},
              {"type": "model", "file": "crate.obj", "position": [-1.5, 1.5, 0.15], "mass": 2.0}]
    data = scenario("pybullet", {"v": 0.0, "w": 0.0}, duration=0.2, props=props)
    data["groups"][0].update(count=30, layout={"type": "random_box", "lower": [-2, -2, 0.2], "upper": [2, 2, 0.2]},
                             faults={"collision_kills": True})
    s = cosim.from_dict(data, source=str(tmp_path / "scenario.yaml"))
    shapes = [p.footprint() for p in s.world.props]
    sim = build(s)
    sim.world.start()
    starts = sim.world.positions()
    assert all(min(sh.gap(p) for sh in shapes) >= 0.2 - 1e-9 for p in starts)
    sim.run()
    events = sim.recorder.tables()["events"]
    deaths = [d for k, d in zip(events["kind"], events["detail"]) if k == "collision"]
    assert deaths and all(d.startswith("robot ") for d in deaths), deaths


def test_a_terrain_file_that_is_not_numbers_is_refused_without_unsafe_advice(tmp_path):
    from physics.scene.props import Terrain

    (tmp_path / "garbage.npy").write_bytes(b"not an array at all")
    np.save(tmp_path / "objects.npy", np.array([{"a": 1}], dtype=object), allow_pickle=True)
    for name in ("garbage.npy", "objects.npy"):
        with pytest.raises(ValueError) as info:
            Terrain(file=str(tmp_path / name)).grid()
        assert "is not a NumPy .npy array of numbers" in str(info.value) and "unsafe" not in str(info.value)
