"""`cosim run` / `cosim validate` from the command line (in process, through cosim.cli.main)."""

import json

import yaml

from cosim.cli import main
from tests.conftest import ROOT, base_scenario


def test_validate_accepts_the_demo(capsys):
    assert main(["validate", str(ROOT / "configs" / "demo.yaml")]) == 0
    assert "ok (200 robots, 30 s simulated)" in capsys.readouterr().out


def test_validate_rejects_bad_input_without_a_traceback(tmp_path, capsys):
    path = tmp_path / "bad.yaml"
    data = base_scenario()
    data["groups"][0]["count"] = -3
    path.write_text(yaml.safe_dump(data))
    assert main(["validate", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"error: {path}: groups[0]: count must be >= 1")
    assert "Traceback" not in err


def test_run_options_override_the_file(tmp_path, capsys):
    path = tmp_path / "s.yaml"
    path.write_text(yaml.safe_dump(base_scenario()))
    out = tmp_path / "out"
    code = main(["run", str(path), "--seed", "5", "--duration", "1.5", "--out", str(out), "--quiet",
                 "--set", "groups.0.count=12", "--set", "network.radio.fast.loss_probability=0.1"])
    assert code == 0
    resolved = yaml.safe_load((out / "scenario.yaml").read_text())
    assert resolved["seed"] == 5 and resolved["duration"] == 1.5
    assert resolved["groups"][0]["count"] == 12 and resolved["network"]["radio"]["fast"]["loss_probability"] == 0.1
    metrics = json.loads((out / "metrics.json").read_text())
    assert metrics["nodes"] == 12 and metrics["simulated_s"] == 1.5
    assert "run directory" in capsys.readouterr().out


def test_bad_set_option_is_an_error(tmp_path, capsys):
    path = tmp_path / "s.yaml"
    path.write_text(yaml.safe_dump(base_scenario()))
    assert main(["run", str(path), "--set", "groups.0.count"]) == 2
    assert "--set expects dotted.key=value" in capsys.readouterr().err


def test_progress_line_reports_time_rate_and_eta():
    import io

    from cosim.core.progress import ProgressLine

    out = io.StringIO()
    line = ProgressLine(out, interval_s=0.0)
    line.run(0, 10_000_000_000, 0.0)
    line.run(5_000_000_000, 10_000_000_000, 2.0)
    first, second = out.getvalue().splitlines()
    assert "0.00/10.00 s sim" in first and "estimating" in first
    assert "5.00/10.00 s sim" in second and "2.50x real time" in second and "~    2 s left" in second


def test_validate_builds_the_scenario_and_catches_starts_outside_the_arena(tmp_path, capsys):
    path = tmp_path / "outside.yaml"
    data = base_scenario()
    data["world"] = {"arena_lower": [-10, -10, 0], "arena_upper": [10, 10, 5]}  # the layout has radius 20
    path.write_text(yaml.safe_dump(data))
    assert main(["validate", str(path)]) == 2
    err = capsys.readouterr().err
    assert f"error: {path}: groups[0].layout:" in err and "start positions lie outside the arena" in err


def test_start_up_is_shown_before_the_first_step(tmp_path):
    import subprocess
    import sys

    from cosim.core.progress import startup_phases

    path = tmp_path / "s.yaml"
    path.write_text(yaml.safe_dump(base_scenario()))
    proc = subprocess.run([sys.executable, "-m", "cosim.cli", "run", str(path), "--out", str(tmp_path / "out")],
                          cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    first = proc.stderr.splitlines()[0]
    assert first == "starting: building the scenario (20 robots)"
    assert startup_phases(20, "ns3")[-1].startswith("starting: loading ns-3 (about 6 s")


def test_validate_names_a_controller_whose_constructor_raises(tmp_path, capsys, monkeypatch):
    (tmp_path / "boom.py").write_text("from controllers.api.controller import Controller\n\n\n"
                                      "class Boom(Controller):\n    def __init__(self, params=None):\n"
                                      "        raise RuntimeError('boom in init')\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    data = base_scenario()
    data["groups"][0]["controller"] = {"class": "boom:Boom"}
    path = tmp_path / "s.yaml"
    path.write_text(yaml.safe_dump(data))
    assert main(["validate", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and "raised RuntimeError: boom in init" in err and "boom.py:6" in err
    assert "Traceback" not in err


def test_an_initial_state_that_is_not_a_file_is_refused_without_reading_it(tmp_path, capsys):
    data = base_scenario(initial_state="/dev/zero")
    path = tmp_path / "s.yaml"
    path.write_text(yaml.safe_dump(data))
    assert main(["validate", str(path)]) == 2
    assert "/dev/zero is a character device, not a regular file" in capsys.readouterr().err


def test_serve_vehicle_refuses_nonsense_arguments_with_a_message(capsys):
    import pytest

    for args, message in ((["--origin", "nan", "nan", "nan"], "--origin must be a latitude within -90..90"),
                          (["--origin", "47", "190", "0"], "--origin must be a latitude within -90..90, a longitude"),
                          (["--at", "inf", "0"], "--at must be finite numbers"),
                          (["--duration", "-5"], "--duration must be a positive number of seconds, got -5.0"),
                          (["--sysid", "0"], "--sysid: a MAVLink system id is within 1..255, got 0"),
                          (["--gcs-timeout", "-1"], "--gcs-timeout must be a positive number of seconds, got -1.0"),
                          (["--cold-start", "nan"], "the cold start (--cold-start, position_after_s) is >= 0 s, got nan"),
                          (["--out", "127.0.0.1:99999"], "--out expects HOST:PORT with a port within 1..65535")):
        assert main(["serve-vehicle", "--duration", "1", *args]) == 2, args
        err = capsys.readouterr().err
        assert f"error: {message}" in err and "Traceback" not in err
    for argv in (["serve-vehicle", "--port", "x"], ["serve-vehicle", "--port", "70000"],
                 ["run", "s.yaml", "--view-port", "70000"], ["run", "s.yaml", "--stream", ""]):
        with pytest.raises(SystemExit):  # argparse's own message, naming the option
            main(argv)
        err = capsys.readouterr().err
        assert argv[2] in err and ("within 0..65535" in err or "expected a ZeroMQ URL" in err), err
