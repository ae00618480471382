"""pybullet's import banner stays out of the terminal (`cosim validate` of a pybullet scenario)."""

from __future__ import annotations

import subprocess
import sys

from tests.conftest import ROOT


def test_validating_a_pybullet_scenario_prints_only_the_verdict():
    proc = subprocess.run([sys.executable, "-m", "cosim.cli", "validate", str(ROOT / "configs" / "obstacles_pybullet.yaml")],
                          capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert "pybullet build time" not in proc.stdout + proc.stderr
    assert proc.stdout.strip().endswith("obstacles_pybullet.yaml: ok (60 robots, 20 s simulated)")


def test_errors_after_the_import_still_reach_stderr():
    code = ("import sys; from physics.pybullet.engine import pybullet_module; pybullet_module(); "
            "print('after', file=sys.stderr)")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert proc.stderr.strip() == "after"
