"""Compiling kernels is counted, told, and left out of a run's real-time factor (jit.clock)."""

from __future__ import annotations

import numba
import pytest
import yaml

import cosim
import cosim.execution.execute
from cosim.cli import main
from cosim.execution.warm import warm
from jit.clock import CLOCK, watch

SCENARIO = {
    "name": "compiles", "seed": 1, "duration": 1.0, "network": {"backend": "none"},
    "groups": [{"name": "a", "count": 1, "robot": {"model": "point"},
                "controller": {"class": "tests.jit.compile_probe:CompilesOnce", "period": "100 ms"}}],
}


def test_an_outermost_compile_counts_once_and_a_cached_call_not_at_all():
    assert watch()
    before = CLOCK.total_s

    @numba.njit(cache=False)
    def inner(x: float) -> float:
        return x * 2.0

    @numba.njit(cache=False)
    def outer(x: float) -> float:
        return inner(x) + 1.0

    assert outer(1.0) == 3.0
    first = CLOCK.total_s - before
    assert first > 0.001
    outer(2.0)
    assert CLOCK.total_s - before == first


def test_a_run_that_compiles_reports_compile_s_and_leaves_it_out_of_its_speed(tmp_path):
    told: list[str] = []
    result = cosim.execution.execute.run_in(cosim.from_dict(SCENARIO), tmp_path / "run", phase=told.append)
    m = result.metrics
    assert result.status == "ok", result.error
    assert 0.001 < m["compile_s"] < m["wall_s"]
    assert m["real_time_factor"] == pytest.approx(m["simulated_s"] / (m["wall_s"] - m["compile_s"]))
    assert told == ["compiling kernels (first run of this code on this machine; cached afterwards, see `cosim warm`)"]
    assert "compiling kernels left out" in (tmp_path / "run" / "summary.txt").read_text()


def test_cosim_warm_runs_each_scenario_briefly_and_says_what_compiling_cost(tmp_path, capsys):
    path = tmp_path / "compiles.yaml"
    path.write_text(yaml.safe_dump({**SCENARIO, "duration": 30.0}))
    assert warm(path).compile_s > 0.0  # the probe's kernel compiled (its own run, never cached)
    assert main(["warm", str(path)]) == 0
    said = capsys.readouterr().out
    assert said.startswith(f"{path}: ") and " s compiling, " in said and said.endswith(" s in all\n")
    assert main(["warm", str(tmp_path / "missing.yaml")]) == 2
