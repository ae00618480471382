"""Run a sweep locally: each run in its own child process (with a timeout), written atomically,
recorded in the index by this driver alone, and resumable.

A run is written into `runs/.tmp-<key>-<n>` and renamed to `runs/<key>` only once it has finished
(ok or failed), so a directory under its key is always complete. Re-running the same sweep skips
finished runs, reruns interrupted or missing ones, and retries failed ones only when asked.
"""

from __future__ import annotations

import json
import logging
import os
import shutil
import sys
import time
from collections.abc import Callable
from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from hashlib import sha256
from pathlib import Path

from cosim.errors import ScenarioError
from cosim.execution.isolated import run_isolated
from cosim.output.lock import FileLock
from cosim.output.rundir import git_commit, versions
from cosim.output.trace_digest import trace_digest
from cosim.sweep.index import open_index, read_run_state
from cosim.sweep.spec import RunPoint, SweepSpec

log = logging.getLogger(__name__)
LOST_WORKER_RETRIES = 2
SweepProgress = Callable[[int, int, int, int, float], None]  # done, failed, remaining, total, wall seconds


@dataclass
class SweepOutcome:
    directory: Path
    total: int
    ran: int = 0
    ok: int = 0
    failed: int = 0
    skipped: int = 0
    failures: dict[str, str] = field(default_factory=dict)


def sweep_directory(spec: SweepSpec, out_dir: str | Path | None) -> Path:
    if out_dir is not None:
        return Path(out_dir)
    return spec.output_dir or Path("sweeps") / spec.source.stem


def _prepare(spec: SweepSpec, directory: Path) -> None:
    """Freeze the sweep file and write the manifest; refuse to mix runs of a changed base scenario."""
    (directory / "runs").mkdir(parents=True, exist_ok=True)
    base_hash = sha256(spec.base.read_bytes()).hexdigest()
    manifest_path = directory / "manifest.json"
    if manifest_path.is_file():
        try:
            old = json.loads(manifest_path.read_text())
        except ValueError as exc:
            raise ScenarioError(str(spec.source), "output", f"{manifest_path} is corrupt ({exc}); restore it or use a "
                                "new output directory") from None
        if not isinstance(old, dict) or old.get("base_sha256") != base_hash:
            raise ScenarioError(str(spec.source), "base", f"{spec.base} changed since this sweep started in {directory}; "
                                "use a new output directory (runs of the old and new scenario must not mix)")
    else:
        shutil.copyfile(spec.source, directory / "sweep.yaml")
        shutil.copyfile(spec.base, directory / "base_scenario.yaml")
        manifest = {"sweep_file": str(spec.source), "base": str(spec.base), "base_sha256": base_hash,
                    "versions": versions(), "git_commit": git_commit(spec.source.parent),
                    "created": time.strftime("%Y-%m-%dT%H:%M:%S%z"), "command": sys.argv}
        manifest_path.write_text(json.dumps(manifest, indent=2))
    for stale in (directory / "runs").glob(".tmp-*"):
        shutil.rmtree(stale, ignore_errors=True)  # left by an interrupted driver: rerun


def _todo(spec: SweepSpec, directory: Path, retry_failed: bool) -> tuple[list[RunPoint], list[RunPoint]]:
    """(runs to execute, finished runs to keep). A finished run whose files are corrupt, or whose
    trace no longer matches the digest it recorded, goes back to the queue with a warning."""
    todo = []
    keep = []
    for point in spec.points():
        run_dir = directory / "runs" / point.key
        state = read_run_state(run_dir)
        if state is not None and state["status"] == "ok":
            state = _verified(run_dir, state)
        if state is not None and state["status"] == "corrupt":
            log.warning("run %s is rerun: %s", point.key, state["error"])
        if state is None or state["status"] not in ("ok", "failed") or (state["status"] == "failed" and retry_failed):
            todo.append(point)
        else:
            keep.append(point)
    return todo, keep


def _verified(run_dir: Path, state: dict) -> dict:
    """`state`, or a corrupt one if the trace on disk does not give the digest the run recorded."""
    recorded = state["metrics"].get("trace_sha256")
    try:
        found = trace_digest(run_dir / "trace")
    except Exception as exc:  # pyarrow raises its own errors for a damaged Parquet file
        return {**state, "status": "corrupt", "error": f"its trace cannot be read ({type(exc).__name__}: {exc})"}
    if found != recorded:
        return {**state, "status": "corrupt", "error": f"its trace does not match its recorded digest {recorded}"}
    return state


