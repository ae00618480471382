"""Read a run directory back: status, metrics, resolved scenario and trace tables (from files, not memory)."""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

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
    read is named in `torn` (and logged) and the rest is read."""
    import pyarrow.parquet as pq

    d = Path(directory)
    status_file = d / "status.json"
    if not status_file.is_file():
        raise FileNotFoundError(f"{d} is not a run directory (no status.json)")
    torn: dict[str, str] = {}

    def readable(name: str, read: Callable[[Path], Any], default: Any) -> Any:
        path = d / name
        if not path.is_file():
            return default
        try:
            return read(path)
        except (OSError, ValueError, yaml.YAMLError) as exc:  # pyarrow's ArrowInvalid is a ValueError
            torn[name] = f"{type(exc).__name__}: {exc}"
            log.warning("%s: %s cannot be read (%s); reading the rest", d, name, torn[name])
            return default

    def json_file(path: Path) -> dict:
        data = json.loads(path.read_text())
        if not isinstance(data, dict):
            raise ValueError(f"expected a JSON object, got {type(data).__name__}")
        return data

    status = readable("status.json", json_file, {})
    traces = {}
    for p in sorted((d / "trace").glob("*.parquet")):
        table = readable(f"trace/{p.name}", pq.read_table, None)
        if table is not None:
            traces[p.stem] = table
    return RunOutput(
        directory=d,
        status=str(status.get("status", "unknown")),
        error=status.get("error"),
        metrics=readable("metrics.json", json_file, {}),
        scenario=readable("scenario.yaml", lambda path: yaml.safe_load(path.read_text()) or {}, {}),
        metadata=readable("metadata.json", json_file, {}),
        traces=traces,
        torn=torn,
    )
