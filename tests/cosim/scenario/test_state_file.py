"""Initial state files: a run starts where another ended (poses, deaths, program state), and bad
files are refused naming the key."""

from __future__ import annotations

import json

import numpy as np
import pyarrow.parquet as pq
import pytest

import cosim
from cosim.errors import ScenarioError

WALKER = "tests.cosim.scenario.counting:CountingWalker"


def scenario(controller: str = WALKER, **extra) -> dict:
    return {
        "name": "walkers", "seed": 5, "duration": 2.0, "quantum": "10 ms",
        "physics": {"backend": "kinematic", "dt": "10 ms"}, "network": {"backend": "none"},
        "world": {"arena_lower": [-50, -50, 0], "arena_upper": [50, 50, 10]},
        "output": {"trace": {"positions_every": 0.1}},
        "groups": [{"name": "a", "count": 4, "layout": {"type": "random_disc", "center": [0, 0, 1], "radius": 10},
                    "controller": {"class": controller, "period": 0.1}},
                   {"name": "b", "count": 2, "layout": {"type": "random_disc", "center": [20, 0, 1], "radius": 5},
                    "controller": {"class": controller, "period": 0.1}}],
        **extra,
    }


def _run(tmp_path, name, data):
    result = cosim.run(cosim.from_dict(data, source=str(tmp_path / f"{name}.yaml")), out_dir=tmp_path / name)
    return result


def test_a_run_starts_where_the_last_ended_with_its_deaths_and_program_state(tmp_path):
    first = _run(tmp_path, "first", scenario(kills=[{"node": 4, "at": 1.0}]))
    assert first.status == "ok", first.error
    saved = json.loads((first.directory / "final_state.json").read_text())
    assert saved["t_s"] == 2.0 and [r["alive"] for r in saved["robots"]] == [True] * 4 + [False, True]
    assert saved["robots"][0]["state"] == {"steps": 20, "note": "robot 0"}
    pos = pq.read_table(first.directory / "trace" / "positions.parquet").to_pandas()
    end = pos[pos.t_ns == pos.t_ns.max()].sort_values("node")

    second = _run(tmp_path, "second", scenario(initial_state="first/final_state.json"))  # relative to the scenario file
    assert second.status == "ok", second.error
    pos2 = pq.read_table(second.directory / "trace" / "positions.parquet").to_pandas()
    start = pos2[pos2.t_ns == 0].sort_values("node")
    assert np.array_equal(start[["x", "y", "z"]].to_numpy(), end[["x", "y", "z"]].to_numpy())
    assert np.allclose(start.heading.to_numpy(), end.heading.to_numpy(), atol=1e-12)
    assert start.alive.tolist() == [True] * 4 + [False, True]
    recs = pq.read_table(second.directory / "trace" / "records.parquet").to_pandas()
    counts = recs[recs.name == "first_step_count"].set_index("node").value
    assert counts.to_dict() == {0: 21.0, 1: 21.0, 2: 21.0, 3: 21.0, 5: 21.0}  # counting on from 20; robot 4 is dead
    events = pq.read_table(second.directory / "trace" / "events.parquet").to_pandas()
    assert events[events.kind == "dead"][["t_ns", "node"]].values.tolist() == [[0, 4]]


def test_program_state_for_a_controller_that_cannot_restore_it_fails_the_run_saying_so(tmp_path):
    forgetful = "tests.cosim.scenario.counting:ForgetfulWalker"
    first = _run(tmp_path, "first", scenario(forgetful))
    again = _run(tmp_path, "again", scenario(forgetful, initial_state="first/final_state.json"))
    assert again.status == "failed"
    assert "ForgetfulWalker does not implement restore_state(), but the initial state file has program state" in again.error
    assert first.status == "ok"


def test_bad_state_files_name_the_key(tmp_path):
    first = _run(tmp_path, "first", scenario())
    path = first.directory / "final_state.json"
    bigger = scenario()
    bigger["groups"][1]["count"] = 3
    message = r"initial_state: .* has 6 robots in groups a \(4\), b \(2\); the scenario has a \(4\), b \(3\)"
    with pytest.raises(ScenarioError, match=message):
        cosim.from_dict(bigger | {"initial_state": str(path)}, source="s.yaml")
    with pytest.raises(ScenarioError, match=r"initial_state: no such file: .*nowhere.json"):
        cosim.from_dict(scenario(initial_state=str(tmp_path / "nowhere.json")), source="s.yaml")
    (tmp_path / "junk.json").write_text('{"robots": []}')
    with pytest.raises(ScenarioError, match=r'initial_state: .*junk.json is not a state file: expected "format"'):
        cosim.from_dict(scenario(initial_state=str(tmp_path / "junk.json")), source="s.yaml")
    data = json.loads(path.read_text())
    data["robots"][2]["position"] = [500.0, 0.0, 1.0]
    (tmp_path / "far.json").write_text(json.dumps(data))
    with pytest.raises(ScenarioError, match=r"initial_state: robot 2 starts at \(500.0, 0.0, 1.0\), outside the arena"):
        cosim.from_dict(scenario(initial_state=str(tmp_path / "far.json")), source="s.yaml")
