"""The hostile audit's harness (benchmarks/hostile_audit.py) judges what a command did: a sample of
its cases, and cases built to be each kind of failure, so that a broken judge cannot pass the audit."""

from __future__ import annotations

import sys

import pytest

from tests.conftest import ROOT

sys.path.insert(0, str(ROOT))

from benchmarks.hostile import controllers, inputs, scenario_values
from benchmarks.hostile.base import scenario_text
from benchmarks.hostile.case import Case
from benchmarks.hostile_audit import run_case

RUN = ("cosim", "run", "s.yaml", "--out", "run", "--quiet")


def _pick(module, name: str) -> Case:
    return next(c for c in module.cases() if c.name == name)


@pytest.mark.parametrize("case", [
    _pick(scenario_values, "groups.0.robot.max_speed=-1"),
    _pick(inputs, "scenario-fifo"),
    _pick(controllers, "RaiseStep"),
], ids=lambda c: f"{c.family}/{c.name}")
def test_a_sample_of_the_audit_is_handled(case, tmp_path):
    row = run_case(case, tmp_path)
    assert row["outcome"] == "handled", row


@pytest.mark.parametrize(("case", "outcome"), [
    (Case("judge", "refusal-expected", RUN, "refuse", mention=("s.yaml",), files={"s.yaml": scenario_text()}), "nonsense"),
    (Case("judge", "words-missing", RUN, "refuse", mention=("no such word",),
          files={"s.yaml": scenario_text({"seed": "abc"})}), "unclear"),
    (Case("judge", "guard-changed", ("python", "-c", "open('keep.txt', 'w').write('gone')"), "ok",
          files={"keep.txt": "mine"}, guard=("keep.txt",)), "lost"),
    (Case("judge", "no-run", ("python", "-c", "pass"), "ok", run_dir="run"), "lost"),
    (Case("judge", "traceback", ("python", "-c", "raise ValueError('x')"), "refuse", mention=("x",)), "traceback"),
    (Case("judge", "hang", ("python", "-c", "import time; time.sleep(30)"), "ok", timeout_s=1), "hang"),
], ids=lambda v: v.name if isinstance(v, Case) else v)
def test_the_judge_tells_each_kind_of_failure(case, outcome, tmp_path):
    assert run_case(case, tmp_path)["outcome"] == outcome
