"""Run a scenario in a child process, so that an ns-3 fatal error or a crash fails only that run.

ns-3 reports fatal errors by aborting the interpreter. The parent keeps the run directory
consistent whatever happens to the child: it relays progress, keeps the child's stderr in
`child_stderr.txt`, and, if the child dies, marks the run failed with the ns-3 message and the
simulated time reached.
"""

from __future__ import annotations

import dataclasses
import json
import logging
import os
import re
import signal
import subprocess
import sys
import threading
from collections.abc import Callable
from pathlib import Path

from cosim.core.plans import PhaseFn, ProgressFn
from cosim.core.timeunits import NS_PER_S
from cosim.execution.console import is_control
from cosim.execution.signals import ENDING, Terminated, interrupts
from cosim.output.rundir import RunResult, default_dir, prepare, write_status
from cosim.output.staging import Staging
from cosim.output.summary import summary_text
from cosim.scenario.specs import Scenario

log = logging.getLogger(__name__)
_NOISE = re.compile(r"^(#\d|Thread |entry=|\s*$| \*\*\* Break|\[runStaticInitializersOnce\]|terminate called)")
_NS3_TIME = re.compile(r"\+(\d+\.\d+)s")


def ns3_message(stderr_text: str, max_lines: int = 4) -> str:
    """The lines of a dying child's stderr that say what went wrong (ns-3 messages, Python errors)."""
    lines = [ln.rstrip() for ln in stderr_text.splitlines() if not _NOISE.match(ln)]
    picked: list[str] = []
    for i, ln in enumerate(lines):
        key = i == 0 or any(tag in ln for tag in ("NS_ASSERT", "NS_FATAL", "msg=", "Error", "error", "Segmentation"))
        if key and ln not in picked and not ln.startswith("  "):
            picked.append(ln)
        if len(picked) >= max_lines:
            break
    return " | ".join(picked) if picked else "(no message on stderr)"


def _die_with_parent() -> None:
    """In the child, before exec: on Linux, be killed if the process that started us dies, so a lost
    sweep worker leaves no orphan run writing into the sweep directory."""
    if sys.platform.startswith("linux"):
        import ctypes

        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG


def run_isolated(
    scenario: Scenario,
    out_dir: str | Path | None = None,
    progress: ProgressFn | None = None,
    argv: list[str] | None = None,
    timeout_s: float | None = None,
    overwrite: bool = False,
    in_place: bool = False,
    phase: PhaseFn | None = None,
    console: Callable[[str], None] | None = None,
) -> RunResult:
    """Like cosim.run() (staged, refusing a non-empty `out_dir` unless `overwrite`), in a fresh
    Python process; the result is read back from the run directory. With `timeout_s`, a child still
    running after that many wall-clock seconds is killed and the run marked failed. `in_place`:
    write straight into `out_dir`, for callers that stage runs themselves (sweeps). `phase` hears
    what the child does before its first step (building, loading ns-3); `console` each line the run
    printed or logged (kept in the run's console.txt either way)."""
    target = Path(out_dir) if out_dir is not None else default_dir(scenario.output.dir, scenario.name, scenario.seed)
    if in_place:
        return _run_child(scenario, target, progress, argv, timeout_s, phase, console)
    with interrupts() as signals:  # shared with _run_child's: a signal after the child ends waits for the rename
        stage = Staging(target, overwrite, scenario.source)
        result = _run_child(scenario, stage.work, progress, argv, timeout_s, phase, console)
        signals.hold()
        return dataclasses.replace(result, directory=stage.publish(result.status))


def _run_child(scenario: Scenario, directory: Path, progress: ProgressFn | None, argv: list[str] | None,
               timeout_s: float | None, phase: PhaseFn | None = None,
               console: Callable[[str], None] | None = None) -> RunResult:
    command = list(argv if argv is not None else sys.argv)
    prepare(directory, scenario, command)
    stderr_path = directory / "child_stderr.txt"
    env = dict(os.environ, CPPYY_CRASH_QUIET="1")
    last = [0, scenario.duration_ns]  # the child's latest progress: simulated now and end (ns)
    with interrupts() as signals, open(stderr_path, "w") as err:
        child = subprocess.Popen(
            [sys.executable, "-m", "cosim.execution.child", str(directory), scenario.source, json.dumps(command)],
            stdout=subprocess.PIPE, stderr=err, text=True, env=env, preexec_fn=_die_with_parent,
        )
        timed_out = threading.Event()

        def expire() -> None:
            timed_out.set()
            child.kill()

        watchdog = threading.Timer(timeout_s, expire) if timeout_s is not None else None
        if watchdog is not None:
            watchdog.daemon = True
            watchdog.start()
        interrupted = False
        try:
            _relay(child, progress, last, phase, console)
            child.wait()
            signals.hold()  # from here on the parent only reads back: signals wait
        except KeyboardInterrupt as exc:  # Ctrl-C or SIGTERM: the child records 'interrupted' and keeps its trace
            interrupted = True
            child.send_signal(exc.signum if isinstance(exc, Terminated) else signal.SIGINT)  # the same; once
            child.wait()
        finally:
            if watchdog is not None:
                watchdog.cancel()
        return _read_back(directory, scenario, child.returncode, stderr_path, last[0],
                          f"timed out after {timeout_s:g} s of wall-clock time" if timed_out.is_set() else None,
                          interrupted)


