"""A finished simulation is never discarded: the trace and metrics are written first, an optional
part that fails (a robot's save_state()) is a warning naming the robot and the call, bad `record`
arguments are refused at the call, and the run directory is found whatever a controller does to
the working directory."""

from __future__ import annotations

import json
import math
import os
import re
import subprocess
import sys

import numpy as np
import pyarrow.parquet as pq
import pytest
import yaml

import cosim
from tests.conftest import ROOT, base_scenario

FAULTY = "tests.cosim.execution.faulty"


def _scenario(cls: str, count: int = 10, period: float | None = 0.1) -> dict:
    data = base_scenario(duration=1.0, output={"trace": {"positions_every": 0.1}})
    data["groups"][0]["count"] = count
    data["groups"][0]["controller"] = {"class": f"{FAULTY}:{cls}", **({"period": period} if period else {})}
    data["groups"][0].pop("sensors")
    return data


def test_save_states_that_fail_cost_those_robots_states_and_nothing_else(tmp_path):
    result = cosim.run(cosim.from_dict(_scenario("OddStates"), source="t.yaml"), out_dir=tmp_path / "run")
    assert result.status == "ok" and result.error is None
    assert result.metrics["simulated_s"] == 1.0 and result.metrics["trace_sha256"]
    assert pq.read_table(result.directory / "trace" / "positions.parquet").num_rows == 11 * 10
    assert len(result.warnings) == 4  # one per problem, in the order of the first robot with it
    assert result.warnings[0].startswith("robots 0, 5 (bees): OddStates.save_state() returned a set, not a dict "
                                         "(or None); their states are null in final_state.json")
    assert result.warnings[1].startswith("robots 1, 6 (bees): OddStates.save_state() raised RuntimeError: cannot say")
    assert result.warnings[2].startswith("robots 2, 7 (bees): OddStates.save_state() returned something JSON cannot "
                                         "hold (Out of range float values")
    assert result.warnings[3].startswith("robots 3, 8 (bees): OddStates.save_state() returned a bytes, not a dict")
    states = json.loads((result.directory / "final_state.json").read_text())["robots"]
    assert [r["state"] for r in states[:5]] == [None, None, None, None, {"steps": 4}]
    status = json.loads((result.directory / "status.json").read_text())
    assert status["status"] == "ok" and status["warnings"] == list(result.warnings)
    assert json.loads((result.directory / "metrics.json").read_text())["warnings"] == list(result.warnings)
    summary = (result.directory / "summary.txt").read_text()
    assert summary.count("\nwarning    ") == 4 and (result.directory / "metrics.json").is_file()


