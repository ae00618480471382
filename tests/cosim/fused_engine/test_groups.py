"""Compiled group steps on the fused engine: the group's ticks, inbox, drives, velocities, broadcasts,
unicasts and records run inside the compiled loop, the Python leader's and the group's Python timers
between its stretches, and the trace is the event engine's, bit for bit (losses, drops, acks)."""

from __future__ import annotations

import numpy as np
import pytest

import cosim
from tests.conftest import ROOT, base_scenario
from tests.cosim.fused_engine.engines import both

pytestmark = pytest.mark.kernels  # also run bounds-checked: `make test`, NUMBA_BOUNDSCHECK=1

GROUP_CONFIG = ROOT / "configs" / "kilombo_follow_group.yaml"
COMPILED = "controllers.case_studies.kilobot_group_compiled:ChainFollowerCompiled"
BAD = "tests.controllers.compiled.bad_programs"


def chain(overrides: dict):
    trace = {"output.trace.positions_every": 0.5, "output.trace.network": True}
    return lambda: cosim.build(cosim.load(GROUP_CONFIG, {"groups.1.controller.class": COMPILED, **trace, **overrides}))


CASES = {
    "as configured": {"duration": 20.0},
    "losses, a leader that turns every second it moves": {
        "duration": 30.0, "network.radio.fast.loss_probability": 0.3,
        "groups.0.controller.params": {"leader_duty": 0.5, "leader_turn_every": 1}},
    "120 robots (the radio's cell index), a quantum of 3 steps": {
        "duration": 8.0, "groups.1.count": 119, "world.arena_lower": [-7, -3, 0], "quantum": "96.75 ms"},
}


@pytest.mark.parametrize("case", CASES, ids=list(CASES))
def test_a_compiled_group_with_a_python_leader_gives_the_event_engines_trace(case, monkeypatch):
    event, fused = both(monkeypatch, chain(CASES[case]))
    assert (event[0], fused[0]) == ("event", "fused")
    assert fused[2] == event[2] and event[2][1] > 0
    assert fused[1] == event[1]


def pingers(loss: float):
    """A listener at the origin (node 0) and two pingers sending to it each 0.1 s: node 1 in range,
    node 2 out of it; on point robots."""
    data = base_scenario(duration=0.95)
    data["network"] = {"backend": "fast", "radio": {"pathloss": {"model": "unit_disk", "range_m": 6.0},
                                                    "fast": {"loss_probability": loss}}}
    data["output"] = {"trace": {"network": True, "positions_every": 0.25}}
    data["groups"] = [
        {"name": "a", "count": 1, "layout": {"type": "list", "points": [[0, 0, 1]]},
         "controller": {"class": f"{BAD}:Listener"}},
        {"name": "b", "count": 2, "layout": {"type": "list", "points": [[5, 0, 1], [0, 30, 1]]},
         "controller": {"class": f"{BAD}:GroupPinger"}},
    ]
    return lambda: cosim.build(cosim.from_dict(data, source="pingers.yaml"))


@pytest.mark.parametrize("loss", [0.0, 0.4])
def test_unicasts_velocities_and_records_give_the_event_engines_trace(loss, monkeypatch):
    event, fused = both(monkeypatch, pingers(loss))
    assert (event[0], fused[0]) == ("event", "fused")
    assert fused[2] == event[2] and fused[1] == event[1]
    sent, delivered, dropped, acked, not_acked = event[2][:5]
    assert sent == 20 and acked == delivered and acked + not_acked == sent
    assert not_acked >= 10  # node 2 is out of range: each of its unicasts is dropped, unacknowledged
    assert dropped == not_acked


def test_the_drops_name_their_reasons_on_the_fused_engine(monkeypatch):
    monkeypatch.setenv("COSIM_ENGINE", "auto")
    sim = pingers(0.4)()
    sim.run()
    net = sim.recorder.tables()["network"]
    kind, reason, src = np.asarray(net["kind"]), np.asarray(net["drop_reason"]), np.asarray(net["src"])
    drops = kind == 2
    assert set(reason[drops & (src == 2)].tolist()) == {2}  # out of range: unreachable
    assert set(reason[drops & (src == 1)].tolist()) == {1}  # in range: lost to the loss draw
    assert (kind == 3).sum() + (kind == 4).sum() == 20  # an ack or no-ack row for each unicast


