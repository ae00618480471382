"""Same scenario and seed: bit-identical trace in two separate processes; another seed differs."""

import json
import subprocess
import sys

import pytest
import yaml

from tests.conftest import ROOT, base_scenario


def run_in_subprocess(tmp_path, name: str, seed: int, world: str = "kinematic") -> str:
    data = base_scenario(seed=seed, duration=3.0)
    data["physics"]["backend"] = world
    data["network"]["radio"]["loss_probability"] = 0.2
    path = tmp_path / f"{name}.yaml"
    path.write_text(yaml.safe_dump(data))
    out = tmp_path / name
    proc = subprocess.run(
        [sys.executable, "-m", "cosim.cli", "run", str(path), "--out", str(out), "--quiet"],
        cwd=ROOT, capture_output=True, text=True, timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    metrics = json.loads((out / "metrics.json").read_text())
    assert metrics["messages_delivered"] > 0
    return metrics["trace_sha256"]


@pytest.mark.parametrize("world", ["kinematic", "pybullet"])
def test_same_seed_gives_identical_trace_across_processes(tmp_path, world):
    a = run_in_subprocess(tmp_path, "a", 11, world)
    b = run_in_subprocess(tmp_path, "b", 11, world)
    c = run_in_subprocess(tmp_path, "c", 12, world)
    assert a == b
    assert a != c
    trace_a = (tmp_path / "a" / "trace" / "positions.parquet").read_bytes()
    assert trace_a == (tmp_path / "b" / "trace" / "positions.parquet").read_bytes()
