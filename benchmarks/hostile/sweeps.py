"""Sweeps: bad sweep files, bad options, runs that crash or are edited afterwards, damaged sweep
directories. Each bad file is refused before a run starts; a crashing run is recorded, not fatal."""

from __future__ import annotations

import json
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import yaml

from benchmarks.hostile.base import scenario_text
from benchmarks.hostile.case import Case, Result

FAMILY = "sweeps"
SWEEP = ("cosim", "sweep", "w.yaml", "--jobs", "2", "--quiet")
CRASHY = ("from controllers.library.instrument import InstrumentBee\n\n"
          "class Crashy(InstrumentBee):\n"
          "    def step(self):\n"
          "        if self.params.max_speed > 2.5 and self.now > 0.1:\n"
          "            raise RuntimeError('crash at high speed')\n"
          "        super().step()\n")


def _sweep(**changes: object) -> str:
    data = {"base": "s.yaml", "campaign_seed": 7, "replications": 1,
            "grid": {"groups.0.count": [4, 6]}, "set": {"duration": 0.3}, "output": {"dir": "sw"}}
    for key, value in changes.items():
        if value is None:
            data.pop(key, None)
        else:
            data[key] = value
    return yaml.safe_dump(data, sort_keys=False)


def _files(**changes: object) -> dict[str, str]:
    return {"s.yaml": scenario_text(), "w.yaml": _sweep(**changes)}


BAD_FILES = {
    "axis-unknown-key": ({"grid": {"groups.0.bogus": [1, 2]}}, ("bogus",)),
    "axis-empty-list": ({"grid": {"groups.0.count": []}}, ("groups.0.count",)),
    "axis-word": ({"grid": {"groups.0.count": "many"}}, ("groups.0.count",)),
    "axis-bad-values": ({"grid": {"groups.0.count": [-1, 4]}}, ("count",)),
    "axis-nan": ({"grid": {"groups.0.robot.max_speed": [float("nan"), 1.0]}}, ("max_speed",)),
    "two-spellings": ({"grid": {"groups.0.count": [4, 6], "groups.00.count": [5, 7]}}, ("groups.00.count",)),
    "swept-and-set": ({"set": {"duration": 0.3, "groups.0.count": 5}}, ("groups.0.count",)),
    "equal-points": ({"grid": {"groups.0.count": [4, 4]}}, ("groups.0.count",)),
    "seed-with-replications": ({"grid": {"seed": [1, 2]}, "replications": 2}, ("seed",)),
    "replications-zero": ({"replications": 0}, ("replications",)),
    "replications-negative": ({"replications": -3}, ("replications",)),
    "replications-word": ({"replications": "many"}, ("replications",)),
    "replications-huge": ({"replications": 10**9}, ("replications",)),
    "campaign-seed-word": ({"campaign_seed": "abc"}, ("campaign_seed",)),
    "timeout-negative": ({"timeout": -1}, ("timeout",)),
    "timeout-word": ({"timeout": "soon"}, ("timeout",)),
    "exclude-unknown-key": ({"exclude": [{"groups.0.bogus": 1}]}, ("bogus",)),
    "exclude-not-a-list": ({"exclude": 5}, ("exclude",)),
    "set-unknown-key": ({"set": {"bogus_top": 1}}, ("bogus_top",)),
    "set-bad-value": ({"set": {"duration": -1}}, ("duration",)),
    "unknown-top-key": ({"gird": {"groups.0.count": [1]}}, ("gird",)),
    "base-missing": ({"base": "nope.yaml"}, ("nope.yaml",)),
    "base-is-folder": ({"base": "."}, ("base",)),
    "base-is-self": ({"base": "w.yaml"}, ("w.yaml",)),
    "base-none": ({"base": None}, ("base",)),
    "grid-not-mapping": ({"grid": [1, 2]}, ("grid",)),
    "too-many-runs": ({"grid": {f"groups.0.controller.params.{k}": list(range(10)) for k in
                                ("max_speed", "velocity_sigma", "heading_sigma", "sensor_period", "radio_period",
                                 "message_bytes")}}, ("runs",)),
    "output-dir-number": ({"output": {"dir": 5}}, ("dir",)),
}

BAD_OPTIONS = {
    "jobs-zero": (("--jobs", "0"), ("--jobs",)),
    "jobs-negative": (("--jobs", "-2"), ("--jobs",)),
    "jobs-word": (("--jobs", "many"), ("--jobs",)),
    "dask-garbage": (("--dask", "not an address"), ("not an address",)),
    "dask-bad-port": (("--dask", "tcp://127.0.0.1:99999"), ("99999",)),
    "dask-local-zero": (("--dask", "local:0"), ("local",)),
}


