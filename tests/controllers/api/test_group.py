"""Group controllers: one object per group, called once per tick with arrays; the inbox holds exactly
what per-robot controllers would have received; commands and sends are arrays."""

from __future__ import annotations

import numpy as np
import pytest

import cosim
from controllers import GroupController, Inbox
from cosim.errors import ScenarioError
from tests.conftest import base_scenario


class Pinger(GroupController):
    """Every tick, robots whose index has the tick's parity broadcast their index; everyone moves +x."""

    period = 0.1

    def setup(self) -> None:
        self.ticks = 0
        self.seen: list[Inbox] = []
        self.group.set_velocity(np.full(self.group.n, 0.5))

    def step(self) -> None:
        g = self.group
        self.seen.append(g.inbox())
        idx = np.arange(self.ticks % 2, g.n, 2)
        g.broadcast(idx, np.array(idx, dtype="<u2")[:, None].view(np.uint8))
        g.record("x", g.positions()[:, 0])
        self.ticks += 1


def _scenario(cls: str, count: int = 6, **extra) -> dict:
    data = base_scenario(duration=1.0, **extra)
    data["groups"][0].update({"count": count, "layout": {"type": "grid", "origin": [0, 0, 1], "spacing": 5, "columns": count},
                               "sensors": {}})
    data["groups"][0]["controller"] = {"class": cls}
    return data


def test_a_group_controller_gets_arrays_and_its_commands_move_the_robots(tmp_path):
    scenario = cosim.from_dict(_scenario("tests.controllers.api.test_group:Pinger"), "g.yaml")
    sim = cosim.build(scenario)
    sim.run()
    ctrl = sim.group_controllers[0]
    assert ctrl.ticks == 11  # 1 s at 0.1 s, phase 0: t = 0, 0.1, ..., 1.0
    assert sim.counters.sent == 3 * 11
    first, second = ctrl.seen[1], ctrl.seen[2]
    assert len(ctrl.seen[0]) == 0
    # tick 0: robots 0, 2, 4 sent; every robot within 30 m of them heard it before tick 1
    senders = first.records("<u2")
    assert set(senders.tolist()) == {0, 2, 4} and np.all(first.src == senders)
    assert np.all(first.dst != first.src) and np.all((first.t > 0.0) & (first.t < 0.1))
    assert set(second.records("<u2").tolist()) == {1, 3, 5}
    x = sim.world.positions()[:, 0]
    assert np.allclose(x - np.arange(6) * 5.0, 0.5 * 1.0, atol=1e-9)  # 0.5 m/s for 1 s
    records = sim.recorder.tables()["records"]
    assert len(records["node"]) == 6 * 11 and set(records["name"]) == {"x"}


def test_the_inbox_holds_what_per_robot_controllers_receive(tmp_path):
    """The same frames, receivers, senders and receive times as the network trace's deliveries."""
    scenario = cosim.from_dict(_scenario("tests.controllers.api.test_group:Pinger"), "g.yaml")
    sim = cosim.build(scenario)
    sim.run()
    inbox = sim.group_controllers[0].seen
    got = sorted((int(d), int(s), round(float(t) * 1e9)) for box in inbox for d, s, t in zip(box.dst, box.src, box.t))
    net = sim.recorder.tables()["network"]
    deliveries = [(int(d), int(s), int(t)) for k, d, s, t in zip(net["kind"], net["dst"], net["src"], net["t_ns"]) if k == 1]
    assert len(got) == 5 * 3 * 10 and got == sorted(deliveries)  # the last tick's frames arrive after the run


def test_group_controllers_refuse_routing():
    data = _scenario("tests.controllers.api.test_group:Pinger", network={
        "backend": "fast", "radio": {"pathloss": {"model": "unit_disk", "range_m": 30.0}}, "routing": {"protocol": "direct"}})
    with pytest.raises(ScenarioError, match=r"groups\[0\].controller.class: group controllers send raw link frames"):
        cosim.from_dict(data, "g.yaml")


def test_payload_arrays_must_match_the_senders():
    from cosim.core.group_handle import _payload_list

    assert _payload_list(np.arange(4, dtype=np.uint8).reshape(2, 2), 2) == [b"\x00\x01", b"\x02\x03"]
    assert _payload_list(b"ab", 3) == [b"ab"] * 3
    with pytest.raises(ValueError, match=r"payloads as an array must be \(3, size\)"):
        _payload_list(np.zeros((2, 2), dtype=np.uint8), 3)


class Unicaster(GroupController):
    """Robot 0 sends a unicast to robot 1 every tick; robot 1 counts what it got from whom."""

    period = 0.1

    def setup(self) -> None:
        self.got: list[tuple[int, int]] = []
        self.tx: list[int] = []

    def step(self) -> None:
        g = self.group
        box = g.inbox()
        self.got.extend(zip(box.dst.tolist(), box.src.tolist()))
        self.tx.extend(g.send(np.array([0]), np.array([g.ids[1]]), b"hi").tolist())


def test_group_unicast_reaches_only_its_destination():
    scenario = cosim.from_dict(_scenario("tests.controllers.api.test_group:Unicaster"), "g.yaml")
    sim = cosim.build(scenario)
    sim.run()
    ctrl = sim.group_controllers[0]
    assert len(ctrl.tx) == 11 and min(ctrl.tx) >= 0
    assert ctrl.got == [(1, 0)] * 10  # every frame but the last tick's, to robot 1 only
    assert sim.counters.acked == 10


def test_group_controllers_say_when_they_are_not_bound_yet():
    from controllers import Unbound

    with pytest.raises(Unbound, match="Pinger: the group is available from setup"):
        _ = Pinger().group
    with pytest.raises(Unbound, match="timers are available from setup"):
        Pinger().every(1.0, lambda: None)


def test_reading_a_sensor_the_group_lacks_says_which():
    scenario = cosim.from_dict(_scenario("tests.controllers.api.test_group:Pinger"), "g.yaml")
    sim = cosim.build(scenario)
    with pytest.raises(RuntimeError, match=r"robots 0\.\.5 have no 'gps' sensor"):
        sim.groups[0].read("gps")
