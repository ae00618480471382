"""Every example config in configs/ validates and runs (shortened), leaving a complete run directory."""

import contextlib
import json

import pyarrow.parquet as pq
import pytest

import cosim
from tests.conftest import ROOT
from tests.cosim.standins import with_standins

CONFIGS = sorted((ROOT / "configs").glob("*.yaml"))
DIGESTS = json.loads((ROOT / "tests" / "cosim" / "config_digests.json").read_text())["digests"]


def test_the_example_configs_exist():
    assert {p.name for p in CONFIGS} >= {"demo.yaml", "wifi_ns3.yaml", "motes_802154.yaml"}


@pytest.mark.parametrize("path", CONFIGS, ids=[p.name for p in CONFIGS])
def test_config_runs(path, tmp_path):
    with contextlib.ExitStack() as vehicles:  # stand-ins for the real vehicles, and free ports for served ones
        scenario = with_standins(path, {"duration": 3.0}, vehicles)
        result = cosim.run(scenario, out_dir=tmp_path / "run")
    assert result.status == "ok", result.error
    routing = result.metrics.get("routing")
    if routing is not None:  # every routed example: no packet loops back to a node, none is delivered twice
        assert (routing["revisits"], routing["duplicate_deliveries"]) == (0, 0)
    if scenario.mavlink is None or not scenario.mavlink.entries():  # lock-step runs repeat too: the trace is bit-identical
        assert result.metrics["trace_sha256"] == DIGESTS[path.name], f"{path.name}: the trace changed"
    d = result.directory
    for name in ("scenario.yaml", "metadata.json", "metrics.json", "summary.txt", "status.json"):
        assert (d / name).is_file(), name
    assert json.loads((d / "status.json").read_text())["status"] == "ok"
    meta = json.loads((d / "metadata.json").read_text())
    assert meta["seed"] == scenario.seed and meta["versions"]["numpy"]
    positions = pq.read_table(d / "trace" / "positions.parquet").to_pydict()
    every = scenario.output.trace.positions_every_ns
    assert len(positions["t_ns"]) == scenario.n_nodes * (3_000_000_000 // every + 1)  # samples at 0, every, ..., 3 s
    lo, hi = scenario.world.arena_lower, scenario.world.arena_upper
    for axis, key in enumerate("xy"):
        assert lo[axis] <= min(positions[key]) and max(positions[key]) <= hi[axis]



def test_every_config_has_a_recorded_digest():
    assert sorted(DIGESTS) == [p.name for p in CONFIGS]


def test_mavlink_config_keeps_its_digest_with_a_simulated_leader(tmp_path):
    """The ghost's pose follows a real-time vehicle, so the digest is taken with the leader simulated."""
    leader = {"model": "quadrotor", "airframe": "quad_1500g", "radius": 0.4}
    scenario = cosim.load(ROOT / "configs" / "mavlink_mixed.yaml", {"duration": 3.0, "mavlink": None, "groups.0.robot": leader})
    result = cosim.run(scenario, out_dir=tmp_path / "run")
    assert result.status == "ok", result.error
    assert result.metrics["trace_sha256"] == DIGESTS["mavlink_mixed.yaml"]
    assert result.metrics["messages_sent"] == 6  # the leader's beacons reach the followers


def test_demo_reports_what_the_issue_asks(tmp_path):
    scenario = cosim.load(ROOT / "configs" / "demo.yaml", {"duration": 3.0, "groups.0.count": 50})
    result = cosim.run(scenario, out_dir=tmp_path / "demo")
    m = result.metrics
    assert m["messages_sent"] == 150  # 50 robots x 1 Hz x 3 s
    assert 0 < m["messages_delivered"] <= 150 * 49
    assert 0 < m["mean_neighbors"] <= 49
    assert m["real_time_factor"] > 0
    summary = (result.directory / "summary.txt").read_text()
    for fragment in ("sent 150", f"received {m['messages_delivered']} times", "neighbours", "real-time factor"):
        assert fragment in summary
    net = pq.read_table(result.directory / "trace" / "network.parquet").to_pydict()
    assert net["kind"].count("send") == 150
    assert net["kind"].count("deliver") == m["messages_delivered"]


def test_resolved_scenario_reloads_to_the_same_scenario(tmp_path):
    scenario = cosim.load(ROOT / "configs" / "demo.yaml", {"duration": 1.0, "groups.0.count": 5})
    result = cosim.run(scenario, out_dir=tmp_path / "r")
    again = cosim.load(result.directory / "scenario.yaml")
    assert again == scenario  # `source` is excluded from equality


def test_read_run_loads_what_the_run_wrote(tmp_path):
    scenario = cosim.load(ROOT / "configs" / "demo.yaml", {"duration": 2.0, "groups.0.count": 8})
    result = cosim.run(scenario, out_dir=tmp_path / "r")
    out = cosim.read_run(result.directory)
    assert out.status == "ok" and out.error is None
    assert out.metrics == result.metrics
    assert out.scenario["groups"][0]["count"] == 8 and out.metadata["seed"] == scenario.seed
    assert out.trace("positions").num_rows == 8 * 3
    assert set(out.trace("network").column("kind").to_pylist()) >= {"send", "deliver"}
    with pytest.raises(KeyError, match="has no 'lidar' trace"):
        out.trace("lidar")
    with pytest.raises(FileNotFoundError, match="not a run directory"):
        cosim.read_run(tmp_path)
