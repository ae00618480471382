"""A run directory: resolved scenario, metadata, trace (Parquet), metrics, summary, status.

Files: scenario.yaml, metadata.json, trace/{positions,network,records}.parquet, metrics.json,
summary.txt, status.json ('ok' or 'failed' with the error), and error.txt with the traceback on
failure. A failed run keeps whatever trace it had computed.
"""

from __future__ import annotations

import json
import platform
import subprocess
import sys
import time
from dataclasses import dataclass, field
from importlib import metadata as importlib_metadata
from pathlib import Path
from typing import Any

import yaml

from cosim.output.staging import safe_name
from cosim.scenario.schema import dump

PACKAGES = ("swarm-cosim", "numpy", "pybullet", "pyarrow", "PyYAML", "ns3", "networkx", "pyzmq", "pymavlink")


@dataclass
class RunResult:
    """What a finished (or failed) run produced; `metrics` is also in metrics.json."""

    directory: Path
    status: str
    metrics: dict[str, Any] = field(default_factory=dict)
    error: str | None = None
    trace_digest: str | None = None
    lost: bool = False  # the process running it was killed from outside (SIGKILL): worth retrying
    warnings: tuple[str, ...] = ()
    """Optional parts that failed while everything else was kept (a robot's save_state(), say)."""


def versions() -> dict[str, str | None]:
    out: dict[str, str | None] = {"python": platform.python_version()}
    for name in PACKAGES:
        try:
            out[name] = importlib_metadata.version(name)
        except importlib_metadata.PackageNotFoundError:
            out[name] = None
    return out


def git_commit(path: Path) -> str | None:
    try:
        res = subprocess.run(["git", "rev-parse", "HEAD"], cwd=path, capture_output=True, text=True, timeout=5)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return res.stdout.strip() or None if res.returncode == 0 else None


def default_dir(root: str | Path, name: str, seed: int) -> Path:
    stamp = time.strftime("%Y%m%d-%H%M%S")
    base = Path(root) / f"{safe_name(name)}-seed{seed}-{stamp}"
    candidate = base
    k = 1
    while candidate.exists():
        candidate = Path(f"{base}-{k}")
        k += 1
    return candidate


def prepare(directory: Path, scenario, argv: list[str] | None = None) -> None:
    """Write what is known before the run into its (fresh, staged) directory."""
    directory.mkdir(parents=True, exist_ok=True)
    resolved = dump(scenario)
    resolved.pop("source", None)
    for g in resolved.get("groups", []):
        if g["controller"] is None:
            del g["controller"]  # a MAVLink relay's group names none
        else:
            g["controller"]["class"] = g["controller"].pop("cls")
    (directory / "scenario.yaml").write_text(yaml.safe_dump(resolved, sort_keys=False))
    meta = {
        "scenario_file": scenario.source,
        "seed": scenario.seed,
        "versions": versions(),
        "git_commit": git_commit(Path(scenario.source).resolve().parent if scenario.source != "<memory>" else Path.cwd()),
        "command": argv if argv is not None else sys.argv,
        "platform": platform.platform(),
        "started": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
    }
    (directory / "metadata.json").write_text(json.dumps(meta, indent=2))
    (directory / "status.json").write_text(json.dumps({"status": "running"}))


def write_status(directory: Path, status: str, **extra: Any) -> None:
    (directory / "status.json").write_text(json.dumps({"status": status, **extra}, indent=2))
