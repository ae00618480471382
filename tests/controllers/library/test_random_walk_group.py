"""The random walk as a group controller and per robot: the same seed, the same trajectories."""

from __future__ import annotations

import numpy as np
import pytest

import cosim
from tests.conftest import base_scenario


def _positions(cls: str, count: int, seed: int) -> dict:
    data = base_scenario(duration=8.0, seed=seed)
    g = data["groups"][0]
    g.update({"count": count, "sensors": {"compass": {"noise_std": 0.2}}})
    g["controller"] = {"class": cls, "period": 0.1, "phase": 0, "params": {"radio_period": 1.0}}
    sim = cosim.build(cosim.from_dict(data, "walk.yaml"))
    sim.run()
    return sim.recorder.tables()["positions"]


@pytest.mark.parametrize("count, seed", [(20, 3), (150, 11)])
def test_group_and_per_robot_random_walks_are_bit_identical(count, seed):
    group = _positions("controllers.library.random_walk_group:InstrumentSwarm", count, seed)
    robots = _positions("controllers.library.instrument:InstrumentBee", count, seed)
    for column in ("x", "y", "z", "vx", "vy", "heading"):
        assert np.array_equal(group[column], robots[column]), column
    moved = np.hypot(group["x"][-count:] - group["x"][:count], group["y"][-count:] - group["y"][:count])
    assert np.median(moved) > 1.0  # they walked (and collided): the comparison covers the physics too


def test_the_swarm_reads_its_compass_and_broadcasts_at_its_rates():
    data = base_scenario(duration=5.0)
    data["groups"][0]["controller"] = {"class": "controllers.library.random_walk_group:InstrumentSwarm",
                                       "params": {"radio_period": 1.0, "sensor_period": 0.5}}
    sim = cosim.build(cosim.from_dict(data, "walk.yaml"))
    sim.run()
    swarm = sim.group_controllers[0]
    assert sim.counters.sent == pytest.approx(20 * 5, abs=20)  # one per robot per second
    assert np.all(swarm.heading_reading != 0.0)
    err = np.abs(np.remainder(swarm.heading_reading - sim.world.headings() + np.pi, 2 * np.pi) - np.pi)
    assert np.median(err) < 1.0  # noisy (0.2 rad) readings of headings up to half a second old
