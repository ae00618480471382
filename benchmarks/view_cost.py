"""What watching a run costs: the demo scenario (configs/demo.yaml: 200 robots, 30 s, 1 Hz
broadcasts heard by ~145 neighbours each) run plain, recorded for the viewer (output.view, every
layer, a frame per 250 ms (the default) or 100 ms), thinned (a frame per 500 ms, robots and metrics only), and streamed
on ZeroMQ with nobody listening. Prints one JSON line per run; runs alternate so the machine's
drift hits every case alike. `wall_s` is the simulation loop; Rerun's one-off start (importing it
and building each kind of batch once, about 0.6 s per process) is paid before the loop and is
reported once as `rerun_start_s`.

    python benchmarks/view_cost.py              # 3 repetitions of each case
    python benchmarks/view_cost.py --reps 5 --n 1000
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import cosim  # noqa: E402
from cosim.scenario.loading import load  # noqa: E402

CASES = {
    "plain": {},
    "view_default_all_layers_250ms": {"output.view.trail": 10},  # the defaults otherwise
    "view_all_layers_100ms": {"output.view.every": "100 ms"},
    "view_thinned_500ms_robots_metrics": {"output.view.every": "500 ms", "output.view.layers": ["robots", "metrics"]},
    "stream_every_10_quanta": {},  # the URL gets a free port per run
}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--n", type=int, default=200, help="robots (the demo's disc grows to keep its density)")
    args = ap.parse_args()
    t0 = time.perf_counter()
    from cosim.view.painter import warm_up  # the same one-off cost LiveView pays when built

    warm_up()
    print(json.dumps({"rerun_start_s": round(time.perf_counter() - t0, 2)}), flush=True)
    walls: dict[str, list[float]] = {name: [] for name in CASES}
    with tempfile.TemporaryDirectory() as tmp:
        for rep in range(args.reps):
            for name, overrides in CASES.items():
                extra = {"groups.0.count": args.n, "groups.0.layout.radius": 20.0 * (args.n / 200) ** 0.5}
                if name.startswith("stream"):
                    overrides = {"output.stream.url": f"tcp://127.0.0.1:{_free_port()}"}
                s = load(ROOT / "configs" / "demo.yaml", overrides | extra)
                r = cosim.run(s, out_dir=Path(tmp) / f"{name}-{rep}")
                m = r.metrics
                walls[name].append(m["wall_s"])
                print(json.dumps({"workload": f"demo_{name}", "N": args.n, "simulated_s": m["simulated_s"],
                                  "wall_s": round(m["wall_s"], 3), "real_time_factor": round(m["real_time_factor"], 2),
                                  "watcher_wall_s": (m.get("view") or m.get("stream") or {}).get("wall_s"),
                                  "recording_mb": _size_mb(r.directory / "recording.rrd")}), flush=True)
    base = statistics.median(walls["plain"])
    print(json.dumps({"summary": "median wall_s and cost over plain",
                      **{name: {"wall_s": round(statistics.median(w), 3),
                                "cost_pct": round(100 * (statistics.median(w) / base - 1), 1)} for name, w in walls.items()}}))


def _free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _size_mb(path: Path) -> float | None:
    return round(path.stat().st_size / 1e6, 1) if path.is_file() else None


if __name__ == "__main__":
    main()
