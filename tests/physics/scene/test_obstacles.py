"""Obstacle shapes (box, cylinder, diagonal wall, mesh), the world file, and start layouts clear of obstacles."""

import math
import textwrap

import numpy as np
import pytest

import cosim
from cosim.assembly.simulation import build
from cosim.errors import ScenarioError
from physics.scene.obstacles import Box, Cylinder, Wall


def test_cylinder_rays_and_push_out():
    cyl = Cylinder((5.0, 0.0, 1.0), 1.0, 2.0)
    origins = np.array([[0.0, 0.0, 1.0], [0.0, 0.0, 1.0], [0.0, 0.0, 2.5]])
    dirs = np.array([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [1.0, 0.0, 0.0]])
    assert cyl.rays(origins, dirs).tolist() == [4.0, math.inf, math.inf]  # hit; beside it; above it
    pos = np.array([[4.5, 0.1, 1.0], [9.0, 0.0, 1.0]])
    moved = cyl.push_out(pos, np.array([0.2, 0.2]))
    assert moved.tolist() == [0]
    assert math.hypot(pos[0, 0] - 5.0, pos[0, 1]) == pytest.approx(1.2)


def test_a_diagonal_wall_blocks_rays_and_robots():
    w = Wall((0.0, 0.0), (10.0, 10.0), height=2.0, thickness=0.2)
    # a ray from (5, 0) straight up (+y) meets the wall's near face at y = 5 - 0.1 * sqrt(2)
    d = w.rays(np.array([[5.0, 0.0, 1.0]]), np.array([[0.0, 1.0, 0.0]]))
    assert d[0] == pytest.approx(5.0 - 0.1 * math.sqrt(2.0))
    pos = np.array([[5.0, 5.05, 1.0]])  # just inside, on the upper-left side of the centre line
    w.push_out(pos, np.array([0.1]))
    gap = (pos[0, 1] - pos[0, 0]) / math.sqrt(2.0)  # signed distance from the centre line
    assert gap == pytest.approx(0.1 + 0.1)
    assert w.gap(np.array([5.0, 0.0, 1.0])) == pytest.approx(5.0 / math.sqrt(2.0) - 0.1)


def test_box_gap_is_a_lower_bound_on_distance():
    b = Box((0.0, 0.0, 0.0), (2.0, 2.0, 2.0))
    assert b.gap(np.array([4.0, 5.0, 0.0])) == pytest.approx(5.0)
    assert b.gap(np.array([0.5, 0.0, 0.0])) == 0.0


def scenario_with_world(world, layout=None, backend="kinematic", source="scenario.yaml"):
    data = {"name": "w", "duration": 1.0, "physics": {"backend": backend, "dt": "10 ms"}, "network": {"backend": "none"},
            "world": world,
            "groups": [{"name": "g", "count": 1 if layout and layout["type"] == "point" else 30, "robot": {"radius": 0.3},
                        "layout": layout or {"type": "random_box", "lower": [0, 0, 0.5], "upper": [10, 10, 0.5]},
                        "controller": {"class": "controllers.library.station:Station"}}]}
    return cosim.from_dict(data, source=source)


def test_world_file_is_read_relative_to_the_scenario(tmp_path):
    (tmp_path / "worlds").mkdir()
    (tmp_path / "worlds" / "room.yaml").write_text(textwrap.dedent("""
        arena_lower: [0, 0, 0]
        arena_upper: [10, 10, 3]
        obstacles:
          - {center: [5, 5, 1], size: [2, 2, 2]}
          - {type: cylinder, center: [2, 8, 1], radius: 0.5, height: 2}
          - {type: wall, start: [7, 1], end: [9, 3]}
    """))
    s = scenario_with_world({"file": "worlds/room.yaml"}, source=str(tmp_path / "scenario.yaml"))
    assert [type(o) for o in s.world.obstacles] == [Box, Cylinder, Wall]
    assert s.world.arena_upper == (10.0, 10.0, 3.0)


def test_world_file_errors_name_the_problem(tmp_path):
    with pytest.raises(ScenarioError, match="cannot read the world file"):
        scenario_with_world({"file": "missing.yaml"}, source=str(tmp_path / "s.yaml"))
    (tmp_path / "w.yaml").write_text("arena_lower: [0, 0, 0]\narena_upper: [10, 10, 3]\n")
    with pytest.raises(ScenarioError, match=r"move arena_lower into w\.yaml"):
        scenario_with_world({"file": "w.yaml", "arena_lower": [0, 0, 0]}, source=str(tmp_path / "s.yaml"))
    with pytest.raises(ScenarioError, match=r"world\.obstacles\[0\]\.type: unknown type 'sphere'"):
        scenario_with_world({"obstacles": [{"type": "sphere", "center": [0, 0, 0]}]})


def test_random_starts_are_drawn_clear_of_obstacles_and_fixed_ones_are_refused():
    world = {"arena_lower": [-1, -1, 0], "arena_upper": [11, 11, 3],
             "obstacles": [{"center": [5, 5, 1], "size": [6, 6, 2]},
                           {"type": "cylinder", "center": [1, 9, 1], "radius": 1.0, "height": 2}]}
    sim = build(scenario_with_world(world))
    sim.world.start()
    pos = sim.world.positions()
    clear = [all(sh.gap(p) >= 0.3 - 1e-9 for sh in sim.world.obstacles) for p in pos]
    assert all(clear)
    with pytest.raises(ScenarioError, match=r"overlap an obstacle or a prop, e\.g\. robot 0 at"):
        build(scenario_with_world(world, {"type": "grid", "origin": [5, 5, 0.5], "spacing": 0.7, "columns": 6}))


def test_meshes_load_in_pybullet_and_block_rays(tmp_path):
    cube = ["v -1 -1 -1", "v 1 -1 -1", "v 1 1 -1", "v -1 1 -1", "v -1 -1 1", "v 1 -1 1", "v 1 1 1", "v -1 1 1",
            "f 1 2 3 4", "f 5 8 7 6", "f 1 5 6 2", "f 2 6 7 3", "f 3 7 8 4", "f 5 1 4 8"]
    (tmp_path / "cube.obj").write_text("\n".join(cube) + "\n")
    world = {"arena_lower": [-10, -10, 0], "arena_upper": [10, 10, 5],
             "obstacles": [{"type": "mesh", "file": "cube.obj", "position": [4, 0, 1]}]}
    layout = {"type": "point", "position": [0, 0, 1]}
    with pytest.raises(ScenarioError, match=r"mesh obstacles need physics\.backend: pybullet"):
        scenario_with_world(world, layout, source=str(tmp_path / "s.yaml"))
    s = scenario_with_world(world, layout, backend="pybullet", source=str(tmp_path / "s.yaml"))
    sim = build(s)
    sim.world.start()
    d = sim.world.cast_rays(0, np.array([[1.0, 0.0, 0.0]]), 10.0)
    assert d[0] == pytest.approx(3.0 - 0.3, abs=0.02)  # the cube's face at x = 3, from the robot's surface
    sim.world.close()
