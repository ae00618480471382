"""`cosim view` and `cosim run --view / --stream` from the command line."""

from __future__ import annotations

import json
import socket
import subprocess
import sys

import yaml

from cosim.cli import main
from tests.conftest import base_scenario
from tests.cosim.view.rrd import contents


def _scenario(tmp_path, **output) -> str:
    path = tmp_path / "s.yaml"
    path.write_text(yaml.safe_dump(base_scenario(duration=1.0, output={"trace": {"positions_every": 0.25}, **output})))
    return str(path)


def test_view_writes_the_recording_from_the_trace(tmp_path, capsys):
    assert main(["run", _scenario(tmp_path), "--out", str(tmp_path / "run"), "--quiet", "--in-process"]) == 0
    assert not (tmp_path / "run" / "recording.rrd").exists()
    assert main(["view", str(tmp_path / "run"), "--write-only", "--layers", "robots,metrics"]) == 0
    assert "recording: " in capsys.readouterr().out
    rec = contents(tmp_path / "run" / "recording.rrd")
    assert len(rec["/world/robots/bees"]) == 5 and "/world/links" not in rec and "/metrics/alive" in rec


def test_view_of_a_directory_without_a_trace_says_what_is_missing(tmp_path, capsys):
    (tmp_path / "empty").mkdir()
    assert main(["view", str(tmp_path / "empty"), "--write-only"]) == 2
    assert "is not a run directory (no status.json)" in capsys.readouterr().err
    (tmp_path / "empty" / "status.json").write_text('{"status": "ok"}')
    assert main(["view", str(tmp_path / "empty"), "--write-only"]) == 2
    assert "no position trace to view" in capsys.readouterr().err


def test_run_with_view_streams_to_a_viewer_on_127_0_0_1_and_keeps_the_digest(tmp_path):
    """`cosim run --view` (not at a terminal): a web viewer starts on 127.0.0.1, receives the run, and stops."""
    scenario = _scenario(tmp_path)
    plain = subprocess.run([sys.executable, "-m", "cosim.cli", "run", scenario, "--out", str(tmp_path / "plain"), "--quiet"],
                           capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=300)
    viewed = subprocess.run([sys.executable, "-m", "cosim.cli", "run", scenario, "--out", str(tmp_path / "viewed"), "--quiet",
                             "--view"], capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=300)
    assert plain.returncode == 0 and viewed.returncode == 0, viewed.stderr
    url = next(line for line in viewed.stderr.splitlines() if line.startswith("live view: ")).split(": ", 1)[1]
    assert url.startswith("http://127.0.0.1:") and "url=rerun%2Bhttp%3A%2F%2F127.0.0.1%3A" in url
    m_plain = json.loads((tmp_path / "plain" / "metrics.json").read_text())
    m_view = json.loads((tmp_path / "viewed" / "metrics.json").read_text())
    assert m_view["trace_sha256"] == m_plain["trace_sha256"]
    assert m_view["view"]["connect"].startswith("rerun+http://127.0.0.1:")
    assert m_view["view"]["frames"] == 5  # a frame per 250 ms (the default) over 1 s
    port = int(url.split(":")[2].split("/")[0])
    with socket.socket() as s:  # the viewer stopped with the command
        assert s.connect_ex(("127.0.0.1", port)) != 0


def test_run_stream_option_sets_the_scenario_key(tmp_path, capsys):
    assert main(["run", _scenario(tmp_path), "--out", str(tmp_path / "run"), "--quiet", "--in-process",
                 "--stream", "tcp://0.0.0.0:5556"]) == 2
    assert "output.stream: url 'tcp://0.0.0.0:5556' listens on every interface" in capsys.readouterr().err