def test_what_keeps_a_group_on_the_event_engine_is_said(monkeypatch):
    from cosim.fused_engine.plan import why_not_fused

    monkeypatch.setenv("COSIM_ENGINE", "auto")
    python = cosim.build(cosim.load(GROUP_CONFIG, {"duration": 1.0}))  # ChainFollowerGroup: Python
    assert python.engine_path == "event"
    listening = cosim.load(GROUP_CONFIG, {"duration": 1.0, "groups.1.controller.class": COMPILED,
                                          "groups.0.controller.class": "controllers.case_studies.kilobot:ChainFollower",
                                          "groups.0.controller.period": None, "groups.0.controller.phase": None})
    sim = cosim.build(listening)
    assert sim.engine_path == "event"
    assert why_not_fused(listening, sim, [{}] * 20) == "a Python controller that listens (ChainFollower.on_message)"


def one_group(cls: str, model: str, params: dict):
    data = base_scenario(duration=0.3)
    data.pop("groups")
    robot = {"model": "diff_drive", "radius": 0.1} if model == "diff_drive" else {"radius": 0.1}
    data["groups"] = [{"name": "g", "count": 2, "robot": robot, "layout": {"type": "list", "points": [[0, 0, 0], [1, 0, 0]]},
                       "controller": {"class": f"{BAD}:{cls}", "params": params}}]
    return cosim.build(cosim.from_dict(data, source="one.yaml"))


@pytest.mark.parametrize(("model", "command", "said"), [
    ("point", 0, "drive: .*not a wheeled robot"),
    ("diff_drive", 1, "cannot climb"),
    ("point", 2, "must be a finite number|must be finite numbers"),
])
def test_a_command_the_bodies_cannot_take_stops_the_run_on_both_engines(model, command, said, monkeypatch):
    for engine, path in (("event", "event"), ("auto", "fused")):
        monkeypatch.setenv("COSIM_ENGINE", engine)
        sim = one_group("GroupMisfit", model, {"command": command})
        assert sim.engine_path == path
        with pytest.raises(cosim.SimulationError, match=said):
            sim.run()


def chatter():
    """A listener at the origin (node 0) and four chatterers (nodes 1..4) in its range."""
    data = base_scenario(duration=0.35)
    data["network"] = {"backend": "fast", "radio": {"pathloss": {"model": "unit_disk", "range_m": 50.0}}}
    data["output"] = {"trace": {"network": True}}
    data["groups"] = [
        {"name": "a", "count": 1, "layout": {"type": "list", "points": [[0, 0, 1]]},
         "controller": {"class": f"{BAD}:Listener"}},
        {"name": "b", "count": 4, "layout": {"type": "list", "points": [[1, 0, 1], [2, 0, 1], [3, 0, 1], [4, 0, 1]]},
         "controller": {"class": f"{BAD}:Chatter"}},
    ]
    return cosim.build(cosim.from_dict(data, source="chatter.yaml"))


def test_a_steps_messages_leave_in_the_order_made_on_both_engines(monkeypatch):
    """Sends and broadcasts interleaved, one robot sending twice: the trace's sends follow the order
    the step made them (not broadcasts first), and the engines agree bit for bit, the draws from
    the group's stream included."""
    event, fused = both(monkeypatch, chatter)
    assert (event[0], fused[0]) == ("event", "fused")
    assert fused[1] == event[1] and fused[2] == event[2]
    monkeypatch.setenv("COSIM_ENGINE", "auto")
    sim = chatter()
    sim.run()
    net = sim.recorder.tables()["network"]
    kind, t, src, dst = (np.asarray(net[c]) for c in ("kind", "t_ns", "src", "dst"))
    first = (kind == 0) & (t == 0)
    assert src[first].tolist() == [1, 2, 3, 4, 1]
    assert dst[first].tolist() == [0, -1, 0, -1, -1]
    draws = np.asarray(sim.recorder.tables()["records"]["value"])
    assert len(draws) == 16 and len(set(draws.tolist())) > 4  # 4 steps of 4 robots, drawn from one stream


def test_kilolibs_motors_in_a_group_step_stop_the_run_on_both_engines(monkeypatch):
    """set_motors would move nothing in a group: refused after the step, never ignored."""
    for engine, path in (("event", "event"), ("auto", "fused")):
        monkeypatch.setenv("COSIM_ENGINE", engine)
        sim = one_group("GroupSetsMotors", "diff_drive", {})
        assert sim.engine_path == path
        with pytest.raises(cosim.SimulationError, match="set_motors is a kilolib program's: a compiled controller or group"):
            sim.run()
