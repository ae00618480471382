"""The scenario files kept beside the benchmarks run as written, on the path the benchmarks measure."""

from __future__ import annotations

import numpy as np
import yaml

import cosim
from physics.kinematic.world import KinematicWorld
from tests.conftest import ROOT

PLAIN_ARGOS = ROOT / "benchmarks" / "argos_diffusion.yaml"


def test_the_plain_argos_file_sets_no_tuning_key():
    group = yaml.safe_load(PLAIN_ARGOS.read_text())["groups"][0]
    assert set(group["sensors"]["range"]) == {"count", "max_range"}  # no rate_hz: what a user writes


def test_the_plain_argos_file_casts_each_group_tick_in_one_call(monkeypatch):
    """100 foot-bots, their group controller at 10 Hz for 1 s: ten or eleven casts of every robot's rays (one
    per tick), none robot by robot, and the robots move."""
    calls: list[int] = []
    real_fans, real_rays = KinematicWorld.cast_fans, KinematicWorld.cast_rays
    monkeypatch.setattr(KinematicWorld, "cast_fans", lambda self, *a: calls.append(len(a[0])) or real_fans(self, *a))
    monkeypatch.setattr(KinematicWorld, "cast_rays", lambda self, *a: calls.append(-1) or real_rays(self, *a))
    sim = cosim.build(cosim.load(PLAIN_ARGOS, {"duration": 1.0}))
    sim.run()
    trace = sim.recorder.tables()["positions"]
    sim.close()
    x, y = np.asarray(trace["x"]).reshape(-1, 100), np.asarray(trace["y"]).reshape(-1, 100)  # samples at 0 and 1 s
    moved = np.hypot(x[-1] - x[0], y[-1] - y[0])
    assert set(calls) == {100} and len(calls) in (10, 11)  # a tick every 100 ms from a random phase, end included
    assert moved.mean() > 0.005  # they walk (at most 5 cm/s, pushed apart where they touch)


def test_every_plain_file_beside_the_benchmarks_runs_as_written(tmp_path):
    """Each benchmarks/*.yaml runs through cosim.run as a user runs it (1 simulated s), on the engine
    its benchmark measures: the compiled kilolib programs fused, the others on the event loop."""
    expected = {"argos_diffusion.yaml": "event", "bianchi.yaml": "event", "kilombo_follow.yaml": "fused",
                "simbeeotic.yaml": "event"}
    files = sorted(p.name for p in (ROOT / "benchmarks").glob("*.yaml") if p.name != "argos_world_100.yaml")
    assert files == sorted(expected)
    for name in files:
        result = cosim.run(cosim.load(ROOT / "benchmarks" / name, {"duration": 1.0}), out_dir=tmp_path / name)
        assert result.status == "ok", (name, result.error)
        assert (result.metrics["engine_path"], result.metrics["slower_paths"]) == (expected[name], []), name
        assert result.metrics["messages_sent"] > 0 or name != "kilombo_follow.yaml"  # the followers listen