def _execute(spec: SweepSpec, directory: Path, point: RunPoint, attempt: int) -> dict:
    """Run one point in a child process; returns its state after the atomic rename."""
    runs = directory / "runs"
    tmp = runs / f".tmp-{point.key}-{os.getpid()}-{attempt}"
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    (tmp / "sweep_point.json").write_text(json.dumps(
        {"key": point.key, "replication": point.replication, "seed": point.seed, "params": point.params}, default=str))
    scenario = spec.scenario(point)
    for attempt in range(1 + LOST_WORKER_RETRIES):
        result = run_isolated(scenario, out_dir=tmp, argv=["cosim", "sweep", str(spec.source), "--run", point.key],
                              timeout_s=spec.timeout_s, in_place=True)
        if not result.lost:
            break
        if attempt == LOST_WORKER_RETRIES:
            log.warning("run %s: its process was killed from outside again; recorded as failed after %d retries",
                        point.key, LOST_WORKER_RETRIES)
            break
        log.warning("run %s: its process was killed from outside; retrying (retry %d of %d)", point.key, attempt + 1,
                    LOST_WORKER_RETRIES)
        for entry in tmp.iterdir():
            if entry.name != "sweep_point.json":
                shutil.rmtree(entry) if entry.is_dir() else entry.unlink()
    final = runs / point.key
    if result.status not in ("ok", "failed"):
        shutil.rmtree(tmp, ignore_errors=True)  # interrupted: it will be rerun
        return {"key": point.key, "status": result.status, "error": result.error, "metrics": {}}
    if final.exists():
        existing = read_run_state(final)
        if existing is not None and existing["status"] == "ok":
            existing = _verified(final, existing)
        if existing is not None and existing["status"] == "ok":
            shutil.rmtree(tmp, ignore_errors=True)  # another attempt (a rescheduled task) finished first
            return existing
        shutil.rmtree(final)  # a failed run being retried, or a damaged one being replaced
    tmp.rename(final)
    return read_run_state(final) or {"key": point.key, "status": result.status, "error": result.error, "metrics": {}}


def _execute_on_worker(spec: SweepSpec, directory: str, point: RunPoint) -> dict:
    """The Dask task: the same work as a local run, returning plain data only."""
    state = _execute(spec, Path(directory), point, 0)
    return {"key": state.get("key", point.key), "status": state["status"], "error": state.get("error"),
            "metrics": state.get("metrics") or {}}


class _LocalPool:
    """Runs at most `jobs` runs at a time; each run is a child process started from a thread."""

    def __init__(self, jobs: int) -> None:
        self._pool = ThreadPoolExecutor(max_workers=jobs, thread_name_prefix="sweep")

    def submit(self, spec: SweepSpec, directory: Path, point: RunPoint):
        return self._pool.submit(_execute, spec, directory, point, 0)

    def completed(self, futures):
        pending = set(futures)
        while pending:
            done, pending = wait(pending, return_when=FIRST_COMPLETED)
            yield from done

    def close(self, cancel: bool = False) -> None:
        self._pool.shutdown(wait=not cancel, cancel_futures=cancel)


class _DaskPool:
    """Submits runs to a Dask cluster; Dask reschedules a run whose worker is lost."""

    def __init__(self, client) -> None:
        self._client = client

    def submit(self, spec: SweepSpec, directory: Path, point: RunPoint):
        return self._client.submit(_execute_on_worker, spec, str(directory), point, pure=False, key=f"cosim-run-{point.key}")

    def completed(self, futures):
        from distributed import as_completed

        yield from as_completed(futures)

    def close(self, cancel: bool = False) -> None:
        pass


def run_sweep(
    spec: SweepSpec,
    out_dir: str | Path | None = None,
    jobs: int | None = None,
    retry_failed: bool = False,
    progress: SweepProgress | None = None,
    dask_client=None,
) -> SweepOutcome:
    """Run what is missing of `spec`: locally with `jobs` runs at a time (default: the number of CPUs),
    or on a Dask cluster through `dask_client` (a distributed.Client)."""
    directory = sweep_directory(spec, out_dir)
    with driver_lock(directory):
        return _run_locked(spec, directory, jobs, retry_failed, progress, dask_client)


def driver_lock(directory: Path) -> FileLock:
    """One sweep driver per directory (`driver.lock`, naming its holder); finished runs are kept."""
    return FileLock(directory / "driver.lock", f"{directory} is in use by another sweep driver",
                    "; wait for it to finish or stop it, then run again (finished runs are kept)")


def _run_locked(spec: SweepSpec, directory: Path, jobs: int | None, retry_failed: bool,
                progress: SweepProgress | None, dask_client) -> SweepOutcome:
    _prepare(spec, directory)
    todo, keep = _todo(spec, directory, retry_failed)
    outcome = SweepOutcome(directory, total=len(todo) + len(keep), skipped=len(keep))
    index = open_index(directory)
    for point in keep:  # the index is derived: make sure it lists what is on disk
        state = read_run_state(directory / "runs" / point.key)
        index.record(point.key, point.replication, point.seed, point.params, state["status"], state["error"], state["metrics"])
    by_key = {p.key: p for p in todo}
    t0 = time.monotonic()
    pool = _DaskPool(dask_client) if dask_client is not None else _LocalPool(max(1, jobs or os.cpu_count() or 1))
    try:
        pending = {pool.submit(spec, directory, p): p.key for p in todo}
        for fut in pool.completed(list(pending)):
            key = pending.pop(fut)
            point = by_key[key]
            try:
                state = fut.result()
            except Exception as exc:  # a driver-side error (disk, rename): record, go on
                state = {"status": "failed", "error": f"{type(exc).__name__}: {exc}", "metrics": {}}
            outcome.ran += 1
            if state["status"] == "ok":
                outcome.ok += 1
            else:
                outcome.failed += 1
                outcome.failures[key] = state.get("error") or state["status"]
            if state["status"] in ("ok", "failed"):
                index.record(key, point.replication, point.seed, point.params, state["status"], state.get("error"),
                             state.get("metrics"))
            if progress is not None:
                progress(outcome.ok + outcome.skipped, outcome.failed, len(pending), outcome.total, time.monotonic() - t0)
    except KeyboardInterrupt:
        pool.close(cancel=True)
        index.close()
        raise
    pool.close()
    index.close()
    for stale in (directory / "runs").glob(".tmp-*"):
        shutil.rmtree(stale, ignore_errors=True)  # from lost workers: every run has finished by now
    return outcome
