"""Read a run directory back: status, metrics, resolved scenario and trace tables (from files, not memory)."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml


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

    def trace(self, name: str):
        """The `positions`, `network` or `records` table; KeyError names what the run has."""
        if name not in self.traces:
            have = ", ".join(sorted(self.traces)) or "none"
            raise KeyError(f"{self.directory} has no {name!r} trace (it has: {have})")
        return self.traces[name]


def read_run(directory: str | Path) -> RunOutput:
    """Load everything a run wrote; works for failed and interrupted runs too."""
    import pyarrow.parquet as pq

    d = Path(directory)
    status_file = d / "status.json"
    if not status_file.is_file():
        raise FileNotFoundError(f"{d} is not a run directory (no status.json)")
    status = json.loads(status_file.read_text())
    metrics_file = d / "metrics.json"
    traces = {p.stem: pq.read_table(p) for p in sorted((d / "trace").glob("*.parquet"))}
    return RunOutput(
        directory=d,
        status=status["status"],
        error=status.get("error"),
        metrics=json.loads(metrics_file.read_text()) if metrics_file.is_file() else {},
        scenario=yaml.safe_load((d / "scenario.yaml").read_text()),
        metadata=json.loads((d / "metadata.json").read_text()),
        traces=traces,
    )
