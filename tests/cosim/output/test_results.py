"""A run directory with torn files (a process killed while writing, a full disk) is read for what
is readable; `read_run`, `cosim report`, `cosim compare` and `cosim view` name each torn file."""

from __future__ import annotations

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
