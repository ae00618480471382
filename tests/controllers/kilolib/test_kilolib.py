"""kilolib programs: Kilombo's pivot kinematics, kilo_ticks at 32 Hz, LED colours in the trace,
messages with CRCs, distances from the infrared signal, and the three example programs."""

from __future__ import annotations

import math

import numpy as np
import pyarrow.parquet as pq
import pytest

import cosim
from controllers.kilolib import RGB, message_crc, message_t
from tests.conftest import ROOT

KILOBOT = {"model": "point", "radius": 0.0165, "max_speed": 0.05}


def run(tmp_path, robots: list[tuple[list[float], str, dict]], duration: float, name: str = "k", heading: float = 0.0):
    data = {
        "name": name, "seed": 9, "duration": duration, "quantum": "10 ms",
        "physics": {"backend": "kinematic", "dt": "10 ms", "collisions": False},
        "network": {"backend": "fast", "radio": {"pathloss": {"model": "unit_disk", "range_m": 0.1}, "bit_rate_bps": 30000,
                                                 "latency": "1 ms"}},
        "world": {"arena_lower": [-1, -1, 0], "arena_upper": [1, 1, 0.1]},
        "output": {"trace": {"positions_every": 0.01}},
        "groups": [{"name": f"g{k}", "count": 1, "layout": {"type": "list", "points": [p]},
                    "robot": {**KILOBOT, "heading": heading},
                    "controller": {"class": f"tests.controllers.kilolib.probes:{cls}", "params": params}}
                   for k, (p, cls, params) in enumerate(robots)],
    }
    result = cosim.run(cosim.from_dict(data, source="k.yaml"), out_dir=tmp_path / name)
    assert result.status == "ok", result.error
    trace = result.directory / "trace"
    return pq.read_table(trace / "positions.parquet").to_pandas(), pq.read_table(trace / "records.parquet").to_pandas()


@pytest.mark.parametrize("left, right", [(70, 0), (0, 70)])
def test_one_motor_pivots_about_the_rear_leg_on_its_side(tmp_path, left, right):
    pos, _ = run(tmp_path, [([0, 0, 0], "Motors", {"left": left, "right": right})], 4.0, f"pivot{left}")
    sign = 1.0 if left else -1.0
    first, last = pos.iloc[0], pos.iloc[-1]
    turned = math.remainder(last.heading - first.heading, 2 * math.pi)
    assert turned == pytest.approx(sign * 0.5 * 4.0, rel=0.01)  # turn_rate 0.5 rad/s
    a = math.radians(125.0)

    def leg(row):
        c, s = math.cos(row.heading), math.sin(row.heading)
        lx, ly = 0.015 * math.cos(a), 0.015 * math.sin(a) * sign
        return np.array([row.x + c * lx - s * ly, row.y + s * lx + c * ly])

    legs = np.array([leg(r) for r in pos.itertuples()])
    assert np.abs(legs - legs[0]).max() < 2e-4  # the leg stays put (0.2 mm over a 2 rad turn)
    assert np.hypot(last.x - first.x, last.y - first.y) > 0.02  # while the centre swings round it


def test_both_motors_drive_forward_and_ticks_count_at_32_hz_and_colours_are_traced(tmp_path):
    pos, recs = run(tmp_path, [([0, 0, 0], "Motors", {"left": 70, "right": 70})], 2.0, "forward")
    assert pos.iloc[-1].x == pytest.approx(0.01 * 2.0, rel=0.02) and abs(pos.iloc[-1].y) < 1e-9
    ticks = recs[recs.name == "ticks"].value.to_numpy()
    assert len(ticks) == 64 and np.array_equal(np.diff(ticks), np.ones(63))
    colors = recs[recs.name == "color"]
    assert colors.value.tolist() == [RGB(0, 0, 0), RGB(3, 1, 2)] == [0, 3 | 1 << 2 | 2 << 4]
    assert colors.t_ns.iloc[1] == pytest.approx(10 / 32 * 1e9, abs=1 / 32 * 1e9)


def test_distances_come_from_the_infrared_signal_with_calibrated_noise(tmp_path):
    _, recs = run(tmp_path, [([0, 0, 0], "Sender", {"tx_period": 0.1}), ([0.06, 0, 0], "Ranger", {})], 5.0, "exact")
    est = recs[recs.name == "estimate"].value
    assert len(est) >= 45 and set(est) == {60.0}  # 60 mm exactly, without noise
    assert set(recs[recs.name == "data0"].value) == {42.0} and (recs.name == "sent").sum() >= 45
    _, recs = run(tmp_path, [([0, 0, 0], "Sender", {"tx_period": 0.05}), ([0.06, 0, 0], "Ranger", {"distance_noise_mm": 2.0})],
                  20.0, "noisy")
    est = recs[recs.name == "estimate"].value.to_numpy()
    assert len(est) > 350 and abs(est.mean() - 60.0) < 0.5 and 1.5 < est.std() < 2.6


def test_messages_carry_a_crc():
    m = message_t()
    m.data[:3] = b"abc"
    m.crc = message_crc(m)
    assert message_t.parse(m.payload()) == m
    bad = bytearray(m.payload())
    bad[1] ^= 0x01
    assert message_t.parse(bytes(bad)) is None and message_t.parse(b"short") is None
    with pytest.raises(ValueError, match=r"RGB g must be within 0\.\.3, got 4"):
        RGB(0, 4, 0)


def _positions(result):
    return pq.read_table(result.directory / "trace" / "positions.parquet").to_pandas()


def test_orbit_keeps_its_distance_and_goes_round(tmp_path):
    result = cosim.run(cosim.load(ROOT / "configs" / "kilolib_orbit.yaml"), out_dir=tmp_path / "orbit")
    p = _positions(result)
    planet = p[p.node == 1]
    r = np.hypot(planet.x, planet.y).to_numpy() * 1000
    angle = np.unwrap(np.arctan2(planet.y, planet.x).to_numpy())
    assert 50 < r.min() and r.max() < 70
    assert (angle[0] - angle[-1]) / (2 * math.pi) > 2.5  # clockwise, more than two and a half times


def test_followers_keep_the_chain_together(tmp_path):
    result = cosim.run(cosim.load(ROOT / "configs" / "kilolib_follow.yaml"), out_dir=tmp_path / "follow")
    p = _positions(result)
    xy = {k: p[p.node == k].sort_values("t_ns")[["x", "y"]].to_numpy() for k in range(4)}
    leader_path = np.hypot(*np.diff(xy[0], axis=0).T).sum()
    assert leader_path > 1.0  # the leader walked over a metre
    for k in (1, 2, 3):
        gap = np.hypot(*(xy[k] - xy[k - 1]).T) * 1000
        assert gap.max() < 100 and 40 < gap.mean() < 70  # always within infrared range of the one ahead


def test_edge_follower_goes_round_the_group(tmp_path):
    result = cosim.run(cosim.load(ROOT / "configs" / "kilolib_edge.yaml"), out_dir=tmp_path / "edge")
    p = _positions(result)
    seeds = p[(p.node < 7) & (p.t_ns == 0)][["x", "y"]].to_numpy()
    e = p[p.node == 7].sort_values("t_ns")[["x", "y"]].to_numpy()
    nearest = np.linalg.norm(e[:, None, :] - seeds[None], axis=2).min(axis=1) * 1000
    turns = np.unwrap(np.arctan2(e[:, 1], e[:, 0]))
    assert 40 < nearest.min() and nearest.max() < 65
    assert (turns[0] - turns[-1]) / (2 * math.pi) > 3  # clockwise round the group, three times and more
