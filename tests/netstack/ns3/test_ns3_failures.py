"""ns-3 failures: an abort kills only the child process; a Python error from a delivery fails the run cleanly."""

import json

import yaml

from cosim.cli import main
from tests.netstack.ns3.helpers import ns3_scenario


def test_ns3_abort_is_reported_and_the_run_marked_failed(tmp_path, capsys):
    """At t = 0.25 s a controller asks ns-3 for an attribute that does not exist: NS_FATAL_ERROR,
    which aborts the interpreter it runs in."""
    data = ns3_scenario([[0, 0, 1], [5, 0, 1]], {"class": "tests.controllers.helpers:Ns3Fatal"}, duration=2.0)
    path = tmp_path / "typo.yaml"
    path.write_text(yaml.safe_dump(data))
    out = tmp_path / "run"
    assert main(["run", str(path), "--out", str(out), "--quiet"]) == 1
    status = json.loads((out / "status.json").read_text())
    assert status["status"] == "failed" and 0.2 <= status["t_s"] <= 0.25  # progress is reported every 1% of the run
    assert "the simulation process died (killed by SIG" in status["error"]
    assert "Could not set default value for ns3::NoSuchModel::Attribute" in status["error"]
    assert "NS_FATAL" in (out / "child_stderr.txt").read_text()
    summary = (out / "summary.txt").read_text()
    assert f"({path})" in summary and "status failed" in summary
    assert "the run failed" in capsys.readouterr().err


def test_controller_error_from_a_delivery_fails_the_run_and_leaves_ns3_usable(run_dict):
    """n0 broadcasts at 0.7 s; n2's on_message raises. The next run in this process still works."""
    exploder = {"class": "tests.controllers.helpers:Exploder", "params": {"victim": 2}}
    data = ns3_scenario([[0, 0, 1], [10, 0, 1], [0, 10, 1]], exploder)
    result = run_dict(data)
    assert result.status == "failed"
    assert "ZeroDivisionError: controller bug (node 2, t = 0.70" in result.error
    assert "raise ZeroDivisionError" in (result.directory / "error.txt").read_text()
    ok = ns3_scenario([[0, 0, 1], [10, 0, 1]], {"class": "controllers.library.probes:Beacon", "params": {"count": 2}})
    again = run_dict(ok)
    assert again.status == "ok" and again.metrics["messages_delivered"] == 2
