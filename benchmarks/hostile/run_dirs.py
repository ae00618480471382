"""Damaged run directories: each file of a finished run deleted, cut short, emptied, overwritten
with garbage, replaced by a folder or by data of the wrong shape, then read back with `read_run`,
`cosim report`, `cosim compare` and `cosim view --write-only`. Each must read what it can, name
what it cannot, and change nothing it did not write."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from benchmarks.hostile.base import scenario_text
from benchmarks.hostile.case import Case, Result

FAMILY = "run_dirs"
FILES = ("status.json", "metrics.json", "scenario.yaml", "metadata.json", "summary.txt", "final_state.json",
         "trace/positions.parquet", "trace/network.parquet")
READ = ("import sys, cosim\n"
        "try:\n"
        "    out = cosim.read_run('run')\n"
        "except (OSError, ValueError) as exc:\n"
        "    print(f'error: {exc}'); sys.exit(1)\n"
        "print('status', out.status, 'torn', sorted(out.torn), 'tables', sorted(out.traces))\n"
        "for name in out.torn:\n"
        "    print('torn:', name)\n")
TOOLS = {
    "read_run": ("python", "-c", READ),
    "report": ("cosim", "report", "run"),
    "compare": ("cosim", "compare", "run", "good"),
    "view": ("cosim", "view", "run", "--write-only"),
}
_template: list[Path] = []


def _good_run() -> Path:
    """One finished run, made once per audit and copied into every case."""
    if not _template:
        root = Path(tempfile.mkdtemp(prefix="hostile-template-"))
        (root / "s.yaml").write_text(scenario_text())
        subprocess.run([str(Path(sys.executable).parent / "cosim"), "run", "s.yaml", "--out", "run", "--quiet"], cwd=root,
                       check=True, capture_output=True)
        _template.append(root / "run")
    return _template[0]


def _damage(name: str, how: str):
    def prepare(folder: Path) -> None:
        good = _good_run()
        shutil.copytree(good, folder / "run")
        shutil.copytree(good, folder / "good")
        path = folder / "run" / name
        data = path.read_bytes()
        if how == "deleted":
            path.unlink()
        elif how == "cut":
            path.write_bytes(data[: len(data) // 2])
        elif how == "empty":
            path.write_bytes(b"")
        elif how == "garbage":
            path.write_bytes(os.urandom(len(data) or 64))
        elif how == "folder":
            path.unlink()
            path.mkdir()
        elif how == "wrong-shape":
            path.write_bytes(_wrong_shape(path, folder))
    return prepare


def _wrong_shape(path: Path, folder: Path) -> bytes:
    if path.suffix == ".json":
        return b"[1, 2, 3]"
    if path.suffix == ".yaml":
        return b"- just\n- a list\n"
    if path.suffix == ".parquet":
        import pyarrow as pa
        import pyarrow.parquet as pq

        other = folder / "other.parquet"
        pq.write_table(pa.table({"colour": ["red", "blue"]}), other)
        return other.read_bytes()
    return b"\x00\x01"


def _names_the_file(name: str):
    """A tool that reads a torn file and exits 0 must say which file it could not read."""
    def check(folder: Path, result: Result) -> str | None:
        if result.returncode != 0:
            return None
        shown = result.output + "".join(p.read_text(errors="replace") for p in folder.rglob("*.html"))
        base = name.split("/")[-1]
        if base not in shown:
            return f"exit 0 and {base} is named nowhere in the output or the pages"
        return None
    return check


def cases() -> list[Case]:
    out = []
    for name in FILES:
        for how in ("deleted", "cut", "empty", "garbage", "folder", "wrong-shape"):
            kept = tuple(f"run/{f}" for f in FILES if f != name)
            torn = how != "deleted" and not name.endswith(".txt")
            for tool, argv in TOOLS.items():
                out.append(Case(FAMILY, f"{tool}-{name}-{how}", argv, "either", mention=(name.split("/")[-1],),
                                prepare=_damage(name, how), guard=kept, check=_names_the_file(name) if torn else None,
                                timeout_s=120))
    out += _whole_dir_cases()
    return out


def _whole_dir_cases() -> list[Case]:
    def running(folder: Path) -> None:
        shutil.copytree(_good_run(), folder / "run")
        (folder / "run" / "status.json").write_text(json.dumps({"status": "running"}))

    def bare(folder: Path) -> None:
        (folder / "run").mkdir()

    def trace_is_file(folder: Path) -> None:
        shutil.copytree(_good_run(), folder / "run")
        shutil.rmtree(folder / "run" / "trace")
        (folder / "run" / "trace").write_text("not a folder")

    out = []
    for label, prepare, words in (("running", running, ("running",)), ("bare", bare, ("status.json",)),
                                  ("trace-is-file", trace_is_file, ("trace",))):
        for tool, argv in TOOLS.items():
            if tool == "compare":
                continue
            out.append(Case(FAMILY, f"{tool}-whole-{label}", argv, "either", mention=words, prepare=prepare, timeout_s=120))
    out.append(Case(FAMILY, "report-not-a-dir", ("cosim", "report", "nothing-here"), "refuse", mention=("nothing-here",)))
    out.append(Case(FAMILY, "view-a-file", ("cosim", "view", "s.yaml", "--write-only"), "refuse", mention=("s.yaml",),
                    files={"s.yaml": scenario_text()}))
    return out
