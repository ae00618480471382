"""Run directories survive failures: staged and renamed into place, never overwriting a run or the
user's files by accident, marked interrupted on SIGTERM and failed on a full disk, with the trace
kept. Through `cosim run` (cosim.cli.main) and as a user would call it from a shell."""

import json
import os
import resource
import shutil
import signal
import subprocess
import sys
import time

import pyarrow.parquet as pq
import yaml

from cosim.cli import main
from tests.conftest import ROOT, base_scenario

EXPLODER = {"class": "tests.controllers.helpers:Exploder", "params": {"victim": -1}}


def _write(tmp_path, name="s.yaml", **over):
    path = tmp_path / name
    path.write_text(yaml.safe_dump(base_scenario(**over)))
    return path


def _status(directory):
    return json.loads((directory / "status.json").read_text())


def test_an_existing_run_directory_is_refused_without_overwrite(tmp_path, capsys):
    path, out = _write(tmp_path), tmp_path / "out"
    assert main(["run", str(path), "--out", str(out), "--quiet", "--in-process"]) == 0
    before = (out / "metrics.json").read_text()
    capsys.readouterr()
    assert main(["run", str(path), "--out", str(out), "--quiet", "--seed", "9"]) == 2
    err = capsys.readouterr().err
    assert f"error: {out} exists and is not empty" in err and "--overwrite" in err
    assert (out / "metrics.json").read_text() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out", "s.yaml"]  # no staging left behind


def test_overwrite_replaces_a_run_only_with_one_that_succeeded(tmp_path, capsys):
    path, out = _write(tmp_path), tmp_path / "out"
    assert main(["run", str(path), "--out", str(out), "--quiet", "--in-process"]) == 0
    (out / "trace" / "events.parquet").write_text("stale")  # an output the next run does not write
    assert main(["run", str(path), "--out", str(out), "--quiet", "--in-process", "--seed", "7", "--overwrite"]) == 0
    assert yaml.safe_load((out / "scenario.yaml").read_text())["seed"] == 7
    assert not (out / "trace" / "events.parquet").exists()
    failing = _write(tmp_path, "bad.yaml", groups=[{**base_scenario()["groups"][0], "controller": EXPLODER}])
    capsys.readouterr()
    assert main(["run", str(failing), "--out", str(out), "--quiet", "--overwrite"]) == 1
    assert yaml.safe_load((out / "scenario.yaml").read_text())["seed"] == 7 and _status(out)["status"] == "ok"
    kept = [p for p in tmp_path.iterdir() if p.name.startswith("out.failed-")]
    assert len(kept) == 1 and "controller bug" in _status(kept[0])["error"]
    assert f"run directory: {kept[0]}" in capsys.readouterr().out


def test_overwrite_never_replaces_the_users_files(tmp_path, monkeypatch, capsys):
    path = _write(tmp_path)
    monkeypatch.chdir(tmp_path)
    assert main(["run", "s.yaml", "--out", ".", "--overwrite", "--quiet"]) == 2
    assert "it is (or holds) the working directory" in capsys.readouterr().err
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "paper.tex").write_text("months of work")
    assert main(["run", str(path), "--out", str(notes), "--overwrite", "--quiet"]) == 2
    assert "replaces only a run directory" in capsys.readouterr().err
    assert (notes / "paper.tex").read_text() == "months of work" and path.exists()


def test_overwrite_refuses_a_run_directory_holding_files_no_run_writes(tmp_path, capsys):
    path, out = _write(tmp_path), tmp_path / "out"
    assert main(["run", str(path), "--out", str(out), "--quiet", "--in-process"]) == 0
    (out / "thesis.tex").write_text("chapter 1")
    (out / "data").mkdir()
    (out / "data" / "raw.csv").write_text("1,2")
    (out / "trace" / "notes.txt").write_text("what I saw")
    capsys.readouterr()
    assert main(["run", str(path), "--out", str(out), "--quiet", "--overwrite"]) == 2
    assert (f"refusing to replace {out}: it holds files no run writes (data/, thesis.tex, trace/notes.txt)"
            in capsys.readouterr().err)
    assert (out / "thesis.tex").read_text() == "chapter 1" and (out / "data" / "raw.csv").is_file()
    (out / "thesis.tex").unlink()
    shutil.rmtree(out / "data")
    (out / "trace" / "notes.txt").unlink()
    (out / "report").mkdir()  # what `cosim report` and `cosim view` write into a run are the run's own
    (out / "report" / "index.html").write_text("<html>")
    (out / "recording.rrd").write_bytes(b"rrd")
    assert main(["run", str(path), "--out", str(out), "--quiet", "--overwrite", "--in-process"]) == 0
    assert not (out / "report").exists()


