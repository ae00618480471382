"""The sweep's index: one SQLite row per run, written by the driver alone, rebuildable from the run
directories (each holds `sweep_point.json`, `status.json` and, if it ran, `metrics.json`)."""

from __future__ import annotations

import csv
import json
import logging
import sqlite3
from pathlib import Path
from typing import Any

from cosim.output.digests import file_sha256

log = logging.getLogger(__name__)
_SCHEMA = """CREATE TABLE IF NOT EXISTS runs (
    key TEXT PRIMARY KEY, replication INTEGER, seed INTEGER, params TEXT,
    status TEXT, error TEXT, metrics TEXT)"""


class SweepIndex:
    """runs(key, replication, seed, params JSON, status, error, metrics JSON)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._db = sqlite3.connect(path)
        self._db.execute(_SCHEMA)
        self._db.commit()

    def record(self, key: str, replication: int, seed: int, params: dict, status: str, error: str | None,
               metrics: dict | None) -> None:
        self._db.execute(
            "INSERT OR REPLACE INTO runs VALUES (?, ?, ?, ?, ?, ?, ?)",
            (key, replication, seed, json.dumps(params, sort_keys=True), status, error, json.dumps(metrics or {})),
        )
        self._db.commit()

    def rows(self) -> list[dict[str, Any]]:
        cur = self._db.execute("SELECT key, replication, seed, params, status, error, metrics FROM runs ORDER BY key")
        return [
            {"key": k, "replication": r, "seed": s, "params": json.loads(p), "status": st, "error": e, "metrics": json.loads(m)}
            for k, r, s, p, st, e, m in cur.fetchall()
        ]

    def close(self) -> None:
        self._db.close()


def read_run_state(run_dir: Path) -> dict[str, Any] | None:
    """What a finished run directory says about itself, or None if it is not a sweep run."""
    point_file = run_dir / "sweep_point.json"
    status_file = run_dir / "status.json"
    if not point_file.is_file() or not status_file.is_file():
        return None
    metrics_file = run_dir / "metrics.json"
    try:
        point = json.loads(point_file.read_text())
        status = json.loads(status_file.read_text())
        metrics = json.loads(metrics_file.read_text()) if metrics_file.is_file() else {}
        if not isinstance(point, dict) or not isinstance(status, dict) or not isinstance(metrics, dict):
            raise ValueError("not a JSON object")
    except (OSError, ValueError) as exc:  # a torn or corrupted file: the run is redone, not trusted
        return {"key": run_dir.name, "status": "corrupt", "error": f"unreadable run files in {run_dir}: {exc}",
                "metrics": {}}
    recorded = status.get("metrics_sha256")
    if status.get("status") == "ok" and recorded != _file_sha256(metrics_file):
        return {"key": run_dir.name, "status": "corrupt", "metrics": {},
                "error": f"{metrics_file} is not the one the run wrote (its digest is not the {recorded} in status.json)"}
    return {**point, "status": status.get("status"), "error": status.get("error"), "metrics": metrics}


def _file_sha256(path: Path) -> str | None:
    try:
        return file_sha256(path)
    except OSError:
        return None


def rebuild_index(directory: Path) -> SweepIndex:
    """Recreate index.sqlite from the run directories (the index is derived data)."""
    path = directory / "index.sqlite"
    path.unlink(missing_ok=True)
    index = SweepIndex(path)
    for run_dir in sorted((directory / "runs").iterdir()):
        if run_dir.name.startswith("."):
            continue
        state = read_run_state(run_dir)
        if state is not None and state["status"] != "corrupt":
            index.record(state["key"], state["replication"], state["seed"], state["params"], state["status"],
                         state["error"], state["metrics"])
    return index


def open_index(directory: Path) -> SweepIndex:
    """The sweep's index; rebuilt from the run directories when it is missing or damaged (it is derived)."""
    path = directory / "index.sqlite"
    if path.is_file():
        try:
            index = SweepIndex(path)
            index.rows()
            return index
        except (sqlite3.DatabaseError, ValueError, TypeError) as exc:  # not a database, or rows that are not ours
            log.warning("%s is damaged (%s); rebuilding it from the run directories", path, exc)
    return rebuild_index(directory)


def flatten(metrics: dict[str, Any], prefix: str = "") -> dict[str, Any]:
    """Scalar metrics at any depth as dotted names (routing.delivery_ratio, records.passed.max); lists are left out."""
    out: dict[str, Any] = {}
    for name, value in metrics.items():
        key = f"{prefix}{name}"
        if isinstance(value, (int, float, str, bool)) or value is None:
            out[key] = value
        elif isinstance(value, dict):
            out.update(flatten(value, key + "."))
    return out


def results_table(directory: Path) -> list[dict[str, Any]]:
    """One flat row per run: key, replication, seed, each parameter, status, error, scalar metrics."""
    index = open_index(directory)
    rows = []
    for row in index.rows():
        flat: dict[str, Any] = {"key": row["key"], "replication": row["replication"], "seed": row["seed"]}
        flat.update(row["params"])
        flat["status"] = row["status"]
        flat["error"] = row["error"]
        flat.update(flatten(row["metrics"]))
        rows.append(flat)
    index.close()
    return rows


def export_results(directory: Path, output: Path, fmt: str = "csv") -> int:
    """Write the results table as CSV or Parquet; returns the number of rows."""
    rows = results_table(directory)
    columns: list[str] = []
    for row in rows:
        columns.extend(c for c in row if c not in columns)
    if fmt == "parquet":
        import pyarrow as pa
        import pyarrow.parquet as pq

        pq.write_table(pa.table({c: [row.get(c) for row in rows] for c in columns}), output)
    elif fmt == "csv":
        with open(output, "w", newline="") as f:
            writer = csv.DictWriter(f, fieldnames=columns)
            writer.writeheader()
            writer.writerows(rows)
    else:
        raise ValueError(f"unknown format {fmt!r}; expected csv or parquet")
    return len(rows)
