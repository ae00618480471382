"""The group controller port of Kilombo's follow-the-leader and its per-robot twin, acting at the
same instants (Kilombo's 32.25 ms ticks) with the same seeded draws, give bit-identical traces."""

from __future__ import annotations

import numpy as np
import pytest

import cosim
from tests.conftest import ROOT

CONFIG = ROOT / "configs" / "kilombo_follow_group.yaml"
PER_ROBOT = "controllers.case_studies.kilobot:TickedChainFollower"


def _tables(cls: str | None, count: int, seconds: float, seed: int) -> dict:
    overrides = {"duration": seconds, "seed": seed, "groups.1.count": count, "output.trace.network": True,
                 "world.arena_lower": [-0.05 * count - 1, -3, 0]}
    if cls is not None:
        overrides["groups.1.controller.class"] = cls
        overrides["groups.1.controller.phase"] = 0  # a group ticks at phase 0; pin the per-robot steps there too
    sim = cosim.build(cosim.load(CONFIG, overrides))
    sim.run()
    return sim.recorder.tables()


@pytest.mark.parametrize("count, seed", [(19, 1), (60, 7)])
def test_group_and_per_robot_versions_give_identical_traces(count, seed):
    group = _tables(None, count, 40.0, seed)
    robots = _tables(PER_ROBOT, count, 40.0, seed)
    assert set(group) == set(robots) == {"positions", "network", "records"}
    for name in group:
        for column, values in group[name].items():
            a, b = np.asarray(values), np.asarray(robots[name][column])
            assert np.array_equal(a, b, equal_nan=a.dtype.kind == "f"), f"{name}.{column}"
    x = group["positions"]["x"]
    assert x.max() > 0.05  # the leader moved, so the comparison covers motion, messages and steering
    gaps = group["records"]["value"]
    assert np.nanmedian(gaps) < 0.06  # and the chain held together


ORBIT = ROOT / "configs" / "kilombo_orbit.yaml"


def _orbit(cls: str, seed: int) -> dict:
    """Three stars in a row, a planet beside each; noisy distance estimates (each planet's own stream)."""
    overrides = {"duration": 60.0, "seed": seed, "physics.dt": "10 ms", "quantum": "10 ms",
                 "groups.0.count": 3, "groups.0.layout": {"type": "line", "start": [-0.3, 0, 0], "step": [0.3, 0, 0]},
                 "groups.1.count": 3, "groups.1.layout": {"type": "line", "start": [-0.24, 0, 0], "step": [0.3, 0, 0]},
                 "groups.1.controller": {"class": cls, "period": 0.03, "phase": 0,
                                         "params": {"desired_distance": 0.06, "too_close": 0.04, "distance_noise": 0.005}},
                 "output.trace.network": True}
    sim = cosim.build(cosim.load(ORBIT, overrides))
    sim.run()
    return sim.recorder.tables()


def test_orbit_group_and_per_robot_versions_give_identical_traces():
    group = _orbit("controllers.case_studies.kilobot_group:OrbitPlanetGroup", 4)
    robots = _orbit("controllers.case_studies.kilobot:TickedOrbitPlanet", 4)
    for name in ("positions", "network", "records"):
        for column, values in group[name].items():
            a, b = np.asarray(values), np.asarray(robots[name][column])
            assert np.array_equal(a, b, equal_nan=a.dtype.kind == "f"), f"{name}.{column}"
    d = np.asarray(group["records"]["value"])
    assert len(d) >= 300 and abs(np.median(d) - 0.06) < 0.02  # the planets stay in orbit, near the desired distance


def test_each_rule_answers_arrays_as_it_answers_each_number():
    """follow, orbit, next_send and wheels are the one copy both versions call: over arrays they give
    element by element what they give for one robot's numbers, and the motions they pick are the
    ones each rule's docstring describes."""
    from controllers.case_studies import kilobot

    chain, orb = kilobot.ChainParams(), kilobot.OrbitParams()
    d = np.array([0.01, 0.2, 0.2, 0.2, 0.03, 0.05, 0.07])
    bearing = np.array([2.0, 0.1, 1.0, -1.0, 0.0, 0.0, 0.0])
    codes = kilobot.follow(d, bearing, chain)
    assert [kilobot.MOTIONS[c] for c in codes[:4]] == ["stop", "forward", "left", "right"]
    assert codes.tolist() == [int(kilobot.follow(a, b, chain)) for a, b in zip(d.tolist(), bearing.tolist())]
    rings = kilobot.orbit(d[4:], orb)
    assert [kilobot.MOTIONS[c] for c in rings] == ["forward", "left", "right"]
    v, w = kilobot.wheels(np.arange(4), chain)
    assert v.tolist() == [chain.forward_speed, chain.turn_speed, chain.turn_speed, 0.0]
    assert w.tolist() == [0.0, chain.turn_rate, -chain.turn_rate, 0.0]
    due = np.array([0.1, 0.3, 1.0])  # message times at or before now (1 s), every 0.5 s
    later = kilobot.next_send(due, 1.0, 0.5)
    assert np.allclose(later, [1.1, 1.3, 1.5])
    assert later.tolist() == [float(kilobot.next_send(t, 1.0, 0.5)) for t in due.tolist()]
    assert np.all(later > 1.0) and np.all(later - 0.5 <= 1.0)  # the first on the schedule after now