def cases() -> list[Case]:
    out = []
    for name, (changes, words) in BAD_FILES.items():
        out.append(Case(FAMILY, name, SWEEP, "refuse", mention=words, files=_files(**changes), timeout_s=120))
    for name, (args, words) in BAD_OPTIONS.items():
        argv = ("cosim", "sweep", "w.yaml", "--quiet", *args)
        out.append(Case(FAMILY, f"option-{name}", argv, "refuse", mention=words, files=_files(), timeout_s=120))
    out += _behaviour_cases()
    return out


def _behaviour_cases() -> list[Case]:
    crashy = {"s.yaml": scenario_text({"groups.0.controller.class": "ctl:Crashy"}), "ctl.py": CRASHY,
              "w.yaml": _sweep(grid={"groups.0.controller.params.max_speed": [2.0, 3.0]})}
    return [
        Case(FAMILY, "one-run-crashes", SWEEP, "either", mention=("1 failed",), files=crashy, check=_crash_recorded,
             timeout_s=180),
        Case(FAMILY, "ok-then-results", SWEEP, "ok", files=_files(), check=_results_whole, timeout_s=180),
        Case(FAMILY, "resume-after-edited-metrics", SWEEP, "ok", files=_files(), prepare=_edited_metrics,
             check=_rerun_edited, timeout_s=240),
        Case(FAMILY, "garbage-index", SWEEP, "ok", files=_files(), prepare=_garbage_index, check=_results_whole,
             timeout_s=240),
        Case(FAMILY, "results-garbage-index", ("cosim", "sweep", "results", "sw"), "ok", files=_files(),
             prepare=_garbage_index),
        Case(FAMILY, "results-not-a-sweep", ("cosim", "sweep", "results", "nothing"), "refuse", mention=("nothing",)),
        Case(FAMILY, "results-run-dir-deleted", ("cosim", "sweep", "results", "sw", "--rebuild"), "ok", files=_files(),
             prepare=_run_deleted),
        Case(FAMILY, "changed-base-refused", SWEEP, "refuse", mention=("base",), files=_files(), prepare=_changed_base),
    ]


def _run_sweep(folder: Path) -> None:
    subprocess.run([str(Path(sys.executable).parent / "cosim"), *SWEEP[1:]], cwd=folder, check=True,
                   capture_output=True, timeout=240)


def _edited_metrics(folder: Path) -> None:
    _run_sweep(folder)
    metrics = sorted((folder / "sw" / "runs").glob("*/metrics.json"))[0]
    data = json.loads(metrics.read_text())
    data["messages_delivered"] = 10**9
    metrics.write_text(json.dumps(data))


def _rerun_edited(folder: Path, result: Result) -> str | None:
    for metrics in (folder / "sw" / "runs").glob("*/metrics.json"):
        if json.loads(metrics.read_text()).get("messages_delivered") == 10**9:
            return "lost: an edited metrics.json was kept as a result"
    return _results_whole(folder, result)


def _garbage_index(folder: Path) -> None:
    _run_sweep(folder)
    (folder / "sw" / "index.sqlite").write_bytes(b"garbage" * 100)


def _run_deleted(folder: Path) -> None:
    _run_sweep(folder)
    shutil.rmtree(sorted((folder / "sw" / "runs").iterdir())[0])


def _changed_base(folder: Path) -> None:
    _run_sweep(folder)
    (folder / "s.yaml").write_text(scenario_text({"seed": 99}))


def _results_whole(folder: Path, result: Result) -> str | None:
    """Both points are in the index as done."""
    index = folder / "sw" / "index.sqlite"
    if not index.is_file():
        return "lost: no index"
    with sqlite3.connect(index) as db:
        rows = db.execute("SELECT status FROM runs").fetchall()
    if sorted(r[0] for r in rows) != ["ok", "ok"]:
        return f"lost: index rows {rows}"
    return None


def _crash_recorded(folder: Path, result: Result) -> str | None:
    index = folder / "sw" / "index.sqlite"
    if not index.is_file():
        return "lost: no index"
    with sqlite3.connect(index) as db:
        rows = sorted(r[0] for r in db.execute("SELECT status FROM runs").fetchall())
    return None if rows == ["failed", "ok"] else f"lost: index rows {rows} (want one ok, one failed)"
