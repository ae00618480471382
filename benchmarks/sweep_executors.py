"""Throughput of the sweep executors for short runs: local pool vs a Dask LocalCluster; prints JSON.

Each run is a 5-robot random walk for 0.5 simulated seconds, so the wall time is almost all
executor overhead: starting the child process, importing cosim, writing the run directory.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from cosim.sweep.runner import run_sweep  # noqa: E402
from cosim.sweep.spec import load_sweep  # noqa: E402


def write(tmp: Path, runs: int) -> Path:
    base = {"name": "tiny", "duration": 0.5, "physics": {"backend": "kinematic", "dt": "10 ms"},
            "network": {"backend": "fast"},
            "groups": [{"name": "g", "count": 5, "layout": {"type": "random_disc", "radius": 5},
                        "controller": {"class": "controllers.library.random_walk:RandomWalk"}}],
            "output": {"trace": {"positions_every": None, "network": False, "records": False}}}
    (tmp / "base.yaml").write_text(yaml.safe_dump(base))
    (tmp / "sweep.yaml").write_text(yaml.safe_dump({"base": "base.yaml", "replications": runs, "grid": {"groups.0.count": [5]}}))
    return tmp / "sweep.yaml"


def measure(kind: str, runs: int, jobs: int) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        spec = load_sweep(write(Path(tmp), runs))
        t0 = time.perf_counter()
        if kind == "local":
            outcome = run_sweep(spec, out_dir=Path(tmp) / "out", jobs=jobs)
        else:
            from distributed import Client, LocalCluster

            with LocalCluster(n_workers=jobs, threads_per_worker=1, host="127.0.0.1", dashboard_address=None) as cluster, \
                    Client(cluster) as client:
                t0 = time.perf_counter()  # cluster start-up is not per-run overhead
                outcome = run_sweep(spec, out_dir=Path(tmp) / "out", dask_client=client)
        wall = time.perf_counter() - t0
    assert outcome.ok == runs, outcome.failures
    return {"workload": "sweep-executor", "executor": kind, "runs": runs, "jobs": jobs, "wall_s": round(wall, 3),
            "runs_per_minute": round(runs / wall * 60, 1), "overhead_per_run_s": round(wall * jobs / runs, 3)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--runs", type=int, default=40)
    ap.add_argument("--jobs", type=int, default=2)
    args = ap.parse_args()
    for kind in ("local", "dask"):
        print(json.dumps(measure(kind, args.runs, args.jobs)), flush=True)


if __name__ == "__main__":
    main()
