"""Ctrl-C reaches the CLI and its child run at once, often more than once: whenever the signals
land (start-up, the loop, the writing, the parent's read-back), the run ends under its final name
with a truthful status and every file readable."""

import json
import os
import signal
import subprocess
import sys
import threading
import time

import pyarrow.parquet as pq
import pytest
import yaml

from controllers.library.instrument import InstrumentBee
from cosim.execution import isolated
from cosim.execution.signals import ENDING, Terminated, interrupts
from tests.conftest import ROOT, base_scenario


def test_the_first_signal_interrupts_and_later_ones_wait():
    with interrupts() as outer:
        with pytest.raises(KeyboardInterrupt):
            with interrupts() as inner:  # nested blocks share one state
                assert inner is outer
                os.kill(os.getpid(), signal.SIGINT)
                time.sleep(1.0)  # the handler runs here
        os.kill(os.getpid(), signal.SIGINT)  # the second press is only noted
        os.kill(os.getpid(), signal.SIGTERM)
        time.sleep(0.05)
    assert outer.caught == [signal.SIGINT, signal.SIGINT, signal.SIGTERM] and not outer.armed
    with pytest.raises(Terminated):
        with interrupts():
            os.kill(os.getpid(), signal.SIGTERM)
            time.sleep(1.0)
    with interrupts() as held:
        held.hold()
        os.kill(os.getpid(), signal.SIGINT)
        time.sleep(0.05)
    assert held.caught == [signal.SIGINT]


class Announcer(InstrumentBee):
    """Says when its loop has run for a while, so that a test knows it is past start-up."""

    def step(self) -> None:
        super().step()
        if self.id == 0 and 0.5 <= self.now < 0.6:
            print("looping", flush=True)


class IgnoresSigterm(Announcer):
    """Tries to take SIGTERM away from cosim in its setup."""

    def setup(self) -> None:
        super().setup()
        signal.signal(signal.SIGTERM, signal.SIG_IGN)


ENTRY = ("-c", "import sys, cosim.entry; sys.exit(cosim.entry.main())")  # what the installed `cosim` script runs


def _as_from_a_terminal() -> None:
    """The run starts with the signals it takes at their defaults, as from a terminal. A shell that
    runs the tests in the background (`make test &`) hands them SIGINT and SIGQUIT ignored, and a
    run rightly leaves an inherited ignore alone (as under nohup): the tests would not test it."""
    for signum in ENDING:
        signal.signal(signum, signal.SIG_DFL)


def _start(tmp_path, duration: float, controller: str = "Announcer", command: tuple[str, ...] = ("-m", "cosim.cli")):
    path, out = tmp_path / "s.yaml", tmp_path / "out"
    data = base_scenario(duration=duration, output={"trace": {"positions_every": 0.1}})
    data["groups"][0]["controller"]["class"] = f"tests.cosim.execution.test_signals:{controller}"
    path.write_text(yaml.safe_dump(data))
    proc = subprocess.Popen([sys.executable, *command, "run", str(path), "--out", str(out)], cwd=ROOT, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True,
                            preexec_fn=_as_from_a_terminal)
    return proc, out


def _progress_reader(proc) -> list[str]:
    """What the CLI writes to stderr, gathered by a thread as it comes."""
    seen: list[str] = []

    def read() -> None:
        for chunk in iter(lambda: os.read(proc.stderr.fileno(), 4096), b""):
            seen.append(chunk.decode(errors="replace"))

    threading.Thread(target=read, daemon=True).start()
    return seen


STARTUP_S = 300.0
"""A cold start compiles every kernel first: minutes on two busy cores, before the loop runs."""


def _wait_for_the_loop(seen: list[str]) -> None:
    """Until the controller says the loop runs (so that a signal lands in it, not in the start-up)."""
    deadline = time.monotonic() + STARTUP_S
    while time.monotonic() < deadline and "looping" not in "".join(seen):
        time.sleep(0.02)
    assert "looping" in "".join(seen), "the run did not start looping within STARTUP_S"


def _ctrl_c(proc, presses: int, gap_s: float, signum: int = signal.SIGINT) -> None:
    """What a terminal does on Ctrl-C: SIGINT to the whole foreground process group, `presses` times
    (SIGTERM to the group: what a scheduler or a container runtime does)."""
    for k in range(presses):
        os.killpg(proc.pid, signum)
        if k + 1 < presses:
            time.sleep(gap_s)


