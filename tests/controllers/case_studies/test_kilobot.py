"""Kilombo's case study (paper 002) in our tool: the Kilobot orbit and the follow-the-leader chain.

    orbit:  star (0, 0) o <- 60 mm -> o planet          follow: leader 0 <- 1 <- 2 <- ... (45 mm apart)
"""

import numpy as np
import pyarrow.parquet as pq
import pytest

import cosim
from cosim.errors import ScenarioError
from cosim.scenario.layouts import GridLayout
from tests.conftest import ROOT


def _orbit(tmp_path, overrides):
    result = cosim.run(cosim.load(ROOT / "configs" / "kilombo_orbit.yaml", overrides), out_dir=tmp_path)
    assert result.status == "ok", result.error
    rec = pq.read_table(tmp_path / "trace" / "records.parquet").to_pydict()
    t, d = np.array(rec["t_ns"]) / 1e9, np.array(rec["value"])
    pos = pq.read_table(tmp_path / "trace" / "positions.parquet").to_pydict()
    planet = np.array(pos["node"]) == 1
    angle = np.unwrap(np.arctan2(np.array(pos["y"])[planet], np.array(pos["x"])[planet]))
    return d[t > 20.0], (angle[0] - angle[-1]) / (2 * np.pi)  # clockwise laps


def test_orbit_keeps_its_distance_noise_free(tmp_path):
    d, laps = _orbit(tmp_path, {"duration": 200})
    assert laps > 3.5  # the paper's figure 5 shows about four laps
    assert 0.055 < d.min() and d.max() < 0.085  # about the 60 mm it aims for, never touching (33 mm)
    assert abs(np.median(d) - 0.06) < 0.012


def test_orbit_survives_message_loss_and_distance_noise(tmp_path):
    clean, _ = _orbit(tmp_path / "clean", {"duration": 200})
    d, laps = _orbit(tmp_path / "noisy", {"duration": 200, "network.radio.loss_probability": 0.2,
                                          "groups.1.controller.params.distance_noise": 0.002})
    assert laps > 2.0
    assert 0.06 < np.median(d) < 0.09 and np.percentile(d, 95) < 0.1  # still orbiting, within radio range
    assert np.std(d) > np.std(clean)  # but less regularly, as the paper's noisy run


def test_follow_the_leader_chain_keeps_up(tmp_path):
    scenario = cosim.load(ROOT / "configs" / "kilombo_follow.yaml", {"duration": 120, "groups.1.count": 9})
    result = cosim.run(scenario, out_dir=tmp_path)
    assert result.status == "ok", result.error
    pos = pq.read_table(tmp_path / "trace" / "positions.parquet").to_pydict()
    t, node = np.array(pos["t_ns"]), np.array(pos["node"])
    xy = np.column_stack([pos["x"], pos["y"]])
    first, last = xy[(t == 0)], xy[(t == t.max())]
    moved = np.linalg.norm(last - first, axis=1)
    assert moved[0] > 0.25 and moved.min() > 0.1  # the leader drove off and the whole chain came after it
    gaps = np.linalg.norm(last[1:] - last[:-1], axis=1)
    assert gaps.max() < 0.07  # every follower still within infrared range (10 cm) of its predecessor
    assert node.max() == 9


def test_snake_grid_keeps_consecutive_robots_adjacent():
    pts = GridLayout(spacing=0.045, columns=4, snake=True).positions(10, np.random.default_rng(0))
    steps = np.linalg.norm(np.diff(pts, axis=0), axis=1)
    assert np.allclose(steps, 0.045)
    assert pts[4].tolist() == [3 * 0.045, 0.045, 0.0]  # the second row runs backwards


def test_impossible_kilobot_parameters_name_the_key():
    with pytest.raises(ScenarioError, match=r"groups\[1\]\.controller\.params.*too_close < desired_distance"):
        cosim.load(ROOT / "configs" / "kilombo_orbit.yaml", {"groups.1.controller.params.too_close": 0.07})
