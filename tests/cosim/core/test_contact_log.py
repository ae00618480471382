"""output.trace.contacts: an event each time a robot starts touching something, once per contact."""

from __future__ import annotations

import cosim
from cosim.engine.assemble import build


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
