"""The coordinator's quiet stretches: ticks with nothing else between them run in one world call,
and the run is the same as tick by tick."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import cosim
from cosim.core.coordinator import Simulation
from physics.kinematic.world import KinematicWorld

RUN_STEPS = KinematicWorld.run_steps
CONFIG = Path(__file__).resolve().parents[3] / "configs" / "ground_robots.yaml"


def _run(monkeypatch, coast: bool | None, overrides: dict, cls: str = "controllers.library.avoider_group:ObstacleAvoiderGroup",
         count: int = 30):
    stretches = []
    monkeypatch.setattr(KinematicWorld, "run_steps", lambda w, dt, m: stretches.append(m) or RUN_STEPS(w, dt, m))
    if coast is not None:
        monkeypatch.setattr(Simulation, "_may_coast", lambda self: coast)
    sim = cosim.build(cosim.load(CONFIG, {"duration": 5.0, "groups.0.count": count, "output.trace.positions_every": 0.25,
                                          "groups.0.controller.class": cls, **overrides}))
    sim.run()
    return sim, sim.recorder.tables()["positions"], stretches


@pytest.mark.parametrize("cls, count", [("controllers.library.avoider_group:ObstacleAvoiderGroup", 30),
                                        ("controllers.library.avoider:ObstacleAvoider", 5)])
def test_a_quiet_stretch_runs_in_one_world_call_and_changes_nothing(cls, count, monkeypatch):
    sim, pos, stretches = _run(monkeypatch, None, {"network.backend": "none"}, cls, count)
    plain, ref, none = _run(monkeypatch, False, {"network.backend": "none"}, cls, count)
    assert none == [] and len(stretches) > 20
    if "group" in cls:  # the group's 10 Hz ticks and the 20 Hz progress reports bound them
        assert max(stretches) >= 4 and sum(stretches) > 0.8 * sim.counters.physics_steps
    else:  # five robots' timers at random phases leave some 10 ms without a timer
        assert 0.2 * sim.counters.physics_steps < sum(stretches) < 0.8 * sim.counters.physics_steps
    for column in ("x", "y", "heading"):
        assert np.array_equal(ref[column], pos[column]), column
    assert (sim.counters.physics_steps, sim.counters.events) == (plain.counters.physics_steps, plain.counters.events)
    assert sim.counters.physics_steps == 500


def test_a_network_keeps_every_tick_on_the_timeline(monkeypatch):
    _, _, stretches = _run(monkeypatch, None, {"network.backend": "fast"})
    assert stretches == []
