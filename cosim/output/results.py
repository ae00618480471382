"""Read a run directory back: status, metrics, resolved scenario and trace tables (from files, not memory)."""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from cosim.core.recorder import SCHEMAS
from cosim.output.digests import file_sha256

log = logging.getLogger(__name__)


@dataclass
class RunOutput:
    """A run directory's contents. Trace tables are pyarrow Tables (`.to_pandas()` with pandas installed)."""

    directory: Path
    status: str
    metrics: dict[str, Any]
    scenario: dict[str, Any]
    metadata: dict[str, Any]
    error: str | None = None
    traces: dict[str, Any] = field(default_factory=dict)
    torn: dict[str, str] = field(default_factory=dict)
    """Files that could not be read (a process killed while writing them, a full disk), relative to
    the directory, each with why; everything else was read."""

    def trace(self, name: str):
        """The `positions`, `network` or `records` table; KeyError names what the run has."""
        if name not in self.traces:
            have = ", ".join(sorted(self.traces)) or "none"
            torn = self.torn.get(f"trace/{name}.parquet")
            why = f"; trace/{name}.parquet cannot be read: {torn}" if torn else ""
            raise KeyError(f"{self.directory} has no {name!r} trace (it has: {have}){why}")
        return self.traces[name]


def read_run(directory: str | Path) -> RunOutput:
    """Load everything a run wrote; works for failed and interrupted runs too. A file that cannot be
    read, or that changed since the run wrote it, is named in `torn` (and logged) and the rest is read."""
    d = Path(directory)
    if not (d / "status.json").is_file():
        raise FileNotFoundError(f"{d} is not a run directory (no status.json)")
    files = _Files(d)
    status = files.read("status.json", _json_object, {})
    files.expect(status)
    traces = {}
    for p in sorted((d / "trace").glob("*.parquet")):
        table = files.read(f"trace/{p.name}", _trace_table, None)
        if table is not None:
            traces[p.stem] = table
    files.read("final_state.json", lambda path: None, None)  # read by its own reader; named here when torn
    return RunOutput(
        directory=d,
        status=str(status.get("status", "unknown")),
        error=status.get("error"),
        metrics=files.read("metrics.json", _json_object, {}),
        scenario=files.read("scenario.yaml", _mapping, {}),
        metadata=files.read("metadata.json", _json_object, {}),
        traces=traces,
        torn=files.torn,
    )


class _Files:
    """A run directory's files, each read whole or named in `torn` with why."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self.torn: dict[str, str] = {}
        self.digests: dict[str, str] = {}

    def expect(self, status: dict) -> None:
        """The digests status.json recorded for the files the run wrote (cosim.output.digests)."""
        recorded = status.get("files_sha256")
        self.digests.update(recorded if isinstance(recorded, dict) else {})
        if isinstance(status.get("metrics_sha256"), str):
            self.digests["metrics.json"] = status["metrics_sha256"]

    def read(self, name: str, read: Callable[[Path], Any], default: Any) -> Any:
        path = self.directory / name
        if not path.exists() and not path.is_symlink():
            return default
        try:
            if not path.is_file():
                raise ValueError("not a regular file")
            if name in self.digests and file_sha256(path) != self.digests[name]:
                raise ValueError("changed since the run wrote it (its sha256 is not the one status.json recorded)")
            return read(path)
        except (OSError, ValueError, yaml.YAMLError) as exc:  # pyarrow's ArrowInvalid is a ValueError
            self.torn[name] = f"{type(exc).__name__}: {exc}"
            log.warning("%s: %s cannot be read (%s); reading the rest", self.directory, name, self.torn[name])
            return default


def _json_object(path: Path) -> dict:
    data = json.loads(path.read_text())
    if not isinstance(data, dict):
        raise ValueError(f"expected a JSON object, got {type(data).__name__}")
    return data


def _mapping(path: Path) -> dict:
    data = yaml.safe_load(path.read_text())
    if not isinstance(data, dict):
        raise ValueError(f"expected a mapping, got {type(data).__name__}")
    return data


def _trace_table(path: Path) -> Any:
    import pyarrow.parquet as pq

    table = pq.read_table(path)
    missing = sorted(set(SCHEMAS.get(path.stem, {})) - set(table.column_names))
    if missing:
        raise ValueError(f"not a {path.stem} trace: no column {', '.join(missing)}")
    return table
