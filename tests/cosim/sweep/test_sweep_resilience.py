"""Sweeps against damage and contention: corrupt run files and traces are redone, one driver per
directory (the lock names its holder and dies with it), and the retry count reads right."""

import ctypes
import json
import logging
import os
import signal
import subprocess
import sys

import pytest

from cosim.cli import main
from cosim.output.lock import Locked
from cosim.output.rundir import RunResult
from cosim.sweep import runner
from cosim.sweep.runner import driver_lock, run_sweep
from cosim.sweep.spec import load_sweep
from tests.conftest import ROOT
from tests.cosim.sweep.test_sweep import write_sweep


@pytest.fixture
def finished(tmp_path):
    """A finished sweep of three runs, and its spec."""
    spec = load_sweep(write_sweep(tmp_path, {"groups.0.count": [4, 5, 6]}, replications=1))
    out = tmp_path / "out"
    assert run_sweep(spec, out_dir=out, jobs=2).ok == 3
    return spec, out, sorted(p for p in (out / "runs").iterdir())


def test_corrupt_run_files_send_those_runs_back_to_the_queue(finished, caplog):
    spec, out, (a, b, c) = finished
    (a / "status.json").write_text('{"status": "o')  # torn write
    (b / "metrics.json").write_text("\x00\x00garbage")
    before_c = (c / "metrics.json").read_text()
    with caplog.at_level(logging.WARNING):
        outcome = run_sweep(spec, out_dir=out, jobs=2)
    assert (outcome.ran, outcome.ok, outcome.skipped) == (2, 2, 1)
    assert sum("is rerun: unreadable run files" in r.message for r in caplog.records) == 2
    assert json.loads((a / "status.json").read_text())["status"] == "ok"
    count = json.loads((b / "sweep_point.json").read_text())["params"]["groups.0.count"]
    assert json.loads((b / "metrics.json").read_text())["nodes"] == count
    assert (c / "metrics.json").read_text() == before_c


def test_a_damaged_or_altered_trace_is_detected_by_its_digest(finished, caplog):
    spec, out, (a, b, _) = finished
    positions = a / "trace" / "positions.parquet"
    positions.write_bytes(positions.read_bytes()[:200])  # truncated
    import pyarrow.compute as pc
    import pyarrow.parquet as pq

    table = pq.read_table(b / "trace" / "positions.parquet")
    x = table.column("x")
    pq.write_table(table.set_column(table.schema.get_field_index("x"), "x", pc.add(x, 1.0)), b / "trace" / "positions.parquet")
    with caplog.at_level(logging.WARNING):
        outcome = run_sweep(spec, out_dir=out, jobs=2)
    assert (outcome.ran, outcome.skipped) == (2, 1)
    messages = " ".join(r.message for r in caplog.records)
    assert "its trace cannot be read" in messages and "does not match its recorded digest" in messages


def test_resume_repairs_the_damage_it_finds_and_then_leaves_the_runs_alone(finished):
    """A deleted metrics.json, a truncated positions.parquet and a removed trace/: the resume reruns
    those runs and the fresh results replace the damaged ones (they used to be kept, still "ok"),
    so results.csv is right and the next resume has nothing to do."""
    import shutil

    from cosim.output.results import read_run

    spec, out, (a, b, c) = finished
    (a / "metrics.json").unlink()
    positions = b / "trace" / "positions.parquet"
    positions.write_bytes(positions.read_bytes()[:100])
    shutil.rmtree(c / "trace")
    outcome = run_sweep(spec, out_dir=out, jobs=2)
    assert (outcome.ran, outcome.ok, outcome.skipped) == (3, 3, 0)
    for run_dir in (a, b, c):
        run = read_run(run_dir)  # every trace reads, and the metrics are back
        assert run.status == "ok" and run.metrics["trace_sha256"] and run.traces["positions"].num_rows > 0
    again = run_sweep(spec, out_dir=out, jobs=2)
    assert (again.ran, again.skipped) == (0, 3)


