"""Kilombo's efficiency workload (paper 002, section 5): follow-the-leader with every robot moving
and transmitting twice a second; real-time factor against swarm size. Prints one JSON line per N.

The chain is configs/kilombo_follow.yaml laid out as a snake of 32 columns (45 mm apart, 10 cm
infrared range: about 14 neighbours each); traces off. Kilombo reported about 100x real time for
1,000 robots (C, Intel i7-4770).

    python benchmarks/kilombo.py                        # N = 10, 100, 300, 1000; 60 simulated seconds
    python benchmarks/kilombo.py --n 1000 --seconds 300
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import cosim  # noqa: E402


def follow(n: int, seconds: float) -> dict:
    scenario = cosim.load(ROOT / "configs" / "kilombo_follow.yaml", {
        "duration": seconds, "groups.1.count": n - 1, "groups.1.layout.columns": min(32, n - 1),
        "output.trace.positions_every": None, "output.trace.network": False, "output.trace.records": False})
    sim = cosim.build(scenario)
    sim.run()
    sim_s = sim.now_ns / 1e9
    c = sim.counters
    return {"workload": "kilombo_follow_the_leader", "N": n, "simulated_s": sim_s, "wall_s": round(sim.wall_s, 2),
            "real_time_factor": round(sim_s / sim.wall_s, 2), "messages_sent": c.sent, "receptions": c.delivered,
            "wall_physics_s": round(c.wall_physics_s, 2)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--n", type=int, nargs="*", default=[10, 100, 300, 1000])
    ap.add_argument("--seconds", type=float, default=60.0)
    args = ap.parse_args()
    for n in args.n:
        print(json.dumps(follow(n, args.seconds)), flush=True)


if __name__ == "__main__":
    main()