def test_the_child_process_reports_the_warnings_as_the_run_did(tmp_path):
    path = tmp_path / "s.yaml"
    path.write_text(yaml.safe_dump(_scenario("OddStates", count=3)))
    out = subprocess.run([sys.executable, "-m", "cosim.cli", "run", str(path), "--out", str(tmp_path / "run")], cwd=ROOT,
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert "warning    robot 0 (bees): OddStates.save_state() returned a set" in out.stdout + out.stderr
    assert json.loads((tmp_path / "run" / "status.json").read_text())["status"] == "ok"
    assert (tmp_path / "run" / "trace" / "positions.parquet").is_file()


@pytest.mark.parametrize("cls, message", [
    ("RecordsAnInt", "record(name, value): name must be a non-empty string, got int 42"),
    ("RecordsText", "record(name, value): value must be a real number, got str '1.5'"),
    ("GroupRecordsText", "record(name, values): values must be numbers, got <U4"),
    ("RangesToMinusOne", "range_to/bearing_to: node must be a node id in 0..9, got -1"),
    ("FasterThanLight", "set_velocity: vx must be within +-299792458 m/s"),
    ("GroupFasterThanLight", "group.set_velocity: vx must be within +-299792458 m/s"),
])
def test_bad_arguments_are_refused_at_the_call(tmp_path, cls, message):
    result = cosim.run(cosim.from_dict(_scenario(cls), source="t.yaml"), out_dir=tmp_path / "run")
    assert result.status == "failed" and message in result.error
    assert "t = 0.0" in result.error  # at the first call, not when the trace is written
    assert json.loads((result.directory / "metrics.json").read_text())["nodes"] == 10


def test_a_controller_that_changes_the_working_folder_loses_nothing(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    try:
        result = cosim.run(cosim.from_dict(_scenario("LeavesTheFolder", count=3), source="t.yaml"), out_dir="run")
    finally:
        os.chdir(tmp_path)
    assert result.status == "ok" and result.directory == tmp_path / "run"
    assert pq.read_table(tmp_path / "run" / "trace" / "positions.parquet").num_rows == 33
    assert math.isclose(json.loads((tmp_path / "run" / "metrics.json").read_text())["simulated_s"], 1.0)


@pytest.mark.parametrize("cls", ["WritesPoses", "GroupWritesPositions"])
def test_arrays_handed_out_to_read_cannot_be_written(tmp_path, cls):
    result = cosim.run(cosim.from_dict(_scenario(cls), source="t.yaml"), out_dir=tmp_path / "run")
    assert result.status == "failed" and "assignment destination is read-only" in result.error
    positions = pq.read_table(result.directory / "trace" / "positions.parquet").column("x").to_numpy()
    assert len(positions) >= 30 and not np.isnan(positions).any()


def test_every_array_a_group_reads_is_read_only():
    group = cosim.build(cosim.from_dict(_scenario("GroupWritesPositions"), source="t.yaml")).groups[0]
    net = cosim.build(cosim.from_dict(_scenario("WritesPoses"), source="t.yaml")).population.controllers[0].net
    for a in (group.positions(), group.velocities(), group.headings(), group.alive(), group.all_positions(),
              group.all_headings(), *net.poses()):
        assert not a.flags.writeable
    assert net.poses()[0] is net.poses()[0]  # the same view while the world keeps its arrays


def test_errors_say_whose_code_failed(tmp_path):
    result = cosim.run(cosim.from_dict(_scenario("GroupFails"), source="t.yaml"), out_dir=tmp_path / "a")
    assert result.status == "failed" and "node None" not in result.error
    assert result.error.startswith("ValueError: no plan (in GroupFails.step, the group controller of bees (robots 0..9)) (t = ")
    with pytest.raises(cosim.ScenarioError, match=r"t.yaml: groups\[0\].controller.class: BadConstructor\(params\) "
                                                  r"raised RuntimeError: cannot start \(at .*faulty.py:\d+"):
        cosim.build(cosim.from_dict(_scenario("BadConstructor"), source="t.yaml"))
    result = cosim.run(cosim.from_dict(_scenario("Exits"), source="t.yaml"), out_dir=tmp_path / "b")
    assert result.status == "failed" and result.error.startswith("the code called sys.exit(3), which controllers cannot do")
    assert re.search(r"\(node \d+, t = 0\.2\d+ s, in Exits\.step\(\) at faulty\.py:\d+\)$", result.error)
    assert (result.directory / "metrics.json").is_file()



def test_the_watchdog_stops_a_controller_that_never_returns_and_names_it(tmp_path):
    path = tmp_path / "s.yaml"
    path.write_text(yaml.safe_dump({**_scenario("NeverReturns"), "watchdog": "1 s"}))
    out = subprocess.run([sys.executable, "-m", "cosim.cli", "run", str(path), "--out", str(tmp_path / "run")], cwd=ROOT,
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 1
    status = json.loads((tmp_path / "run" / "status.json").read_text())
    assert status["status"] == "failed"
    assert re.match(r"Stuck: robot 3's code has not returned for 1 s of wall time \(watchdog\), at t = 0\.[23]\d+ s "
                    r"simulated: a loop that never ends\? \(node 3, t = 0\.[23]\d+ s, in NeverReturns\.step\(\) "
                    r"at faulty\.py:\d+\)$", status["error"])
    assert (tmp_path / "run" / "trace" / "positions.parquet").is_file()
    with pytest.raises(cosim.ScenarioError, match="watchdog: expected a positive wall time"):
        cosim.from_dict({**_scenario("NeverReturns"), "watchdog": 0}, source="t.yaml")


@pytest.mark.parametrize(("cls", "message"), [
    ("SpeedInWords", r"ValueError: set_velocity: vx must be a finite number, got 'fast' \(node \d+, t = [\d.]+ s, "
                     r"in SpeedInWords\.step\(\) at faulty\.py:\d+\)$"),
    ("RangeToHalf", r"ValueError: range_to/bearing_to: node must be a node id in 0\.\.9, got 1\.5 .*in RangeToHalf\.step"),
    ("EveryFive", r"TypeError: every: fn must be callable .*got 5 .*in EveryFive\.setup\(\) at faulty\.py:\d+\)$"),
])
def test_a_bad_call_is_refused_at_the_call_naming_the_class_method_and_line(tmp_path, cls, message):
    result = cosim.run(cosim.from_dict(_scenario(cls, period=0.1 if cls != "EveryFive" else None), source="t.yaml"),
                       out_dir=tmp_path / "r")
    assert result.status == "failed" and re.match(message, result.error), result.error
