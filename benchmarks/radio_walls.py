"""What shadowing costs the fast radio: the demo scenario (200 robots, 1 Hz broadcasts heard by
~145 neighbours each, 30 s) with N walls across its disc, obstacles transparent to radio
(before) against `network.radio.obstacle_loss_db: 10` (after), alternating. Prints JSON lines;
`wall_s` is the simulation loop.

    python benchmarks/radio_walls.py                 # 8 walls, 3 repetitions
    python benchmarks/radio_walls.py --walls 32 --reps 5
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import cosim  # noqa: E402
from cosim.scenario.loading import load  # noqa: E402


def walls(n: int) -> list[dict]:
    """n walls, 10 m long, on a ring of radius 12 m through the swarm's 20 m disc."""
    import math

    out = []
    for k in range(n):
        a = 2 * math.pi * k / n
        cx, cy = 12 * math.cos(a), 12 * math.sin(a)
        dx, dy = -5 * math.sin(a), 5 * math.cos(a)
        out.append({"type": "wall", "start": [cx - dx, cy - dy], "end": [cx + dx, cy + dy], "height": 3})
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--walls", type=int, default=8)
    ap.add_argument("--reps", type=int, default=3)
    args = ap.parse_args()
    base = {"world.obstacles": walls(args.walls), "network.pathloss_note": None}
    base.pop("network.pathloss_note")
    cases = {"transparent": {}, "loss_10_db": {"network.radio.obstacle_loss_db": 10.0,
                                               "network.radio.pathloss": {"model": "log_distance", "exponent": 2.0}},
             "transparent_log_distance": {"network.radio.pathloss": {"model": "log_distance", "exponent": 2.0}}}
    walls_s: dict[str, list[float]] = {k: [] for k in cases}
    with tempfile.TemporaryDirectory() as tmp:
        for rep in range(args.reps):
            for name, extra in cases.items():
                s = load(ROOT / "configs" / "demo.yaml", base | extra)
                m = cosim.run(s, out_dir=Path(tmp) / f"{name}-{rep}").metrics
                walls_s[name].append(m["wall_s"])
                print(json.dumps({"workload": f"demo_{args.walls}_walls_{name}", "N": m["nodes"], "simulated_s": m["simulated_s"],
                                  "wall_s": round(m["wall_s"], 3), "real_time_factor": round(m["real_time_factor"], 2),
                                  "messages_delivered": m["messages_delivered"]}), flush=True)
    print(json.dumps({"summary": "median wall_s", **{k: round(statistics.median(v), 3) for k, v in walls_s.items()}}))


if __name__ == "__main__":
    main()