def _read_back(directory: Path, scenario: Scenario, returncode: int, stderr_path: Path, last_ns: int,
               timed_out: str | None, interrupted: bool = False) -> RunResult:
    """The run as the child recorded it, or as its death says (timed out, crashed, killed); a child
    that died unrecorded while the user interrupted the run was interrupted, whatever its exit code
    (a signal during the interpreter's own start-up ends it with status 1)."""
    if timed_out is not None:
        return _record_death(directory, scenario, returncode, _read_text(stderr_path), last_ns, reason=timed_out)
    try:
        recorded = json.loads((directory / "status.json").read_text())
    except (OSError, ValueError) as exc:  # the child died before writing it, or a full disk cut it short
        recorded = {"status": None, "unreadable": str(exc)}
    if recorded.get("status") in ("ok", "failed", "interrupted"):
        return _outcome(directory, recorded)
    return _record_death(directory, scenario, returncode, _read_text(stderr_path), last_ns, interrupted=interrupted)


def _outcome(directory: Path, recorded: dict) -> RunResult:
    """What the child recorded (status and metrics; the traces stay on disk, unread). Metrics that
    cannot be read back (a full disk) fail the run, saying so, instead of the parent."""
    status = recorded["status"]
    error = recorded.get("error")
    metrics_file = directory / "metrics.json"
    try:
        metrics = json.loads(metrics_file.read_text()) if metrics_file.is_file() else {}
    except (OSError, ValueError) as exc:
        metrics = {}
        if status == "ok":
            status = "failed"
            error = f"the run finished but its metrics.json cannot be read back ({exc}); is the disk full?"
            _write_quietly(lambda: write_status(directory, status, error=error))
    return RunResult(directory, status, metrics, error, metrics.get("trace_sha256"),
                     warnings=tuple(recorded.get("warnings", ())))


def _read_text(path: Path) -> str:
    try:
        return path.read_text(errors="replace")
    except OSError as exc:
        return f"(cannot read {path.name}: {exc})"


def _write_quietly(write: Callable[[], object]) -> None:
    """A record written if the disk allows; the run's outcome is returned either way."""
    try:
        write()
    except OSError as exc:
        log.warning("could not write the run's record (%s)", exc)


def _relay(child: subprocess.Popen, progress: ProgressFn | None, last: list[int], phase: PhaseFn | None,
           console: Callable[[str], None] | None = None) -> None:
    """Pass the child's start-up phases, progress and console lines on until it closes its stdout,
    keeping the latest progress in `last`."""
    for line in child.stdout:
        if not is_control(line):
            if console is not None:
                console(line.rstrip("\n"))
            continue
        line = line[1:]
        if line.startswith("phase ") and phase is not None:
            phase(line[6:].rstrip("\n"))
        parts = line.split()
        if len(parts) == 4 and parts[0] == "progress":
            last[:] = int(parts[1]), int(parts[2])
            if progress is not None:
                progress(last[0], last[1], float(parts[3]))


def _describe_exit(returncode: int) -> str:
    """'killed by SIGABRT' for a signal (negative code, or 128 + n from a shell), else the exit status."""
    sig = -returncode if returncode < 0 else returncode - 128 if returncode > 128 else 0
    try:
        return f"killed by {signal.Signals(sig).name}" if sig else f"exit status {returncode}"
    except ValueError:
        return f"exit status {returncode}"


def _record_death(directory: Path, scenario: Scenario, returncode: int, stderr_text: str, last_ns: int,
                  reason: str | None = None, interrupted: bool = False) -> RunResult:
    how = reason or _describe_exit(returncode)
    times = [float(m) for m in _NS3_TIME.findall(stderr_text)]
    t_s = times[-1] if times else last_ns / NS_PER_S
    by_signal = -returncode in ENDING or returncode - 128 in ENDING
    if reason is None and (interrupted or by_signal):
        return _record_interrupted(directory, scenario, how, t_s)
    message = ns3_message(stderr_text)
    error = f"the simulation process died ({how}) at t = {t_s:.9f} s: {message}"
    _write_quietly(lambda: (directory / "error.txt").write_text(stderr_text[-20000:]))
    _write_quietly(lambda: (directory / "summary.txt").write_text(
        summary_text(scenario, {}, "failed", error) + "(full stderr of the child process in child_stderr.txt)\n"))
    _write_quietly(lambda: write_status(directory, "failed", error=error, t_s=t_s))
    return RunResult(directory, "failed", {}, error, None, lost=reason is None and returncode == -signal.SIGKILL)


def _record_interrupted(directory: Path, scenario: Scenario, how: str, t_s: float) -> RunResult:
    """A child stopped by Ctrl-C or SIGTERM before it could record that itself (during start-up, say):
    interrupted, not failed, so that a sweep runs it again."""
    error = f"interrupted ({how}) at t = {t_s:.9f} s, before the run could record it"
    _write_quietly(lambda: (directory / "summary.txt").write_text(summary_text(scenario, {}, "interrupted", error)))
    _write_quietly(lambda: write_status(directory, "interrupted", error=error, t_s=t_s))
    return RunResult(directory, "interrupted", {}, error, None)
