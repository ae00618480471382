"""Where controller classes named in a scenario are found: old names through the alias table (with a
deprecation warning once), a user's module beside the scenario or in the working directory."""

from __future__ import annotations

import logging
import subprocess
import sys
import textwrap

import pytest
import yaml

import cosim
from controllers.library.instrument import InstrumentBee
from cosim.errors import ScenarioError
from cosim.scenario import classes
from cosim.scenario.classes import import_class
from tests.conftest import ROOT, base_scenario

USER_CONTROLLER = textwrap.dedent("""
    from controllers import Controller

    class Spinner(Controller):
        period = 0.5

        def step(self):
            self.robot.turn(0.5)
            self.record("spun", 1.0)
""")


def test_old_class_strings_resolve_with_one_warning(caplog, monkeypatch):
    monkeypatch.setattr(classes, "_warned", set())
    with caplog.at_level(logging.WARNING, logger="cosim.scenario.classes"):
        assert import_class("controllers.instrument:InstrumentBee") is InstrumentBee
        assert import_class("controllers.instrument:InstrumentBee") is InstrumentBee
    warnings = [r.getMessage() for r in caplog.records]
    assert len(warnings) == 1
    assert "'controllers.instrument:InstrumentBee' is an old name" in warnings[0]
    assert "controllers.library.instrument:InstrumentBee" in warnings[0]


def test_every_old_module_name_still_resolves():
    import importlib
    import inspect

    from controllers.aliases import ALIASES

    for old, new in ALIASES.items():
        module = importlib.import_module(new)
        names = [n for n, c in vars(module).items() if inspect.isclass(c) and c.__module__.startswith(new)]
        assert names, new
        assert all(import_class(f"{old}:{n}") is getattr(module, n) for n in names), old


def test_a_scenario_with_old_class_strings_runs_the_same(tmp_path):
    old = base_scenario()
    old["groups"][0]["controller"]["class"] = "controllers.instrument:InstrumentBee"
    new = base_scenario()
    a = cosim.run(cosim.from_dict(old, "old.yaml"), out_dir=tmp_path / "old")
    b = cosim.run(cosim.from_dict(new, "new.yaml"), out_dir=tmp_path / "new")
    assert a.status == b.status == "ok"
    assert a.trace_digest == b.trace_digest is not None


def test_a_controller_module_beside_the_scenario_imports_without_pythonpath(tmp_path):
    """`cosim run` from another directory, no PYTHONPATH: the scenario's directory is searched."""
    project = tmp_path / "project"
    project.mkdir()
    (project / "my_spinners.py").write_text(USER_CONTROLLER)
    data = base_scenario(duration=1.0)
    data["groups"][0]["controller"] = {"class": "my_spinners:Spinner"}
    (project / "spin.yaml").write_text(yaml.safe_dump(data))
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path)}
    proc = subprocess.run([sys.executable, "-c", "import sys; from cosim.cli import main; sys.exit(main(sys.argv[1:]))",
                           "run", str(project / "spin.yaml"), "--out", str(tmp_path / "run"), "--quiet"],
                          cwd=elsewhere, env={**env, "PYTHONPATH": str(ROOT)}, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    records = cosim.read_run(tmp_path / "run").trace("records").to_pydict()
    assert set(records["name"]) == {"spun"} and len(records["name"]) == 20 * 2  # 20 robots, 2 steps in 1 s


def test_a_controller_module_in_the_working_directory_imports(tmp_path, monkeypatch):
    (tmp_path / "cwd_spinners.py").write_text(USER_CONTROLLER)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "path", list(sys.path))
    cls = import_class("cwd_spinners:Spinner", source="/nowhere/scenario.yaml")
    assert cls.__name__ == "Spinner" and cls.period == 0.5


def test_a_missing_module_says_where_it_looked(tmp_path):
    data = base_scenario()
    data["groups"][0]["controller"]["class"] = "not_a_module_anywhere:Thing"
    with pytest.raises(ScenarioError) as err:
        cosim.from_dict(data, str(tmp_path / "s.yaml"))
    text = str(err.value)
    assert "groups[0].controller.class" in text and "no module named 'not_a_module_anywhere'" in text
    assert str(tmp_path) in text  # the scenario's directory was searched


def test_a_module_that_fails_inside_reports_its_own_error(tmp_path):
    (tmp_path / "broken_ctrl.py").write_text("import module_that_does_not_exist\n")
    data = base_scenario()
    data["groups"][0]["controller"]["class"] = "broken_ctrl:Thing"
    with pytest.raises(ScenarioError, match="No module named 'module_that_does_not_exist'"):
        cosim.from_dict(data, str(tmp_path / "s.yaml"))
