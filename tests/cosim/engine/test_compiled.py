"""Runs give the same traces with the compiled kernels as with numpy, and the compiled ones are
loaded only when a run is big enough to pay for them."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

import cosim
from cosim.engine.assemble import COMPILED_ENV, wants_compiled
from tests.conftest import ROOT

CONFIGS = ["demo.yaml", "ground_robots.yaml", "kilombo_follow_group.yaml", "obstacles_pybullet.yaml", "quadrotors.yaml"]

SCRIPT = """
import json, sys, tempfile
import cosim
from physics import kernels
out = {}
for name in sys.argv[1:]:
    with tempfile.TemporaryDirectory() as tmp:
        r = cosim.run(cosim.load("configs/" + name, {"duration": 3.0}), out_dir=tmp + "/run")
    out[name] = r.trace_digest
print(json.dumps({"compiled": kernels.compiled, "digests": out}))
"""


def test_compiled_kernels_give_the_recorded_digests():
    env = {**os.environ, COMPILED_ENV: "1", "PYTHONPATH": str(ROOT)}
    proc = subprocess.run([sys.executable, "-c", SCRIPT, *CONFIGS], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=300)
    assert proc.returncode == 0, proc.stderr
    result = json.loads(proc.stdout.strip().splitlines()[-1])
    recorded = json.loads((ROOT / "tests" / "cosim" / "config_digests.json").read_text())["digests"]
    assert result["compiled"] is True
    assert result["digests"] == {name: recorded[name] for name in CONFIGS}


def test_only_big_runs_load_the_compiled_kernels(monkeypatch):
    monkeypatch.delenv(COMPILED_ENV, raising=False)
    short = cosim.load(ROOT / "configs" / "demo.yaml", {"duration": 3.0})
    long = cosim.load(ROOT / "configs" / "kilombo_follow_group.yaml", {"groups.1.count": 999})
    assert not wants_compiled(short) and wants_compiled(long)
    flock = cosim.load(ROOT / "configs" / "uav_flocking.yaml", {"duration": 10.0})  # ten quadrotors: 4,000 control ticks
    assert wants_compiled(flock) and not wants_compiled(cosim.load(ROOT / "configs" / "uav_flocking.yaml", {"duration": 2.0}))
    # 100 robots reading 8 rays at 10 Hz for 20 s: about 5 s of numpy casts against 0.4 s of loading
    rays = {"duration": 20.0, "groups.0.count": 100, "world": {"obstacles": [{"center": [5, 5, 0.5], "size": [1, 1, 1]}]}}
    assert wants_compiled(cosim.load(ROOT / "configs" / "ground_robots.yaml", rays))
    assert not wants_compiled(cosim.load(ROOT / "configs" / "ground_robots.yaml", {**rays, "groups.0.sensors": {}}))
    monkeypatch.setenv(COMPILED_ENV, "0")
    assert not wants_compiled(long)
    monkeypatch.setenv(COMPILED_ENV, "1")
    assert wants_compiled(short)
    monkeypatch.setenv(COMPILED_ENV, "yes")
    with pytest.raises(ValueError, match=r"COSIM_COMPILED=.yes.: expected 1 .*, 0 .* or unset"):
        wants_compiled(short)
