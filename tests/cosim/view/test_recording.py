"""The viewer's recording: written live or from a trace, read back through Rerun's reader."""

from __future__ import annotations

import json

import numpy as np
import pyarrow.parquet as pq
import pytest

import cosim
from cosim.errors import ScenarioError
from cosim.view.replay import write_recording
from tests.conftest import base_scenario
from tests.cosim.report.test_report import routed_scenario
from tests.cosim.view.rrd import contents

S = 1_000_000_000


def _run(tmp_path, name, data):
    return cosim.run(cosim.from_dict(data, source="test.yaml"), out_dir=tmp_path / name)


@pytest.fixture(scope="module")
def live(tmp_path_factory):
    data = base_scenario(duration=3.0, output={"trace": {"positions_every": 0.5},
                                                 "view": {"every": "100 ms", "trail": 5}})
    return cosim.run(cosim.from_dict(data, source="test.yaml"), out_dir=tmp_path_factory.mktemp("view") / "run")


def test_live_recording_has_a_frame_every_100_ms_with_every_robot(live):
    rec = contents(live.directory / "recording.rrd")
    robots = rec["/world/robots/bees"]
    assert [t for t, _ in robots] == [k * S // 10 for k in range(31)]
    assert {n for _, n in robots} == {20}
    assert {n for _, n in rec["/world/trails/bees"]} == {20}  # one dot per robot and frame; the viewer shows 5 frames
    assert rec["/world/arena"] == [(None, 1)]
    links = [n for _, n in rec["/world/links"]]
    assert len(links) == 31 and links[0] == 0 and max(links) > 20  # pairs heard within each 100 ms
    alive = rec["/metrics/alive"]
    assert len(alive) == 31 and alive[-1][0] == 3 * S
    assert live.metrics["view"]["frames"] == 31


def test_the_layout_shows_trails_over_the_last_trail_frames(live):
    """The blueprint store holds the 3D view with a visible time range of 5 frames x 100 ms on each trail entity."""
    from rerun.chunk import RrdReader

    reader = RrdReader(str(live.directory / "recording.rrd"))
    assert len(reader.blueprints()) == 1
    found = []
    for chunk in reader.stream(store=reader.blueprints()[0]):
        batch = chunk.to_record_batch()
        for name in batch.schema.names:
            if name.endswith("VisibleTimeRanges:ranges"):
                found.append((chunk.entity_path, batch.column(name).to_pylist()))
    assert len(found) == 1 and "/world/trails/bees" in found[0][0]
    assert "-500000000" in str(found[0][1])


def test_links_are_the_pairs_that_heard_each_other(live):
    """Frame at 1.0 s: its links are exactly the unordered pairs with a delivery in (0.9 s, 1.0 s]."""
    net = pq.read_table(live.directory / "trace" / "network.parquet").to_pandas()
    window = net[(net.kind == "deliver") & (net.t_ns > 9 * S // 10) & (net.t_ns <= S)]
    pairs = {(min(a, b), max(a, b)) for a, b in zip(window.src, window.dst)}
    rec = dict(contents(live.directory / "recording.rrd")["/world/links"])
    assert rec[S] == len(pairs)


def test_viewing_does_not_change_results(tmp_path, live):
    plain = _run(tmp_path, "plain", base_scenario(duration=3.0, output={"trace": {"positions_every": 0.5}}))
    assert plain.metrics["trace_sha256"] == live.metrics["trace_sha256"]
    assert "view" not in plain.metrics and not (plain.directory / "recording.rrd").exists()


def test_replay_from_the_trace_has_a_frame_per_position_sample(tmp_path, live):
    path = write_recording(live.directory, path=tmp_path / "replay.rrd")
    rec = contents(path)
    assert [t for t, _ in rec["/world/robots/bees"]] == [k * S // 2 for k in range(7)]
    assert rec["/world/heading/bees"][-1] == (3 * S, 20)


def test_routes_packets_walls_and_events_of_a_routed_run(tmp_path):
    data = routed_scenario() | {"duration": 8.0, "output": {"trace": {"positions_every": 0.5}, "view": {"every": "250 ms"}}}
    data["kills"] = [{"node": 5, "at": 6.0}]
    result = _run(tmp_path, "routed", data)
    rec = contents(result.directory / "recording.rrd")
    assert rec["/world/obstacles/boxes"] == [(None, 1)]  # the wall
    assert {"/world/robots/motes", "/world/robots/walker"} <= rec.keys()
    routes = [n for _, n in rec["/world/routes"] if n]
    assert routes, "delivered packets are drawn along their paths"
    packets = [n for _, n in rec["/world/packets"]]
    assert max(packets) > 0
    events = pq.read_table(result.directory / "trace" / "events.parquet").to_pandas()
    assert len(rec["/events"]) == len(events)  # every event in the log, at its own time
    assert [t for t, _ in rec["/events"]] == sorted(events.t_ns.tolist())
    killed = dict(rec["/world/events"])[6 * S]  # the frame at 6.0 s marks the walker killed then
    assert killed >= 1 and (5, "scheduled") in set(zip(events[events.t_ns == 6 * S].node, events[events.t_ns == 6 * S].kind))


def test_bad_view_keys_name_the_key():
    with pytest.raises(ScenarioError, match=r"output.view: layers: unknown 'sky'"):
        cosim.from_dict(base_scenario(output={"view": {"layers": ["robots", "sky"]}}), source="s.yaml")
    with pytest.raises(ScenarioError, match=r"output.view.*connect must be a Rerun viewer URL"):
        cosim.from_dict(base_scenario(output={"view": {"connect": "http://x"}}), source="s.yaml")
    with pytest.raises(ScenarioError, match=r"output.view.colour: unknown key; expected one of: connect, every, layers, trail"):
        cosim.from_dict(base_scenario(output={"view": {"colour": "red"}}), source="s.yaml")


def test_replay_of_a_run_without_positions_says_so(tmp_path):
    result = _run(tmp_path, "nopos", base_scenario(duration=0.5, output={"trace": {"positions_every": None}}))
    with pytest.raises(FileNotFoundError, match="no position trace to view"):
        write_recording(result.directory)
    assert json.loads((result.directory / "status.json").read_text())["status"] == "ok"
    assert np.isfinite(result.metrics["wall_s"])
