"""A run directory with torn files (a process killed while writing, a full disk) is read for what
is readable; `read_run`, `cosim report`, `cosim compare` and `cosim view` name each torn file."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys

import pytest

import cosim
from cosim.view.replay import write_recording
from tests.conftest import ROOT, base_scenario


@pytest.fixture(scope="module")
def finished(tmp_path_factory):
    base = tmp_path_factory.mktemp("runs")
    data = base_scenario(duration=1.0, output={"trace": {"positions_every": 0.1}})
    result = cosim.run(cosim.from_dict(data, source="t.yaml"), out_dir=base / "whole")
    assert result.status == "ok"
    return result.directory


def _torn(finished, tmp_path, *names) -> object:
    run = tmp_path / "torn"
    shutil.copytree(finished, run)
    for name in names:
        path = run / name
        path.write_bytes(path.read_bytes()[: path.stat().st_size // 2])  # cut short: no footer, half a JSON
    return run


def test_read_run_reads_what_is_readable_and_names_each_torn_file(finished, tmp_path, caplog):
    run = _torn(finished, tmp_path, "trace/positions.parquet", "metrics.json")
    out = cosim.read_run(run)
    assert set(out.torn) == {"trace/positions.parquet", "metrics.json"}
    assert "Parquet magic bytes not found" in out.torn["trace/positions.parquet"]
    assert out.status == "ok" and out.metrics == {} and out.scenario["name"] == "test"
    assert out.trace("network").num_rows == cosim.read_run(finished).trace("network").num_rows
    with pytest.raises(KeyError, match=r"no 'positions' trace .*trace/positions.parquet cannot be read: ArrowInvalid"):
        out.trace("positions")
    assert "trace/positions.parquet cannot be read" in caplog.text


def test_report_and_compare_name_the_torn_files_and_draw_the_rest(finished, tmp_path):
    run = _torn(finished, tmp_path, "trace/network.parquet")
    report = subprocess.run([sys.executable, "-m", "cosim.cli", "report", str(run), "--out", str(tmp_path / "report")],
                            cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert report.returncode == 0, report.stderr
    html = (tmp_path / "report" / "index.html").read_text()
    assert "trace/network.parquet cannot be read" in html and "<img" in html
    compare = subprocess.run([sys.executable, "-m", "cosim.cli", "compare", str(finished), str(run), "--out",
                              str(tmp_path / "compare")], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert compare.returncode == 0, compare.stderr
    assert "B: trace/network.parquet cannot be read" in (tmp_path / "compare" / "index.html").read_text()
    assert "trace/network.parquet cannot be read" in compare.stderr


def test_view_names_a_torn_position_trace_and_replays_without_a_torn_network(finished, tmp_path):
    run = _torn(finished, tmp_path, "trace/positions.parquet")
    with pytest.raises(ValueError, match=r"positions.parquet cannot be read \(ArrowInvalid"):
        write_recording(run)
    shutil.rmtree(run)
    run = _torn(finished, tmp_path, "trace/network.parquet")
    assert write_recording(run).stat().st_size > 0


def test_cosim_view_names_a_torn_position_trace_without_a_traceback(finished, tmp_path):
    run = _torn(finished, tmp_path, "trace/positions.parquet")
    out = subprocess.run([sys.executable, "-m", "cosim.cli", "view", str(run), "--write-only"], cwd=ROOT,
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 2 and "Traceback" not in out.stderr
    assert "positions.parquet cannot be read (ArrowInvalid" in out.stderr


def _damaged(finished, tmp_path, name: str, how: str):
    run = tmp_path / "damaged"
    shutil.copytree(finished, run)
    path = run / name
    if how == "folder":
        path.unlink()
        path.mkdir()
    elif how == "other table":
        import pyarrow as pa
        import pyarrow.parquet as pq

        pq.write_table(pa.table({"colour": ["red"]}), path)
    elif how == "list":
        path.write_text("- just\n- a list\n")
    else:  # cut at a line: still valid YAML or JSON, but not what the run wrote
        text = path.read_text()
        path.write_text(text[: text.index("\n", len(text) // 2) + 1] if how == "cut at a line" else text.replace("1", "2"))
    return run


@pytest.mark.parametrize(("name", "how", "why"), [
    ("scenario.yaml", "cut at a line", "changed since the run wrote it"),
    ("scenario.yaml", "list", "changed since the run wrote it"),
    ("metrics.json", "edited", "changed since the run wrote it"),
    ("metrics.json", "folder", "not a regular file"),
    ("final_state.json", "edited", "changed since the run wrote it"),
    ("metadata.json", "folder", "not a regular file"),
    ("trace/positions.parquet", "other table", "not a positions trace: no column alive, battery_j, heading, node, t_ns, vx"),
])
def test_files_changed_replaced_or_of_another_shape_are_named_torn(finished, tmp_path, name, how, why):
    out = cosim.read_run(_damaged(finished, tmp_path, name, how))
    assert list(out.torn) == [name] and why in out.torn[name], out.torn


def test_a_scenario_that_is_not_a_mapping_is_torn_even_without_digests(finished, tmp_path):
    run = _damaged(finished, tmp_path, "scenario.yaml", "list")
    status = json.loads((run / "status.json").read_text())
    del status["files_sha256"]  # a run written before digests were kept
    (run / "status.json").write_text(json.dumps(status))
    out = cosim.read_run(run)
    assert out.torn == {"scenario.yaml": "ValueError: expected a mapping, got list"} and out.scenario == {}


def test_view_replays_the_positions_when_the_scenario_is_missing(finished, tmp_path, caplog):
    run = tmp_path / "no-scenario"
    shutil.copytree(finished, run)
    (run / "scenario.yaml").unlink()
    assert write_recording(run).stat().st_size > 0
    assert "scenario.yaml is missing; drawing 20 robots without their groups" in caplog.text
    (run / "status.json").unlink()
    with pytest.raises(FileNotFoundError, match=r"is not a run directory \(no status.json\)"):
        write_recording(run)
