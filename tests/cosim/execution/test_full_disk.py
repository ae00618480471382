"""A disk that fills up during a run: the CLI says so and exits, the run directory is published with
the child's own record, and nothing is a traceback (CPython ignores SIGXFSZ: writes past the
file-size limit fail with EFBIG, as on a full disk)."""

from __future__ import annotations

import json
import resource
import subprocess
import sys

import yaml

from tests.conftest import ROOT, base_scenario


def _limit(kb: int):
    def apply() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (kb * 1024, kb * 1024))
    return apply


def test_a_disk_full_during_the_run_is_a_failed_run_not_a_crash(tmp_path):
    data = base_scenario(duration=4.0)
    data["groups"][0]["count"] = 60
    data["output"] = {"trace": {"positions_every": 0.01, "network": True}}
    path = tmp_path / "big.yaml"
    path.write_text(yaml.safe_dump(data))
    proc = subprocess.run([sys.executable, "-m", "cosim.cli", "run", str(path), "--out", str(tmp_path / "run"), "--quiet"],
                          capture_output=True, text=True, cwd=ROOT, timeout=300, preexec_fn=_limit(64))
    assert "Traceback" not in proc.stderr and "Traceback" not in proc.stdout, proc.stderr[-3000:]
    assert proc.returncode == 1, proc.stderr[-2000:]
    status = json.loads((tmp_path / "run" / "status.json").read_text())
    assert status["status"] == "failed" and "File too large" in status["error"], status
    assert f"run directory: {tmp_path / 'run'}" in proc.stdout


def test_an_output_directory_that_is_a_file_is_a_clear_error(tmp_path):
    data = base_scenario(duration=0.2)
    path = tmp_path / "s.yaml"
    path.write_text(yaml.safe_dump(data))
    (tmp_path / "taken").write_text("a file")
    proc = subprocess.run([sys.executable, "-m", "cosim.cli", "run", str(path), "--out", str(tmp_path / "taken" / "run")],
                          capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert proc.stderr.startswith("error: ") and "taken" in proc.stderr
