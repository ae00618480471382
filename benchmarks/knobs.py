"""Every shipped config through `cosim run`, as written and with every tuning knob set, alternately
(issue 52, point 4: no knob decides the path). Prints one JSON line per config: both real-time
factors and their ratio.

The knobs: range sensors cast together at `rate_hz: 10` (where a group's sensor has no rate),
`physics.collisions: false` (kinematic worlds; pybullet bodies always collide), and no traces
(`output.trace.positions_every: null`, `output.trace.network: false`). Configs that need a
vehicle on the other end of a MAVLink link are left out (they are paced by it).

    python benchmarks/knobs.py                       # every config, 10 simulated s each, best of 2
    python benchmarks/knobs.py --only demo.yaml ground_robots.yaml --seconds 30
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import cosim  # noqa: E402
from benchmarks.cli_run import cosim_run  # noqa: E402

NEEDS_A_VEHICLE = {"mavlink_mixed.yaml", "sitl_copter.yaml"}
TRACES_OFF = ("output.trace.positions_every=null", "output.trace.network=false")


def knobs(path: Path) -> tuple[str, ...]:
    """The `--set` overrides that turn every tuning knob of this scenario."""
    s = cosim.load(path)
    rates = tuple(f"groups.{k}.sensors.range.rate_hz=10" for k, g in enumerate(s.groups)
                  if "range" in g.sensors and not g.sensors["range"].get("rate_hz"))
    collisions = ("physics.collisions=false",) if s.physics.backend == "kinematic" else ()
    return (*rates, *collisions, *TRACES_OFF)


def compare(path: Path, seconds: float, rounds: int, folder: Path) -> dict:
    """Best of `rounds` of each, alternately: the plain file, then with every knob."""
    sets = knobs(path)
    plain, tuned = [], []
    for _ in range(rounds):
        plain.append(cosim_run(path, folder / f"{path.stem}_plain", seconds))
        tuned.append(cosim_run(path, folder / f"{path.stem}_tuned", seconds, sets))
    p = max(plain, key=lambda m: m["real_time_factor"])
    t = max(tuned, key=lambda m: m["real_time_factor"])
    return {"workload": f"config_{path.stem}", "N": p["N"], "simulated_s": p["simulated_s"], "wall_s": p["wall_s"],
            "real_time_factor": p["real_time_factor"], "tuned_wall_s": t["wall_s"],
            "tuned_real_time_factor": t["real_time_factor"],
            "tuned_over_plain": round(t["real_time_factor"] / p["real_time_factor"], 2), "engine_path": p["engine_path"],
            "knobs": list(sets)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--only", nargs="*", help="config file names under configs/ (default: all)")
    ap.add_argument("--seconds", type=float, default=10.0, help="simulated seconds per run (at most the config's own)")
    ap.add_argument("--rounds", type=int, default=2)
    args = ap.parse_args()
    names = args.only or sorted(p.name for p in (ROOT / "configs").glob("*.yaml"))
    with tempfile.TemporaryDirectory(prefix="knobs-") as tmp:
        for name in names:
            if name in NEEDS_A_VEHICLE:
                print(json.dumps({"workload": f"config_{Path(name).stem}", "skipped": "needs a MAVLink vehicle"}), flush=True)
                continue
            path = ROOT / "configs" / name
            seconds = min(args.seconds, cosim.load(path).duration_ns / 1e9)
            try:
                print(json.dumps(compare(path, seconds, args.rounds, Path(tmp))), flush=True)
            except RuntimeError as exc:  # recorded, and on to the next config
                print(json.dumps({"workload": f"config_{path.stem}", "error": str(exc)}), flush=True)


if __name__ == "__main__":
    main()
