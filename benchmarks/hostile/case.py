"""One hostile case, and how its outcome is judged.

A case writes its files into a fresh folder, runs one command there (optionally sending signals
while it runs), and is then judged in this order: a hang (the command outlived its timeout), data
lost (a guarded file changed, or a run directory that should hold a run cannot be read whole), a
traceback, nonsense (a refusal was expected and the command succeeded), an unclear message (the
words a user needs are missing), else handled."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

OUTCOMES = ("handled", "lost", "hang", "traceback", "nonsense", "unclear")

# What a case expects: "refuse" (non-zero exit naming `mention`), "ok" (exit 0, run readable),
# "warn" (exit 0, a warning naming `mention`), "fail" (non-zero exit naming `mention`, the run
# directory kept and readable), "stopped" (ended by a signal, the run kept under its final name),
# "either" (exit 0 with a readable run, or a refusal naming `mention`).
EXPECTS = ("refuse", "ok", "warn", "fail", "stopped", "either")


@dataclass(frozen=True)
class Signal:
    """A signal sent `after_s` seconds into the command, to the command itself, its process group,
    or its child processes."""

    after_s: float
    signum: int
    target: str = "proc"


@dataclass(frozen=True)
class Case:
    """A command run in a fresh folder holding `files`, and what it must do."""

    family: str
    name: str
    argv: tuple[str, ...]
    expect: str
    mention: tuple[str, ...] = ()
    files: dict[str, str | bytes] = field(default_factory=dict)
    prepare: Callable[[Path], None] | None = None
    signals: tuple[Signal, ...] = ()
    run_dir: str | None = None
    guard: tuple[str, ...] = ()
    check: Callable[[Path, Result], str | None] | None = None
    timeout_s: float = 60.0

    def __post_init__(self) -> None:
        if self.expect not in EXPECTS:
            raise ValueError(f"{self.family}/{self.name}: expect must be one of {EXPECTS}")


@dataclass(frozen=True)
class Result:
    """What the command did."""

    returncode: int | None
    output: str
    wall_s: float
    timed_out: bool


@dataclass(frozen=True)
class Verdict:
    outcome: str
    why: str


def digest_files(root: Path, names: tuple[str, ...]) -> dict[str, str]:
    """sha256 of each guarded file (or folder, recursively) under `root`; missing ones as 'missing'."""
    out = {}
    for name in names:
        path = root / name
        paths = sorted(p for p in path.rglob("*") if p.is_file()) if path.is_dir() else [path]
        for p in paths:
            out[str(p.relative_to(root))] = hashlib.sha256(p.read_bytes()).hexdigest() if p.is_file() else "missing"
    return out


def run_problem(directory: Path, died: bool = False) -> str | None:
    """Why the run directory does not hold a whole run, or None: status readable, every trace file
    readable, and the trace on disk the one metrics.json counted (a run whose process `died` has no
    metrics: what it had written must still be readable)."""
    from cosim.output.results import read_run
    from cosim.output.trace_digest import trace_digest

    if not (directory / "status.json").is_file():
        return f"no run at {directory.name} (no status.json)"
    try:
        out = read_run(directory)
    except Exception as exc:
        return f"read_run failed: {type(exc).__name__}: {exc}"
    if out.torn:
        return f"torn files: {sorted(out.torn)}"
    metrics_file = directory / "metrics.json"
    if not metrics_file.is_file():
        return None if died else "no metrics.json"
    counted = json.loads(metrics_file.read_text()).get("trace_sha256")
    if counted is not None and (directory / "trace").is_dir() and trace_digest(directory / "trace") != counted:
        return "the trace on disk is not the one metrics.json counts"
    return None


def _mentions(text: str, words: tuple[str, ...]) -> list[str]:
    low = text.lower()
    return [w for w in words if w.lower() not in low]


def _traceback(text: str) -> bool:
    return "Traceback (most recent call last)" in text or "Fatal Python error" in text


def judge(case: Case, folder: Path, result: Result, before: dict[str, str]) -> Verdict:
    """The outcome of one case (see the module docstring for the order)."""
    if result.timed_out:
        return Verdict("hang", f"still running after {case.timeout_s:g} s")
    after = digest_files(folder, case.guard)
    changed = sorted(k for k in set(before) | set(after) if before.get(k) != after.get(k))
    if changed:
        return Verdict("lost", f"guarded files changed: {changed}")
    ok = result.returncode == 0
    if case.run_dir is not None and (case.expect in ("ok", "warn", "fail", "stopped") or (case.expect == "either" and ok)):
        problem = run_problem(folder / case.run_dir, died="process died" in _status_text(folder, case))
        if problem:
            return Verdict("lost", problem)
    if case.check is not None and (problem := case.check(folder, result)):
        return Verdict("lost" if problem.startswith("lost:") else "unclear", problem)
    if _traceback(result.output):
        return Verdict("traceback", result.output.strip().splitlines()[-1][:300])
    if case.expect in ("refuse", "fail", "stopped") and ok:
        return Verdict("nonsense", "exit 0 where a refusal was expected")
    if case.expect in ("ok", "warn") and not ok:
        return Verdict("unclear", f"exit {result.returncode}: {_last_line(result.output)}")
    if case.expect == "ok" or (case.expect == "either" and ok):
        return Verdict("handled", "ran")
    missing = _mentions(result.output + _status_text(folder, case), case.mention)
    if missing:
        return Verdict("unclear", f"message lacks {missing}: {_last_line(result.output)}")
    return Verdict("handled", _last_line(result.output))


def _status_text(folder: Path, case: Case) -> str:
    if case.run_dir is None or not (folder / case.run_dir / "status.json").is_file():
        return ""
    return (folder / case.run_dir / "status.json").read_text(errors="replace")


def _last_line(text: str) -> str:
    lines = [ln for ln in text.strip().splitlines() if ln.strip()]
    return lines[-1][:300] if lines else "(no output)"
