"""Shared helpers: small scenario dictionaries and a run helper writing into tmp_path."""

from __future__ import annotations

import copy
import os
from pathlib import Path

# numpy's AVX-512 kernels (sin, cos, exp, ...) round differently from its AVX2 ones: the recorded
# trace digests (tests/cosim/config_digests.json) are the AVX2 results, on every machine.
os.environ.setdefault("NPY_DISABLE_CPU_FEATURES", "X86_V4 AVX512_ICL AVX512_SPR")

import pytest

import cosim

ROOT = Path(__file__).resolve().parents[1]


@pytest.hookimpl(tryfirst=True)
def pytest_sessionstart(session: pytest.Session) -> None:
    """With pytest-xdist, before the workers start: compile the kernels into numba's on-disk cache once,
    in a few processes side by side (tests/kernel_warmup.py), rather than in every worker."""
    config = session.config
    if hasattr(config, "workerinput") or not config.getoption("numprocesses", None) or config.option.collectonly:
        return
    import subprocess
    import sys
    import time
    import warnings

    start = time.perf_counter()
    from tests.kernel_warmup import PARTS

    parts = [subprocess.Popen([sys.executable, "-m", "tests.kernel_warmup", str(k)], cwd=ROOT, stdout=subprocess.DEVNULL,
                              stderr=subprocess.PIPE, text=True) for k in range(len(PARTS))]
    for k, proc in enumerate(parts):
        _, err = proc.communicate()
        if proc.returncode:  # the tests that use those kernels compile them and say what is wrong
            warnings.warn(f"kernel warm-up part {k} failed ({proc.returncode}): {err.strip()[-2000:]}", stacklevel=1)
    reporter = config.pluginmanager.get_plugin("terminalreporter")
    if reporter is not None:  # pytest's own timer starts after this: say what it does not count
        reporter.write_line(f"kernels compiled into numba's cache (or found there) in {time.perf_counter() - start:.1f} s")


def free_udp_port() -> int:
    """A UDP port on 127.0.0.1 that nothing holds right now."""
    import socket

    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def base_scenario(**overrides) -> dict:
    """A 20-robot random-walk swarm on the kinematic world and the fast network, 2 s long."""
    data = {
        "name": "test",
        "seed": 3,
        "duration": 2.0,
        "quantum": "10 ms",
        "physics": {"backend": "kinematic", "dt": "10 ms"},
        "network": {"backend": "fast", "radio": {"pathloss": {"model": "unit_disk", "range_m": 30.0}}},
        "groups": [{
            "name": "bees",
            "count": 20,
            "layout": {"type": "random_disc", "center": [0, 0, 1], "radius": 20},
            "sensors": {"compass": {"noise_std": 0.2}},
            "controller": {"class": "controllers.library.instrument:InstrumentBee", "period": 0.1},
        }],
    }
    data = copy.deepcopy(data)
    data.update(overrides)
    return data


@pytest.fixture
def run_dict(tmp_path):
    """Run a scenario given as a dict; returns the RunResult."""
    counter = {"k": 0}

    def _run(data: dict) -> cosim.RunResult:
        counter["k"] += 1
        scenario = cosim.from_dict(data, source="test.yaml")
        return cosim.run(scenario, out_dir=tmp_path / f"run{counter['k']}")

    return _run
