"""Compiled general controllers on the fused engine: steps, timers (started at setup or later),
on_message, drives, velocities, broadcasts, unicasts and records inside the compiled loop, with the
event engine's trace, bit for bit."""

from __future__ import annotations

import numpy as np
import pytest

import cosim
from cosim.fused_engine import records
from cosim.fused_engine.controllers import STEP
from tests.conftest import ROOT, base_scenario
from tests.cosim.fused_engine.engines import both, same

pytestmark = pytest.mark.kernels  # also run bounds-checked: `make test`, NUMBA_BOUNDSCHECK=1

PROBES = "tests.controllers.compiled.probes"


@pytest.mark.parametrize("noise, loss", [(0.0, 0.0), (0.004, 0.3)])
def test_the_reacting_follower_gives_the_event_engines_trace(noise, loss, monkeypatch):
    overrides = {"duration": 20.0, "groups.1.count": 15, "output.trace.network": True,
                 "groups.1.controller.class": "controllers.case_studies.kilobot_compiled:ChainFollowerRobot",
                 "groups.1.controller.params": {"follow_distance": 0.04, "distance_noise": noise},
                 "network.radio.fast.loss_probability": loss}
    same(*both(monkeypatch, lambda: cosim.build(cosim.load(ROOT / "configs" / "kilombo_follow.yaml", overrides))))


def test_the_stepping_follower_gives_the_event_engines_trace(monkeypatch):
    overrides = {"duration": 20.0, "groups.1.count": 12, "groups.1.controller.phase": 0, "output.trace.network": True,
                 "groups.1.controller.class": "controllers.case_studies.kilobot_compiled:TickedChainFollowerRobot"}
    same(*both(monkeypatch, lambda: cosim.build(cosim.load(ROOT / "configs" / "kilombo_follow_group.yaml", overrides))))


def scenario(groups: list[dict], loss: float = 0.0, duration: float = 1.0):
    data = base_scenario(duration=duration)
    data["network"] = {"backend": "fast", "radio": {"pathloss": {"model": "unit_disk", "range_m": 6.0},
                                                    "fast": {"loss_probability": loss}}}
    data["output"] = {"trace": {"network": True, "positions_every": 0.25}}
    data["groups"] = groups
    return lambda: cosim.build(cosim.from_dict(data, source="probes.yaml"))


def at(cls: str, points: list, **controller) -> dict:
    return {"name": cls.lower(), "count": len(points), "layout": {"type": "list", "points": points},
            "controller": {"class": f"{PROBES}:{cls}", **controller}}


@pytest.mark.parametrize("loss", [0.0, 0.4])
def test_unicasts_velocities_and_records_give_the_event_engines_trace(loss, monkeypatch):
    """Node 1 pings node 0 from within range, node 2 from beyond it (each unicast dropped, unacknowledged)."""
    make = scenario([at("Counter", [[0, 0, 1]]), at("Pinger", [[3, 0, 1], [0, 30, 1]], phase=0)], loss, 0.95)
    event, fused = both(monkeypatch, make)
    same(event, fused)
    sent, delivered, dropped, acked, not_acked = event[2][:5]
    assert sent == 20 and acked == delivered and acked + not_acked == sent and dropped == not_acked >= 10


def test_timers_started_after_setup_give_the_event_engines_trace(monkeypatch):
    make = scenario([at("LateStarter", [[0, 0, 1], [2, 0, 1], [4, 0, 1]])])
    event, fused = both(monkeypatch, make)
    same(event, fused)
    monkeypatch.setenv("COSIM_ENGINE", "auto")
    sim = make()
    sim.run()
    rec = sim.recorder.tables()["records"]
    t, nodes = np.asarray(rec["t_ns"]), np.asarray(rec["node"])
    assert len(t) > 3 * 12 and t.min() >= 200_000_000  # beacons from 0.2 s on, two timers each
    assert set(nodes.tolist()) == {0, 1, 2}
    R = sim.clock.queue.rings  # the late timers joined the rings the compiled loop runs (none left to Python)
    assert R.kind.tolist() and set(R.kind.tolist()) == {records.CTIMER}
    steps, beacons = R.arg == STEP, R.arg != STEP
    assert sorted(R.node[steps].tolist()) == [0, 1, 2] and sorted(R.node[beacons].tolist()) == [0, 0, 1, 1, 2, 2]
    assert len(set(R.arg[beacons].tolist())) == 1  # the beacon's number, twice per robot


def test_a_controller_reading_the_rssi_stays_on_the_event_engine_and_says_why(monkeypatch):
    from cosim.fused_engine.plan import why_not_fused

    monkeypatch.setenv("COSIM_ENGINE", "auto")
    data = base_scenario(duration=0.3)
    data["groups"] = [at("RssiReader", [[0, 0, 1]]), at("Pinger", [[3, 0, 1]], phase=0)]
    s = cosim.from_dict(data, source="rssi.yaml")
    sim = cosim.build(s)
    assert sim.engine_path == "event"
    assert "RssiReader.on_message reads m.rssi_dbm" in why_not_fused(s, sim, [{}, {}])


def test_replies_sent_while_others_still_receive_give_the_event_engines_trace(monkeypatch):
    """Each robot rebroadcasts what it hears from within on_message, at the instant the other robots
    still receive the same frame: the reply takes a slot of its own, not the frame being delivered."""
    make = scenario([at("Echo", [[0, 0, 1], [2, 0, 1], [4, 0, 1], [1, 1, 1]], phase=0)])
    event, fused = both(monkeypatch, make)
    same(event, fused)
    sent, delivered = event[2][:2]
    assert sent == 201 and delivered == 600  # 5 steps of robot 0, each echoed over three hops
