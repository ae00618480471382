"""Obstacles between radios: line-of-sight crossings, and links through walls in whole runs."""

from __future__ import annotations

import numpy as np
import pyarrow.parquet as pq
import pytest

import cosim
from cosim.errors import ScenarioError
from netstack.fast.shadowing import Solids, crossings

pytestmark = pytest.mark.kernels  # also run bounds-checked: `make test`, NUMBA_BOUNDSCHECK=1


def _solids(boxes=(), cylinders=()) -> Solids:
    z3 = np.zeros((0, 3))
    return Solids(np.array([b[0] for b in boxes], float).reshape(-1, 3), np.array([b[1] for b in boxes], float).reshape(-1, 3),
                  np.array([b[2] for b in boxes], float),
                  np.array([c[0] for c in cylinders], float).reshape(-1, 3) if cylinders else z3,
                  np.array([c[1] for c in cylinders], float), np.array([c[2] for c in cylinders], float))


def test_crossings_of_boxes_turned_walls_and_cylinders():
    s = _solids(boxes=[((5, 0, 1), (0.1, 5, 1), 0.0), ((15, 0, 1), (5, 0.1, 1), np.pi / 2)],
                cylinders=[((25, 0, 1), 1.0, 1.0)])
    a = np.array([[0, 0, 1], [0, 0, 1], [0, 0, 1], [0, 0, 3], [0, 6, 1], [24.5, 0, 1], [0, 0, 1]], float)
    b = np.array([[10, 0, 1], [20, 0, 1], [30, 0, 1], [30, 0, 3], [30, 6, 1], [25.5, 0, 1], [4, 0, 1]], float)
    # through 1; through 2 (the second is a wall turned across x); all 3; above all; beside all;
    # from inside the cylinder; stopping short of the first
    assert crossings(a, b, s).tolist() == [1, 2, 3, 0, 0, 1, 0]


FAST = {"backend": "fast", "radio": {"tx_power_dbm": 0, "rx_threshold_dbm": -110, "pathloss": {"model": "log_distance"}}}
NS3 = {"backend": "ns3", "radio": {"standard": "802.11b", "pathloss": {"model": "log_distance"}}}


def _pair(tmp_path, name, radio_extra=None, obstacles=None, network=FAST):
    data = {
        "name": "wall", "seed": 1, "duration": 1.0, "quantum": "10 ms",
        "physics": {"backend": "kinematic", "dt": "10 ms"},
        "network": {"backend": network["backend"], "radio": network["radio"] | (radio_extra or {})},
        "world": {"arena_lower": [-50, -50, 0], "arena_upper": [50, 50, 10], "obstacles": obstacles or []},
        "groups": [{"name": "b", "count": 2, "layout": {"type": "list", "points": [[-10, 0, 1], [10, 0, 1]]},
                    "controller": {"class": "controllers.library.instrument:InstrumentBee", "period": 0.1,
                                   "params": {"max_speed": 0.0, "radio_period": 0.2}}}],
    }
    result = cosim.run(cosim.from_dict(data, source="s.yaml"), out_dir=tmp_path / name)
    net = pq.read_table(result.directory / "trace" / "network.parquet").to_pandas()
    return net[net.kind == "deliver"]


WALL = [{"type": "wall", "start": [0, -5], "end": [0, 5], "height": 3}]


def test_a_link_through_a_wall_is_weaker_by_the_configured_loss(tmp_path):
    clear = _pair(tmp_path, "clear", {"obstacle_loss_db": 12.5})
    walled = _pair(tmp_path, "walled", {"obstacle_loss_db": 12.5}, WALL)
    transparent = _pair(tmp_path, "transparent", {}, WALL)
    assert len(clear) == len(walled) == len(transparent) > 0
    assert np.allclose(clear.rssi_dbm.to_numpy() - walled.rssi_dbm.to_numpy(), 12.5)
    assert np.allclose(transparent.rssi_dbm.to_numpy(), clear.rssi_dbm.to_numpy())


def test_ns3_takes_the_same_loss_per_wall_in_its_own_loss_chain(tmp_path):
    """802.11b at 20 m: about -69.7 dBm in the clear; the wall takes 8 dB off every reception, and a
    blocking wall leaves nothing (ns-3's receiver never detects the frame)."""
    clear = _pair(tmp_path, "ns3clear", {"obstacle_loss_db": 8.0}, network=NS3)
    walled = _pair(tmp_path, "ns3walled", {"obstacle_loss_db": 8.0}, WALL, network=NS3)
    assert len(clear) == len(walled) > 0
    assert np.allclose(clear.rssi_dbm.to_numpy() - walled.rssi_dbm.to_numpy(), 8.0, atol=1e-6)
    assert len(_pair(tmp_path, "ns3blocked", {"obstacles_block": True}, WALL, network=NS3)) == 0


def test_a_blocking_wall_carries_nothing_and_a_weak_link_falls_below_threshold(tmp_path):
    assert len(_pair(tmp_path, "blocked", {"obstacles_block": True}, WALL)) == 0
    # 20 m of log-distance loss at 0 dBm is about -85.7 dBm: 30 dB more falls below -110
    assert len(_pair(tmp_path, "faded", {"obstacle_loss_db": 30.0}, WALL)) == 0


def test_bad_shadowing_settings_name_the_key(tmp_path):
    base = {"name": "x", "duration": 1.0, "groups": [{"name": "b", "count": 2, "controller": {
        "class": "controllers.library.instrument:InstrumentBee"}}]}
    with pytest.raises(ScenarioError, match=r"network.radio: obstacle_loss_db must be >= 0 dB per obstacle crossed, got -3"):
        cosim.from_dict(base | {"network": {"radio": {"obstacle_loss_db": -3}}}, source="s.yaml")
    with pytest.raises(ScenarioError, match=r"obstacle_loss_db changes nothing with a range cut-off model"):
        cosim.from_dict(base | {"network": {"radio": {"obstacle_loss_db": 3, "pathloss": {"model": "unit_disk"}}}},
                        source="s.yaml")
    obj = tmp_path / "tri.obj"
    obj.write_text("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n")
    mesh = {"world": {"obstacles": [{"type": "mesh", "file": str(obj)}]}, "physics": {"backend": "pybullet"}}
    with pytest.raises(ScenarioError, match=r"world.obstacles\[0\]: a mesh obstacle cannot shadow radio links"):
        cosim.from_dict(base | mesh | {"network": {"radio": {"obstacles_block": True}}}, source="s.yaml")


def test_compiled_crossings_count_the_same_as_numpy():
    from netstack.fast import crossings
    from tests.netstack import crossings_reference

    rng = np.random.default_rng(5)
    boxes = [(rng.uniform(-20, 20, 3), rng.uniform(0.1, 4, 3), rng.uniform(-3, 3)) for _ in range(6)]
    cylinders = [(rng.uniform(-20, 20, 3), rng.uniform(0.2, 3), rng.uniform(0.5, 3)) for _ in range(4)]
    s = _solids(boxes, cylinders)
    a, b = rng.uniform(-25, 25, (3000, 3)), rng.uniform(-25, 25, (3000, 3))
    b[:50, 2] = a[:50, 2]  # level segments, and vertical ones
    b[50:100, :2] = a[50:100, :2]
    args = (s.box_centers, s.box_half, s.box_yaw, s.cyl_centers, s.cyl_radius, s.cyl_half_height)
    numpy_counts = crossings_reference.crossings(a, b, *args)
    assert numpy_counts.sum() > 100  # the test crosses plenty
    assert np.array_equal(crossings.crossings(a, b, *args), numpy_counts)
