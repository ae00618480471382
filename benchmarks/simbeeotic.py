"""Simbeeotic's scalability workloads (Kate et al., section 5.1), timed on this machine; prints JSON.

typical:   random walk (10 Hz velocity update) + noisy compass at 1 Hz, robots start within 20 m of
           the origin, 100 simulated seconds. Run on the kinematic and on the pybullet world.
broadcast: typical + a 4-byte broadcast at 1 Hz over the fast network (unit disk, 30 m, as in the
           paper's scenario file), kinematic world.
Simbeeotic reached soft real time at 3,074 robots (typical) and 550 (broadcast).
`--controller group` runs the swarm as one InstrumentSwarm group controller (ticks at phase 0),
`robot` (default) as one InstrumentBee per robot. A warm-up run loads (or compiles) the kernels
first, outside the timing.

    python benchmarks/simbeeotic.py                      # the issue's target sizes
    python benchmarks/simbeeotic.py --workload typical --world kinematic --n 1000 --duration 10
    python benchmarks/simbeeotic.py --controller group --workload typical --n 10000 --duration 10
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

TARGETS = [("typical", "kinematic", 10_000), ("typical", "pybullet", 1_500), ("broadcast", "kinematic", 1_100)]


FAST_NETWORK = {"backend": "fast", "radio": {  # CC2420-class 802.15.4, per link, as Simbeeotic's radio
    "standard": "802.15.4", "pathloss": {"model": "unit_disk", "range_m": 30.0},
    "fast": {"latency": "100 us", "contention": {"model": "none"}},
}}


CONTROLLERS = {"robot": "controllers.library.instrument:InstrumentBee",
               "group": "controllers.library.random_walk_group:InstrumentSwarm"}


def scenario(workload: str, world: str, n: int, duration: float, seed: int, dt: str, quantum: str,
             network: dict | None = None, controller: str = "robot") -> cosim.Scenario:
    """The workload as a scenario; `network` replaces the fast unit-disk network of the paper's setup."""
    broadcast = workload == "broadcast"
    data = {
        "name": f"simbeeotic-{workload}-{world}-{n}",
        "seed": seed,
        "duration": duration,
        "quantum": quantum,
        "physics": {"backend": world, "dt": dt},
        "network": network or FAST_NETWORK,
        "world": {"arena_lower": [-1000, -1000, 0], "arena_upper": [1000, 1000, 100]},
        "groups": [{
            "name": "bees",
            "count": n,
            "layout": {"type": "random_disc", "center": [0, 0, 1.0], "radius": 20.0},
            "robot": {"radius": 0.1, "mass": 0.05, "max_speed": 2.0},
            "sensors": {"compass": {"noise_std": 0.2}},
            "controller": {
                "class": CONTROLLERS[controller],
                "period": "100 ms",
                **({"phase": 0} if controller == "group" else {}),
                "params": {"sensor_period": 1.0, "radio_period": 1.0 if broadcast else 0.0},
            },
        }],
        "output": {"trace": {"positions_every": None, "network": False, "records": False}},
    }
    return cosim.from_dict(data, source=f"benchmarks/simbeeotic.py:{workload}")


def measure(workload: str, world: str, n: int, duration: float, seed: int, dt: str, quantum: str,
            controller: str = "robot") -> dict:
    s = scenario(workload, world, n, duration, seed, dt, quantum, controller=controller)
    with tempfile.TemporaryDirectory() as tmp:
        result = cosim.run(s, out_dir=Path(tmp) / "run")
    if result.status != "ok":
        raise SystemExit(f"benchmark run failed: {result.error}")
    m = result.metrics
    return {
        "workload": workload, "world": world, "controller": controller, "N": n, "physics_dt": dt, "quantum": quantum,
        "simulated_s": m["simulated_s"], "wall_s": round(m["wall_s"], 3),
        "real_time_factor": round(m["real_time_factor"], 3),
        "wall_physics_s": round(m["wall_physics_s"], 3),
        "events": m["events"], "messages_sent": m["messages_sent"], "messages_delivered": m["messages_delivered"],
    }


PLAIN = ROOT / "benchmarks" / "simbeeotic.yaml"


def run_plain(workload: str, world: str, n: int, duration: float, controller: str, folder: Path) -> dict:
    """`cosim run` on the plain scenario file, for this workload, world, size and controller."""
    sets = (f"groups.0.count={n}", f"physics.backend={world}", f"groups.0.controller.class={CONTROLLERS[controller]}",
            f"groups.0.controller.params.radio_period={1.0 if workload == 'broadcast' else 0.0}",
            *(("groups.0.controller.phase=0",) if controller == "group" else ()))
    m = cosim_run(PLAIN, folder / f"plain_{workload}_{world}_{n}", duration, sets)
    return {"workload": f"{workload}_plain_cosim_run", "world": world, "controller": controller, **m}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--workload", choices=["typical", "broadcast"])
    ap.add_argument("--world", choices=["kinematic", "pybullet"], default="kinematic")
    ap.add_argument("--n", type=int)
    ap.add_argument("--duration", type=float, default=100.0, help="simulated seconds (paper: 100)")
    ap.add_argument("--dt", default="10 ms", help="physics step (Simbeeotic's kinematic update: 100 Hz)")
    ap.add_argument("--quantum", default="10 ms")
    ap.add_argument("--seed", type=int, default=111982)
    ap.add_argument("--controller", choices=sorted(CONTROLLERS), default="robot")
    ap.add_argument("--plain-only", action="store_true", help="only `cosim run` on the plain scenario file")
    args = ap.parse_args()
    cases = [(args.workload, args.world, args.n)] if args.workload else TARGETS
    with tempfile.TemporaryDirectory(prefix="simbeeotic-plain-") as tmp:
        run_plain("typical", "kinematic", 100, 1.0, args.controller, Path(tmp))  # not printed: the cache's first load
        for workload, world, n in cases:
            print(json.dumps(run_plain(workload, world, n or 1000, args.duration, args.controller, Path(tmp))), flush=True)
    if args.plain_only:
        return
    measure("typical", "kinematic", 300, 1.0, args.seed, args.dt, args.quantum, args.controller)  # warm-up: their load
    for workload, world, n in cases:
        print(json.dumps(measure(workload, world, n or 1000, args.duration, args.seed, args.dt, args.quantum,
                                 args.controller)), flush=True)


if __name__ == "__main__":
    main()