def test_a_second_run_into_one_directory_is_refused_naming_the_first(tmp_path, capsys):
    from cosim.output.staging import Staging

    path, out = _write(tmp_path), tmp_path / "out"
    first = Staging(out)
    assert main(["run", str(path), "--out", str(out), "--quiet"]) == 2
    assert f"error: another run is writing {out} (process {os.getpid()} on " in capsys.readouterr().err
    (first.work / "status.json").write_text('{"status": "ok"}')
    assert first.publish("ok") == out
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out", "s.yaml"]  # the lock file goes with the lock
    assert main(["run", str(path), "--out", str(tmp_path / "next"), "--quiet", "--in-process"]) == 0


def test_a_scenario_name_cannot_leave_the_output_directory(tmp_path, run_dict):
    import cosim

    data = base_scenario(name="../../escape/../x y", output={"dir": str(tmp_path / "runs")})
    path = tmp_path / "s.yaml"
    path.write_text(yaml.safe_dump(data))
    result = cosim.run(cosim.load(path))
    assert result.status == "ok"
    assert result.directory.parent == tmp_path / "runs"
    assert result.directory.name.startswith("escape_x_y-seed3-")


def _cosim(args, **kw):
    return subprocess.Popen([sys.executable, "-m", "cosim.cli", *args], cwd=ROOT, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, **kw)


def test_sigterm_marks_the_run_interrupted_and_keeps_its_trace(tmp_path):
    path, out = _write(tmp_path, duration=100_000.0, output={"trace": {"positions_every": 0.1}}), tmp_path / "out"
    proc = _cosim(["run", str(path), "--out", str(out)])
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and not list(tmp_path.glob(".out.partial-*/trace")):
        time.sleep(0.2)
    time.sleep(2.0)  # well into the run (the child started and streams its trace)
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    status = _status(out)
    assert status["status"] == "interrupted" and status["error"] == "terminated by SIGTERM" and status["t_s"] > 0
    positions = pq.read_table(out / "trace" / "positions.parquet")
    assert positions.num_rows > 0 and max(positions.column("t_ns").to_pylist()) > 0


def _small_files(limit_bytes: int):
    def apply() -> None:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past the limit fails (EFBIG), as on a full disk
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit_bytes, limit_bytes))
    return apply


def test_a_full_disk_marks_the_run_failed_with_the_reason(tmp_path):
    path, out = _write(tmp_path, duration=20.0, output={"trace": {"positions_every": 0.01}}), tmp_path / "out"
    proc = _cosim(["run", str(path), "--out", str(out), "--quiet", "--in-process"], preexec_fn=_small_files(200_000),
                  env={**os.environ, "PYTHONPATH": str(ROOT)})
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 1, err
    status = _status(out)
    assert status["status"] == "failed" and "File too large" in status["error"], status
    assert "Traceback" not in err


def test_ctrl_c_while_the_results_are_written_waits_for_them(tmp_path, monkeypatch):
    import cosim
    from cosim.execution import execute

    write = execute._write_metrics

    def pressed_meanwhile(*args):
        os.kill(os.getpid(), signal.SIGINT)  # the user presses Ctrl-C as the traces are being written
        return write(*args)

    monkeypatch.setattr(execute, "_write_metrics", pressed_meanwhile)
    result = cosim.run(cosim.from_dict(base_scenario(), source=str(tmp_path / "s.yaml")), out_dir=tmp_path / "out")
    assert result.status == "ok" and _status(tmp_path / "out")["status"] == "ok"
    assert json.loads((tmp_path / "out" / "metrics.json").read_text())["trace_sha256"] == result.metrics["trace_sha256"]
