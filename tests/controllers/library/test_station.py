"""Stations hold still; a group of stations given a period ticks at it (the framework's floor in
benchmarks/kilombo.py --controller idle)."""

from __future__ import annotations

import numpy as np

import cosim
from tests.conftest import base_scenario


def _run(controller: dict):
    data = base_scenario(duration=1.0)
    data["groups"][0]["controller"] = controller
    sim = cosim.build(cosim.from_dict(data, "stations.yaml"))
    sim.run()
    return sim


def test_a_station_group_holds_still_and_ticks_at_its_period():
    ticking = _run({"class": "controllers.library.station:StationGroup", "period": 0.1, "phase": 0})
    quiet = _run({"class": "controllers.library.station:StationGroup"})
    assert ticking.counters.events - quiet.counters.events in (10, 11)  # t = 0, 0.1, ... (1.0 at the end)
    pos = ticking.recorder.tables()["positions"]
    first, last = pos["t_ns"] == pos["t_ns"].min(), pos["t_ns"] == pos["t_ns"].max()
    assert pos["t_ns"].max() > 0 and np.array_equal(pos["x"][first], pos["x"][last])
    assert np.array_equal(pos["y"][first], pos["y"][last]) and ticking.counters.sent == 0
