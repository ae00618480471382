"""ARGoS's foot-bot diffusion workload in our own code; prints one JSON line per case.

argos3-examples' `footbot_diffusion` (differential steering, 24 proximity rays at 10 Hz, 5 cm/s,
10 ms steps) recreated here: an arena scaled to constant density (a 4 m square per 10 robots),
N/2 boxes of 0.3 m and N/2 cylinders of 0.15 m radius at random, robots of 8.5 cm radius drawn
clear of them, 24 range rays of 0.1 m at 10 Hz, `ObstacleAvoiderGroup` (`--controller group`) or
one `ObstacleAvoider` per robot (`per_robot`), no network, traces off. `--world kinematic` (default)
or `pybullet`. A warm-up run loads (or compiles) the kernels before timing.
ARGoS's own example, built here and run side by side (one thread, 2026-11-26): 257-456x at 10
robots, 26-35x at 100, 2.0-3.5x at 1,000, 0.20-0.23x at 10,000 (benchmarks/README.md).

    python benchmarks/argos.py                                   # kinematic, group, N = 10 .. 1,000
    python benchmarks/argos.py --controller per_robot --n 100
    python benchmarks/argos.py --n 10000 --seconds 5
    python benchmarks/argos.py --plain-only                      # only `cosim run` on the plain file

Beside each harness case it runs the same workload as a user would: `cosim run` on
benchmarks/argos_diffusion.yaml (no range `rate_hz`, collisions and traces at their defaults), with
this N's world written to a temporary file and given through --set; figures from its metrics.json.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402
import yaml  # noqa: E402

import cosim  # noqa: E402
from benchmarks.cli_run import cosim_run  # noqa: E402

CONTROLLERS = {"group": "controllers.library.avoider_group:ObstacleAvoiderGroup",
               "per_robot": "controllers.library.avoider:ObstacleAvoider"}
PLAIN = ROOT / "benchmarks" / "argos_diffusion.yaml"
"""The workload as a user writes it (no tuning keys), run with `cosim run`."""


def scene(n: int, seed: int = 1) -> dict:
    """The arena (side 4 m * sqrt(N / 10)) with N/2 boxes and N/2 cylinders at random."""
    side = 4.0 * math.sqrt(max(n, 10) / 10.0)
    rng = np.random.default_rng(seed)
    xy = rng.uniform(0.3, side - 0.3, (n, 2))
    boxes = [{"center": [float(x), float(y), 0.25], "size": [0.3, 0.3, 0.5]} for x, y in xy[: n // 2]]
    cylinders = [{"type": "cylinder", "center": [float(x), float(y), 0.25], "radius": 0.15, "height": 0.5}
                 for x, y in xy[n // 2:]]
    return {"arena_lower": [0, 0, 0], "arena_upper": [side, side, 1], "obstacles": boxes + cylinders}


def scenario(n: int, seconds: float, controller: str, world: str) -> cosim.Scenario:
    w = scene(n)
    side = w["arena_upper"][0]
    return cosim.load(ROOT / "configs" / "ground_robots.yaml", {
        "duration": seconds, "network.backend": "none", "physics.backend": world, "world": w,
        "groups.0.count": n,
        "groups.0.layout": {"type": "random_box", "lower": [0.1, 0.1, 0.1], "upper": [side - 0.1, side - 0.1, 0.1]},
        "groups.0.robot": {"model": "diff_drive", "radius": 0.085, "drive": {"wheel_base": 0.14, "max_wheel_speed": 0.1,
                                                                            "max_accel": 2.0, "friction": 0.8}},
        "groups.0.sensors": {"range": {"count": 24, "max_range": 0.1, "rate_hz": 10.0}},
        "groups.0.controller": {"class": CONTROLLERS[controller], "period": "100 ms",
                                "params": {"max_speed": 0.05, "safe_distance": 0.05}},
        "output.trace.positions_every": None, "output.trace.network": False})


def run(n: int, seconds: float, controller: str, world: str) -> dict:
    sim = cosim.build(scenario(n, seconds, controller, world))
    t0 = time.perf_counter()
    sim.run()
    wall = time.perf_counter() - t0
    return {"workload": f"argos_footbot_diffusion_{world}", "controller": controller, "N": n, "simulated_s": seconds,
            "wall_s": round(wall, 3), "real_time_factor": round(seconds / wall, 2),
            "wall_per_simulated_s_ms": round(1e3 * wall / seconds, 2)}


TUNED = ("physics.collisions=false", "groups.0.sensors.range.rate_hz=10", "output.trace.positions_every=null",
         "output.trace.network=false")
"""Every tuning knob the workload has, set: point 4 of issue 52 holds the plain file within 1.3x of this."""


def run_plain(n: int, seconds: float, controller: str, folder: Path, tuned: bool = False) -> dict:
    """`cosim run` on the plain scenario file, with this N's world (the harness's `scene`) and arena;
    with `tuned`, every knob of TUNED set too."""
    world = folder / f"world_{n}.yaml"
    world.write_text(yaml.safe_dump(scene(n)))
    edge = scene(n)["arena_upper"][0] - 0.1
    out = folder / f"run_{controller}_{n}{'_tuned' if tuned else ''}"
    sets = (f"world.file={world}", f"groups.0.count={n}", f"groups.0.layout.upper=[{edge}, {edge}, 0.1]",
            f"groups.0.controller.class={CONTROLLERS[controller]}", *(TUNED if tuned else ()))
    m = cosim_run(PLAIN, out, seconds, sets)
    return {"workload": f"argos_footbot_diffusion_{'tuned' if tuned else 'plain'}_cosim_run", "controller": controller,
            **m, "wall_per_simulated_s_ms": round(1e3 * m["wall_s"] / m["simulated_s"], 2)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--n", type=int, nargs="*", default=[10, 100, 1000])
    ap.add_argument("--seconds", type=float, default=20.0)
    ap.add_argument("--controller", choices=sorted(CONTROLLERS), default="group")
    ap.add_argument("--world", choices=["kinematic", "pybullet"], default="kinematic")
    ap.add_argument("--plain-only", action="store_true", help="only `cosim run` on the plain scenario file")
    ap.add_argument("--tuned", action="store_true", help="`cosim run` on the plain file and with every tuning knob set, "
                    "alternately, instead of the harness")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="argos-plain-") as tmp:
        run_plain(min(args.n), 0.5, args.controller, Path(tmp))  # not printed: the cache's first load in a new process tree
        for n in args.n:
            print(json.dumps(run_plain(n, args.seconds, args.controller, Path(tmp))), flush=True)
            if args.tuned:
                print(json.dumps(run_plain(n, args.seconds, args.controller, Path(tmp), tuned=True)), flush=True)
    if args.plain_only or args.tuned:
        return
    # warm-up, not printed: every kernel's one-off load (or compile), the pair search's too (brute
    # force up to 64 robots, a Verlet list over a cell grid above)
    for n in sorted({min(n, 20) if n <= 64 else 100 for n in args.n}):
        run(n, 1.0, args.controller, args.world)
    for n in args.n:
        print(json.dumps(run(n, args.seconds, args.controller, args.world)), flush=True)


if __name__ == "__main__":
    main()
