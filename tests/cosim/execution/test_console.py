"""What controllers print and log reaches the terminal during `cosim run` and stays in the run
directory's console.txt, marked with the simulated time and the robot; sweeps keep it per run."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest
import yaml

from cosim.sweep.runner import run_sweep
from cosim.sweep.spec import load_sweep
from tests.conftest import ROOT

TALKER = textwrap.dedent('''
    import logging
    import sys

    from controllers.api.controller import Controller


    class Talker(Controller):
        def setup(self):
            print("hello from setup")

        def step(self):
            if self.robot.id == 1 and self.now < 0.25:
                print("stepping", round(self.now, 3))
                print("a complaint", file=sys.stderr)
                logging.getLogger("talker").info("logged at INFO")
''')


def _scenario(tmp_path, count: int = 2) -> dict:
    (tmp_path / "talker.py").write_text(TALKER)
    return {"name": "talk", "seed": 1, "duration": 0.5, "physics": {"backend": "kinematic", "dt": "10 ms"},
            "network": {"backend": "none"},
            "groups": [{"name": "g", "count": count, "layout": {"type": "list", "points": [[0, 0, 0], [1, 0, 0]][:count]},
                        "robot": {"model": "point", "radius": 0.1},
                        "controller": {"class": "talker:Talker", "period": "100 ms", "phase": 0}}]}


def test_print_stderr_and_logging_reach_the_terminal_and_console_txt(tmp_path):
    path = tmp_path / "talk.yaml"
    path.write_text(yaml.safe_dump(_scenario(tmp_path)))
    proc = subprocess.run([sys.executable, "-m", "cosim.cli", "run", str(path), "--out", str(tmp_path / "out"), "--quiet"],
                          capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert proc.returncode == 0, proc.stderr
    want = ["[t = 0.000 s node 0] hello from setup", "[t = 0.000 s node 1] hello from setup",
            "[t = 0.000 s node 1] stepping 0.0", "[t = 0.000 s node 1 stderr] a complaint",
            "[t = 0.000 s node 1 stderr] INFO talker: logged at INFO", "[t = 0.100 s node 1] stepping 0.1"]
    kept = (tmp_path / "out" / "console.txt").read_text().splitlines()
    assert kept[:6] == want and len(kept) == 11
    shown = [ln for ln in proc.stderr.splitlines() if ln.startswith("[t = ")]
    assert shown == kept
    assert "hello" not in proc.stdout  # stdout keeps the summary
    child_stderr = (tmp_path / "out" / "child_stderr.txt").read_text()
    assert "a complaint" in child_stderr  # stderr is still kept whole there
    assert "Traceback" not in child_stderr and "closed file" not in child_stderr  # console.txt closes cleanly


def test_a_progress_lookalike_printed_by_a_controller_is_output_not_progress(tmp_path):
    scenario = _scenario(tmp_path)
    (tmp_path / "talker.py").write_text(TALKER.replace('print("hello from setup")', 'print("progress 1 2 3")'))
    path = tmp_path / "talk.yaml"
    path.write_text(yaml.safe_dump(scenario))
    proc = subprocess.run([sys.executable, "-m", "cosim.cli", "run", str(path), "--out", str(tmp_path / "out")],
                          capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert proc.returncode == 0 and "[t = 0.000 s node 0] progress 1 2 3" in proc.stderr


def test_each_sweep_run_keeps_its_own_console(tmp_path):
    base = _scenario(tmp_path)
    base["groups"][0]["layout"] = {"type": "grid", "origin": [0, 0, 0], "columns": 2, "spacing": 1.0}
    (tmp_path / "base.yaml").write_text(yaml.safe_dump(base))
    (tmp_path / "sweep.yaml").write_text(yaml.safe_dump({"base": "base.yaml", "campaign_seed": 1, "replications": 1,
                                                         "grid": {"groups.0.count": [1, 2]}}))
    out = tmp_path / "sweep"
    assert run_sweep(load_sweep(tmp_path / "sweep.yaml"), out_dir=out, jobs=1).ok == 2
    consoles = sorted((p / "console.txt").read_text().count("\n") for p in (out / "runs").iterdir())
    assert consoles == [1, 11]  # one robot says hello; two robots say hello and the second talks


SPINNER = textwrap.dedent('''
    import threading
    import time

    from controllers.api.controller import Controller


    class Spinner(Controller):
        def setup(self):
            threading.Thread(target=time.sleep, args=(1e9,), name=f"spin-{self.robot.id}").start()
''')


@pytest.mark.parametrize("where", [[], ["--in-process"]])
def test_threads_user_code_leaves_running_do_not_keep_cosim_run_alive(tmp_path, where):
    (tmp_path / "spinner.py").write_text(SPINNER)
    data = _scenario(tmp_path)
    data["groups"][0]["controller"] = {"class": "spinner:Spinner"}
    path = tmp_path / "spin.yaml"
    path.write_text(yaml.safe_dump(data))
    proc = subprocess.run([sys.executable, "-m", "cosim.cli", "run", str(path), "--out", str(tmp_path / "out"), "--quiet",
                           *where], capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert "user code left 2 thread(s) running (spin-0, spin-1)" in proc.stderr
    assert (tmp_path / "out" / "metrics.json").is_file()