def _assert_whole(out, t_min: float, error: str = "interrupted by the user (Ctrl-C)") -> dict:
    status = json.loads((out / "status.json").read_text())
    assert status["status"] == "interrupted" and status["error"] == error, status
    assert status["t_s"] >= t_min
    metrics = json.loads((out / "metrics.json").read_text())
    json.loads((out / "final_state.json").read_text())
    for name in ("positions", "network"):
        pq.read_table(out / "trace" / f"{name}.parquet")  # whole: footer and all
    assert pq.read_table(out / "trace" / "positions.parquet").num_rows > 0 and metrics["trace_sha256"]
    assert not list(out.parent.glob(".out.partial-*"))
    return status


@pytest.mark.parametrize("signum, presses, gap_s", [(signal.SIGINT, 2, 0.0), (signal.SIGINT, 3, 0.1),
                                                    (signal.SIGTERM, 2, 0.0), (signal.SIGHUP, 1, 0.0)])
def test_signals_to_the_process_group_during_the_loop_keep_every_result(tmp_path, signum, presses, gap_s):
    proc, out = _start(tmp_path, duration=100_000.0)
    seen = _progress_reader(proc)
    _wait_for_the_loop(seen)
    _ctrl_c(proc, presses, gap_s, signum)
    proc.wait(timeout=60)
    time.sleep(0.1)
    err = "".join(seen)
    assert proc.returncode == 130, err
    assert "Traceback" not in err
    _assert_whole(out, 0.5, "interrupted by the user (Ctrl-C)" if signum == signal.SIGINT
                  else f"terminated by {signal.Signals(signum).name}")


@pytest.mark.parametrize("signum, to_group", [(signal.SIGHUP, False), (signal.SIGUSR1, False), (signal.SIGQUIT, True),
                                              (signal.SIGALRM, True)])
def test_any_signal_that_would_kill_the_process_ends_the_run_with_every_result(tmp_path, signum, to_group):
    """To the CLI alone (it passes the same signal on to its child) or to the group; SIGUSR1, SIGQUIT
    and SIGALRM used to kill both processes and leave only the hidden partial directory."""
    proc, out = _start(tmp_path, duration=100_000.0, command=ENTRY)
    seen = _progress_reader(proc)
    _wait_for_the_loop(seen)
    if to_group:
        os.killpg(proc.pid, signum)
    else:
        os.kill(proc.pid, signum)
    proc.wait(timeout=60)
    time.sleep(0.1)
    assert proc.returncode == 130, "".join(seen)
    _assert_whole(out, 0.5, f"terminated by {signal.Signals(signum).name}")


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_signals_during_start_up_record_an_interrupted_run(tmp_path, signum):
    proc, out = _start(tmp_path, duration=100_000.0)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and not list(tmp_path.glob(".out.partial-*/child_stderr.txt")):
        time.sleep(0.01)
    time.sleep(0.2)  # the child has started and is importing
    _ctrl_c(proc, 2, 0.05, signum)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode in (130, -signum), err  # the second signal may find the CLI done and leaving
    assert "interrupted: partial results in" in err
    status = json.loads((out / "status.json").read_text())
    assert status["status"] == "interrupted", status
    assert not list(tmp_path.glob(".out.partial-*"))


def test_a_signal_while_the_parent_reads_the_run_back_waits_for_it(tmp_path, monkeypatch):
    import cosim

    outcome = isolated._outcome

    def pressed_meanwhile(*args):
        os.kill(os.getpid(), signal.SIGINT)  # the child has finished; the user presses Ctrl-C now
        time.sleep(0.05)
        return outcome(*args)

    monkeypatch.setattr(isolated, "_outcome", pressed_meanwhile)
    scenario = cosim.from_dict(base_scenario(duration=0.5), source=str(tmp_path / "s.yaml"))
    result = isolated.run_isolated(scenario, out_dir=tmp_path / "out", argv=["cosim", "run"])
    assert result.status == "ok" and result.directory == tmp_path / "out"
    assert json.loads((tmp_path / "out" / "status.json").read_text())["status"] == "ok"


def test_a_controller_cannot_take_sigterm_away(tmp_path):
    proc, out = _start(tmp_path, duration=100_000.0, controller="IgnoresSigterm")
    seen = _progress_reader(proc)
    _wait_for_the_loop(seen)
    _ctrl_c(proc, 1, 0.0, signal.SIGTERM)
    proc.wait(timeout=60)
    time.sleep(0.1)
    assert proc.returncode == 130, "".join(seen)
    _assert_whole(out, 0.5, "terminated by SIGTERM")
    assert "user code replaced cosim's SIGTERM handler at t = 0.000 s; it is restored" in (out / "child_stderr.txt").read_text()
