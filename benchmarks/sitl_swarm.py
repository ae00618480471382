"""Real ArduCopter firmwares in lock-step, each flying a mission from the in-scenario ground station
over ns-3's 802.11g with AntHocNet: `cosim run configs/sitl_swarm_ns3.yaml` as a user runs it, with N
firmware instances started as `cosim sitl-commands` prints them. Prints one JSON line per N: the
workload, N, simulated and wall seconds, the real-time factor, the frames exchanged and the wall
time per frame and per vehicle, and how far the missions got: `flying` copters reached their mission's
last step at the ground station, `finished` ones flew (above 1 m), went north at least 5 m of the 10 m
leg (ArduCopter turns 2 m short of a waypoint, WPNAV_RADIUS) and ended on the ground within 0.5 m of
where they stood.

The firmware is not in this repository: build ArduPilot's SITL (`./waf configure --board sitl &&
./waf copter`) and pass it. Each instance runs in its own directory under benchmarks/out.

    P=$HOME/ardupilot/Tools/autotest/default_params
    python benchmarks/sitl_swarm.py --firmware $HOME/ardupilot/build/sitl/bin/arducopter \\
        --defaults $P/copter.parm,$P/copter-X.parm --counts 1 5
"""

from __future__ import annotations

import argparse
import json
import math
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pyarrow.parquet as pq

ROOT = Path(__file__).resolve().parents[1]
CONFIG = ROOT / "configs" / "sitl_swarm_ns3.yaml"


def _run(tree: Path, firmware: str, defaults: str, n: int, seconds: float) -> dict:
    out = ROOT / "benchmarks" / "out" / f"sitl-swarm-{n}"
    settings = ["--set", f"groups.1.count={n}", "--set", f"duration={seconds}"]
    cli = [sys.executable, "-m", "cosim.cli"]
    listing = subprocess.run([*cli, "sitl-commands", str(CONFIG), *settings, "--binary", firmware, "--defaults", defaults],
                             cwd=tree, check=True, capture_output=True, text=True).stdout.splitlines()
    procs = []
    for k, line in enumerate(listing):
        home = out.with_name(f"{out.name}-fw{k}")
        shutil.rmtree(home, ignore_errors=True)
        home.mkdir(parents=True)
        procs.append(subprocess.Popen([*line.split(), "-w"], cwd=home, stdout=subprocess.DEVNULL,
                                      stderr=subprocess.DEVNULL))
    try:
        t0 = time.perf_counter()
        subprocess.run([*cli, "run", str(CONFIG), *settings, "--out", str(out), "--overwrite", "--quiet"], cwd=tree,
                       check=True)
        wall = time.perf_counter() - t0
    finally:
        for p in procs:
            p.kill()
            p.wait()
    metrics = json.loads((out / "metrics.json").read_text())
    frames = sum(v["frames"] for v in metrics["sitl"].values())
    steps: dict[str, float] = {}
    rec = pq.read_table(out / "trace" / "records.parquet", columns=["name", "value"]).to_pydict()
    for name, value in zip(rec["name"], rec["value"]):
        if name.startswith("mission_step."):
            steps[name] = value
    return {"workload": "sitl_swarm_ns3", "N": n, "simulated_s": seconds, "wall_s": round(wall, 2),
            "rtf": round(seconds / wall, 3), "frames": frames, "us_per_frame": round(wall / frames * 1e6, 1),
            "wall_s_per_sim_s_per_vehicle": round(wall / seconds / n, 4),
            "flying": sum(1 for v in steps.values() if v == 5.0), "finished": _finished(out, n)}


def _finished(out: Path, n: int) -> int:
    """Copters (nodes 1..n) that flew, went at least 5 m north and ended landed within 0.5 m of their start."""
    pos = pq.read_table(out / "trace" / "positions.parquet", columns=["node", "x", "y", "z"]).to_pandas()
    done = 0
    for node in range(1, n + 1):
        track = pos[pos.node == node]
        first, last = track.iloc[0], track.iloc[-1]
        flew = track.z.max() > 1.0 and track.y.max() - first.y >= 5.0
        home = abs(last.z) < 0.1 and math.hypot(last.x - first.x, last.y - first.y) < 0.5
        done += bool(flew and home)
    return done


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--firmware", required=True, help="the arducopter SITL executable")
    ap.add_argument("--defaults", required=True, help="its copter.parm and copter-X.parm, comma-separated")
    ap.add_argument("--counts", type=int, nargs="+", default=[1, 5], help="firmware instances per run (default 1 5)")
    ap.add_argument("--seconds", type=float, default=100.0, help="simulated seconds per run (default 100)")
    ap.add_argument("--tree", type=Path, default=ROOT, help="the swarm-cosim checkout to run (for before/after)")
    args = ap.parse_args()
    for n in args.counts:
        print(json.dumps({"tree": str(args.tree), **_run(args.tree, args.firmware, args.defaults, n, args.seconds)}),
              flush=True)


if __name__ == "__main__":
    main()
