"""Run directories that appear whole or not at all: a run writes into a hidden sibling of its
directory and is renamed into place when it ends, so a crash, a full disk or a kill never leaves
a half-written directory under the run's name, and an earlier run is replaced only by a finished
one."""

from __future__ import annotations

import logging
import os
import re
import shutil
import time
from pathlib import Path

log = logging.getLogger(__name__)
_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


class RunDirError(ValueError):
    """The run directory asked for cannot be used (it holds something else, or the user's files)."""


def safe_name(name: str) -> str:
    """`name` as one path component: letters, digits, '.', '_' and '-' only, no leading dot
    (a scenario named '../../x' writes 'x' inside the output directory, not two levels up)."""
    parts = [p for p in re.split(r"[/\\]+", name) if p not in ("", ".", "..")]
    cleaned = _UNSAFE.sub("_", "_".join(parts)).lstrip(".") or "run"
    return cleaned[:120]


def _is_run_dir(path: Path) -> bool:
    return (path / "status.json").is_file() and (path / "scenario.yaml").is_file()


def check_target(target: Path, overwrite: bool, scenario_file: str | None = None) -> None:
    """Refuse a target that exists and is not empty, unless `overwrite` and it is a run directory
    that holds neither the working directory nor the scenario file."""
    if not target.exists():
        return
    if not target.is_dir():
        raise RunDirError(f"{target} exists and is not a directory")
    if not any(target.iterdir()):
        return
    if not overwrite:
        raise RunDirError(f"{target} exists and is not empty: choose another --out, or pass --overwrite to replace "
                          "it once the new run has succeeded")
    resolved = target.resolve()
    if resolved == Path.cwd().resolve() or resolved in Path.cwd().resolve().parents:
        raise RunDirError(f"refusing to replace {target}: it is (or holds) the working directory")
    if scenario_file and resolved in Path(scenario_file).resolve().parents:
        raise RunDirError(f"refusing to replace {target}: it holds the scenario file {scenario_file}")
    if not _is_run_dir(target):
        raise RunDirError(f"refusing to replace {target}: --overwrite replaces only a run directory "
                          "(one with status.json and scenario.yaml)")


class Staging:
    """One run's hidden work directory next to `target`; `publish(status)` renames it into place."""

    def __init__(self, target: Path, overwrite: bool = False, scenario_file: str | None = None) -> None:
        check_target(target, overwrite, scenario_file)
        self.target = target
        target.parent.mkdir(parents=True, exist_ok=True)
        self.work = target.parent / f".{target.name}.partial-{os.getpid()}"
        shutil.rmtree(self.work, ignore_errors=True)
        self.work.mkdir()

    def publish(self, status: str) -> Path:
        """Move the finished run into place and return where it is. An earlier run at the target
        is replaced only if this one is ok; otherwise this one is kept beside it, suffixed with
        its status and time."""
        t = self.target
        if t.exists() and not any(t.iterdir()):
            t.rmdir()
        if not t.exists():
            self.work.rename(t)
            return t
        if status == "ok":
            old = t.parent / f".{t.name}.old-{os.getpid()}"
            t.rename(old)
            self.work.rename(t)
            shutil.rmtree(old, ignore_errors=True)
            return t
        kept = t.parent / f"{t.name}.{status}-{time.strftime('%Y%m%d-%H%M%S')}"
        k = 1
        while kept.exists():
            kept = Path(f"{kept}-{k}")
            k += 1
        self.work.rename(kept)
        log.warning("the new run did not succeed (%s): %s is kept, the new run is in %s", status, t, kept)
        return kept
