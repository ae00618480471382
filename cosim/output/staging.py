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

from cosim.output.lock import FileLock, Locked

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


RUN_FILES = frozenset({"scenario.yaml", "metadata.json", "status.json", "metrics.json", "summary.txt", "error.txt",
                       "final_state.json", "child_stderr.txt", "console.txt", "sweep_point.json", "recording.rrd"})
"""The files a run (and `cosim view`, and a sweep) writes at the top of its directory."""
RUN_FOLDERS = {"trace": (".parquet",), "pcap": (".pcap",), "report": (".html", ".png")}
"""Its folders, and the kinds of file each holds (`report`: `cosim report`'s default output)."""


def foreign_files(directory: Path) -> list[str]:
    """The paths in a run directory, relative to it, that no run writes: what `--overwrite` would
    delete of someone else's."""
    out = []
    for p in sorted(directory.iterdir()):
        if p.name in RUN_FOLDERS and p.is_dir() and not p.is_symlink():
            out += [f"{p.name}/{q.name}" for q in sorted(p.iterdir())
                    if not (q.is_file() and not q.is_symlink() and q.suffix in RUN_FOLDERS[p.name])]
        elif not (p.name in RUN_FILES and p.is_file() and not p.is_symlink()):
            out.append(p.name + ("/" if p.is_dir() else ""))
    return out


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
    foreign = foreign_files(target)
    if foreign:
        shown = ", ".join(foreign[:5]) + (f" and {len(foreign) - 5} more" if len(foreign) > 5 else "")
        raise RunDirError(f"refusing to replace {target}: it holds files no run writes ({shown}); move them out "
                          "or choose another --out")


class Staging:
    """One run's hidden work directory next to `target`; `publish(status)` renames it into place.
    From start to publication the run holds a lock beside `target` (`.NAME.lock`), so a second run
    into the same directory is refused naming the first, instead of one replacing the other."""

    def __init__(self, target: Path, overwrite: bool = False, scenario_file: str | None = None) -> None:
        self.target = target
        self._lock = FileLock(target.parent / f".{target.name}.lock", f"another run is writing {target}",
                              "; wait for it or choose another --out", remove=True)
        try:
            self._lock.acquire()
        except Locked as exc:
            raise RunDirError(str(exc)) from None
        try:
            check_target(target, overwrite, scenario_file)
            self.work = target.parent / f".{target.name}.partial-{os.getpid()}"
            shutil.rmtree(self.work, ignore_errors=True)
            self.work.mkdir()
        except BaseException:
            self._lock.release()
            raise

    def publish(self, status: str) -> Path:
        """Move the finished run into place and return where it is, then let the next run in. An
        earlier run at the target is replaced only if this one is ok; otherwise this one is kept
        beside it, suffixed with its status and time."""
        try:
            return self._publish(status)
        finally:
            self._lock.release()

    def _publish(self, status: str) -> Path:
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
