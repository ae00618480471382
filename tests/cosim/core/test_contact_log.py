"""output.trace.contacts: an event each time a robot starts touching something, once per contact."""

from __future__ import annotations

import math

import pytest

import cosim
from cosim.assembly.simulation import build


def scenario(contacts: bool) -> dict:
    return {
        "name": "contacts", "seed": 1, "duration": 4.0, "quantum": "10 ms",
        "physics": {"backend": "kinematic", "dt": "10 ms"}, "network": {"backend": "none"},
        "world": {"arena_lower": [-10, -10, 0], "arena_upper": [10, 10, 3],
                  "obstacles": [{"center": [0.0, 3.0, 1.0], "size": [4.0, 0.5, 2.0]}]},
        "output": {"trace": {"positions_every": None, "contacts": contacts}},
        "groups": [{"name": "left", "count": 1, "robot": {"radius": 0.2}, "layout": {"type": "point", "position": [-1.0, 0, 1]},
                    "controller": {"class": "tests.controllers.helpers:Slide", "params": {"vx": 0.5, "vy": 0.0}}},
                   {"name": "right", "count": 1, "robot": {"radius": 0.2}, "layout": {"type": "point", "position": [1.0, 0, 1]},
                    "controller": {"class": "tests.controllers.helpers:Slide", "params": {"vx": -0.5, "vy": 0.0}}},
                   {"name": "climber", "count": 1, "robot": {"radius": 0.2},
                    "layout": {"type": "point", "position": [0.0, 0.5, 1.0]},
                    "controller": {"class": "tests.controllers.helpers:Slide", "params": {"vx": 0.0, "vy": 1.0}}}],
    }


def _events(contacts: bool) -> list[tuple[int, str]]:
    sim = build(cosim.from_dict(scenario(contacts)))
    sim.run()
    ev = sim.recorder.tables().get("events", {"node": [], "detail": [], "kind": []})
    return [(int(n), d) for n, d, k in zip(ev["node"], ev["detail"], ev["kind"]) if k == "contact"]


def test_touching_is_one_event_per_contact_that_begins():
    """Two robots drive into each other (they meet at about 1.6 s and stay pressed together): one
    event for each of them. The climber drives +y into the box (its face at y = 2.75, at about
    2.05 s) and stays against it: one event, not one per step."""
    assert _events(True) == [(0, "robot 1"), (1, "robot 0"), (2, "the ground, an obstacle or a wall")]
    assert _events(False) == []


@pytest.mark.parametrize("backend", ["kinematic", "pybullet"])
def test_wheeled_robots_touch_each_other_and_the_box_not_the_ground(backend):
    """The same with differential-drive robots steered by heading, in both worlds: rigid wheels
    always touch the ground, which is no contact (as a kinematic robot on the ground touches nothing)."""
    data = scenario(True)
    data["physics"] = {"backend": backend, "dt": "10 ms"}
    for g, heading, speed in zip(data["groups"], (0.0, math.pi, math.pi / 2), (0.5, 0.5, 1.0)):
        g["robot"] = {"model": "diff_drive", "radius": 0.2}
        g["layout"]["position"][2] = 0.2
        g["controller"] = {"class": "tests.controllers.helpers:Slide", "params": {"vx": speed, "vy": 0.0, "heading": heading}}
    sim = build(cosim.from_dict(data))
    sim.run()
    ev = sim.recorder.tables()["events"]
    got = [(int(n), d, t / 1e9) for n, d, k, t in zip(ev["node"], ev["detail"], ev["kind"], ev["t_ns"]) if k == "contact"]
    assert [(n, d) for n, d, _ in got] == [(0, "robot 1"), (1, "robot 0"), (2, "the ground, an obstacle or a wall")]
    assert [t for *_, t in got] == pytest.approx([2.19, 2.19, 2.78], abs=0.03)