def test_a_run_killed_by_ctrl_c_before_it_could_record_it_is_interrupted_and_rerun(tmp_path, monkeypatch):
    """SIGINT kills the child during its start-up: recorded interrupted (not failed), so the resume runs it."""
    from cosim.execution import isolated

    spec = load_sweep(write_sweep(tmp_path, {"groups.0.count": [4]}, replications=1))
    real = isolated.subprocess.Popen

    def interrupted_child(*args, preexec_fn=None, **kwargs):
        if preexec_fn is None:  # not the run's child (git, for the run's metadata)
            return real(*args, **kwargs)

        def then_ctrl_c() -> None:  # in the child before it runs any of its code: killed by SIGINT, however busy the machine
            preexec_fn()
            libc = ctypes.CDLL(None)
            libc.signal(signal.SIGINT, ctypes.c_void_p(0))  # SIG_DFL, not the handler inherited from the parent
            libc.kill(os.getpid(), signal.SIGINT)

        return real(*args, preexec_fn=then_ctrl_c, **kwargs)

    monkeypatch.setattr(isolated.subprocess, "Popen", interrupted_child)
    first = run_sweep(spec, out_dir=tmp_path / "out", jobs=1)
    assert first.ok == 0 and "interrupted (killed by SIGINT)" in " ".join(first.failures.values())
    monkeypatch.setattr(isolated.subprocess, "Popen", real)
    second = run_sweep(spec, out_dir=tmp_path / "out", jobs=1)
    assert (second.ran, second.ok) == (1, 1)


def test_one_driver_per_directory(finished, capsys):
    spec, out, _ = finished
    with driver_lock(out):
        assert main(["sweep", str(spec.source), "--out", str(out), "--quiet"]) == 2
        err = capsys.readouterr().err
        assert f"error: {out} is in use by another sweep driver (process {os.getpid()} on " in err
        with pytest.raises(Locked):
            run_sweep(spec, out_dir=out)
    assert main(["sweep", str(spec.source), "--out", str(out), "--quiet"]) == 0


def test_the_lock_dies_with_its_holder(finished):
    spec, out, _ = finished
    code = (f"import pathlib, time; from cosim.sweep.runner import driver_lock; "
            f"driver_lock(pathlib.Path({str(out)!r})).acquire(); "
            "print('held', flush=True); time.sleep(60)")
    holder = subprocess.Popen([sys.executable, "-c", code], cwd=ROOT, stdout=subprocess.PIPE, text=True)
    assert holder.stdout.readline().strip() == "held"
    with pytest.raises(Locked, match=f"process {holder.pid} on "):
        run_sweep(spec, out_dir=out)
    holder.send_signal(signal.SIGKILL)
    holder.wait()
    assert run_sweep(spec, out_dir=out).skipped == 3


def test_lost_runs_are_retried_and_the_message_counts_right(tmp_path, monkeypatch, caplog):
    spec = load_sweep(write_sweep(tmp_path, {"groups.0.count": [4]}, replications=1))
    calls = []

    def always_lost(scenario, out_dir, **kw):  # the run's process killed from outside every time (stand-in)
        calls.append(out_dir)
        (out_dir / "status.json").write_text(json.dumps({"status": "failed", "error": "killed by SIGKILL"}))
        return RunResult(out_dir, "failed", {}, "the simulation process died (killed by SIGKILL)", None, lost=True)

    monkeypatch.setattr(runner, "run_isolated", always_lost)
    with caplog.at_level(logging.WARNING):
        outcome = run_sweep(spec, out_dir=tmp_path / "out", jobs=1)
    messages = [r.message for r in caplog.records if "killed from outside" in r.message]
    assert len(calls) == 1 + runner.LOST_WORKER_RETRIES and outcome.failed == 1
    assert messages[:2] == [f"run {spec.points()[0].key}: its process was killed from outside; retrying (retry {k} of 2)"
                            for k in (1, 2)]
    assert "recorded as failed after 2 retries" in messages[2] and not any("3 of 2" in m for m in messages)


def test_a_metrics_file_edited_after_the_run_is_not_trusted(finished, caplog):
    spec, out, (a, _, _) = finished
    metrics = json.loads((a / "metrics.json").read_text())
    metrics["messages_sent"] += 1000  # a number that looks right
    (a / "metrics.json").write_text(json.dumps(metrics, indent=2))
    with caplog.at_level(logging.WARNING):
        outcome = run_sweep(spec, out_dir=out, jobs=2)
    assert (outcome.ran, outcome.ok, outcome.skipped) == (1, 1, 2)
    assert "metrics.json is not the one the run wrote" in caplog.text
    assert json.loads((a / "metrics.json").read_text())["messages_sent"] == metrics["messages_sent"] - 1000


def test_a_damaged_index_is_rebuilt_from_the_runs(finished, caplog):
    from cosim.sweep.index import results_table

    spec, out, _ = finished
    (out / "index.sqlite").write_bytes(b"not a database " * 100)
    with caplog.at_level(logging.WARNING):
        rows = results_table(out)
    assert sorted(r["groups.0.count"] for r in rows) == [4, 5, 6] and {r["status"] for r in rows} == {"ok"}
    assert "index.sqlite is damaged" in caplog.text
    (out / "index.sqlite").write_bytes(b"not a database " * 100)
    assert run_sweep(spec, out_dir=out).skipped == 3
