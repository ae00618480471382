"""Robot-model speed; prints one JSON line per case.

quadrotors: N vehicles (Crazyflie preset) with the full cascaded PID at 400 Hz (2.5 ms tick),
flying position setpoints spread over a 100 m square (the dynamics and controllers alone, and the
same inside a scenario run by the coordinator); targets: 10 at 30x real time or faster, 100 at 5x
or faster.
peer: gym-pybullet-drones' pid example as configs/gym_circle.yaml, rigid bodies, control at 50 Hz
(gym: 48 Hz) and at 400 Hz; gym's own run is timed by hand (benchmarks/README.md).
ground: configs/ground_robots.yaml's robots (differential drive, 8 range rays each at 10 Hz,
obstacle avoidance), N of them in a square sized for constant density with a box, a cylinder and
a wall, no network, each case with one ObstacleAvoider per robot and with one ObstacleAvoiderGroup
(the same rule, bit for bit, in arrays); targets: 500 at 1x or faster (kinematic), 100 rigid at 5x.

    python benchmarks/robots.py                      # everything, 20 simulated seconds each
    python benchmarks/robots.py --only quadrotors --n 100 --seconds 60
    python benchmarks/robots.py --world pybullet --only ground --n 100 --controller group
    python benchmarks/robots.py --peer    # gym-pybullet-drones' workload, see benchmarks/README.md
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402

from benchmarks.cli_run import plain_line  # noqa: E402
from physics.bodies.quadrotor import AIRFRAMES, Mode, QuadrotorBank  # noqa: E402


def quadrotors(n: int, seconds: float, seed: int = 1) -> dict:
    rng = np.random.default_rng(seed)
    start = np.column_stack([rng.uniform(0, 100, n), rng.uniform(0, 100, n), np.ones(n)])
    bank = QuadrotorBank([AIRFRAMES["crazyflie"]] * n, start)
    goals = np.column_stack([rng.uniform(0, 100, n), rng.uniform(0, 100, n), rng.uniform(1, 10, n)])
    for i in range(n):
        bank.command(i, Mode.POSITION, *goals[i], float(rng.uniform(-math.pi, math.pi)))
    steps = round(seconds / bank.tick)
    for _ in range(400):  # one simulated second of warm-up (first calls, caches)
        bank.step()
    walls = []
    for _ in range(3):  # the shared machine varies by 10-25% between runs: report the best of three
        t0 = time.perf_counter()
        for _ in range(steps):
            bank.step()
        walls.append(time.perf_counter() - t0)
    wall = min(walls)
    return {"workload": "quadrotor_cascaded_pid_400hz", "N": n,
            "simulated_s": seconds, "wall_s": round(wall, 3),
            "real_time_factor": round(seconds / wall, 2), "us_per_tick": round(wall / steps * 1e6, 1),
            "wall_s_all": [round(w, 3) for w in walls]}


def in_simulator(workload: str, overrides: dict, n: int, seconds: float) -> dict:
    import cosim

    base = ROOT / "configs" / ("quadrotors.yaml" if workload.startswith("quad") else "ground_robots.yaml")
    scenario = cosim.load(base, {"duration": seconds, "groups.0.count": n, "network.backend": "none",
                                 "output.trace.positions_every": None, "output.trace.network": False, **overrides})
    sim = cosim.build(scenario)
    sim.run()
    return {"workload": workload, "N": n, "simulated_s": seconds, "wall_s": round(sim.wall_s, 3),
            "real_time_factor": round(seconds / sim.wall_s, 2)}


def peer_workload(control_hz: float) -> dict:
    """configs/gym_circle.yaml (gym-pybullet-drones' pid example: 10 drones hover and circle, 12 s) at
    `control_hz`; at 50 Hz the engine steps at 250 Hz under it, as gym's 240 Hz under 48 Hz."""
    import cosim

    step = f"{1000 / control_hz:g} ms" if control_hz <= 100 else "10 ms"
    scenario = cosim.load(ROOT / "configs" / "gym_circle.yaml", {
        "groups.0.robot.control_hz": control_hz, "physics.dt": step, "quantum": step, "groups.0.controller.period": step,
        "output.trace.positions_every": None})
    walls = []
    for _ in range(3):  # the best of three, as for the vehicles alone
        sim = cosim.build(scenario)
        sim.run()
        walls.append(sim.wall_s)
    wall = min(walls)
    return {"workload": f"gym_pid_circle_rigid_control_{control_hz:g}hz", "N": 10, "simulated_s": scenario.duration_ns / 1e9,
            "wall_s": round(wall, 3), "real_time_factor": round(scenario.duration_ns / 1e9 / wall, 2),
            "wall_s_all": [round(w, 3) for w in walls]}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--only", choices=["quadrotors", "ground"])
    ap.add_argument("--n", type=int, nargs="+")
    ap.add_argument("--seconds", type=float, default=20.0)
    ap.add_argument("--world", choices=["kinematic", "pybullet"], default="kinematic",
                    help="pybullet: the vehicles as rigid bodies (scenario runs only)")
    ap.add_argument("--peer", action="store_true",
                    help="only gym-pybullet-drones' own workload (configs/gym_circle.yaml) at 50 Hz and 400 Hz control")
    ap.add_argument("--controller", choices=["robot", "group"],
                    help="ground robots: only one ObstacleAvoider per robot, or only one ObstacleAvoiderGroup (the "
                         "same rule and trajectories, in arrays); default: both")
    ap.add_argument("--plain-only", action="store_true", help="only `cosim run` on the plain scenario file")
    args = ap.parse_args()
    for name in ("quadrotors", "ground_robots"):  # the shipped files as users run them
        print(json.dumps(plain_line(name, ROOT / "configs" / f"{name}.yaml", args.seconds)), flush=True)
    if args.plain_only:
        return
    rigid = args.world == "pybullet"
    if args.peer:
        for hz in (50.0, 400.0):
            print(json.dumps(peer_workload(hz)), flush=True)
        return
    if args.only in (None, "quadrotors"):
        quadrotor_cases(args.n or ([10, 100] if rigid else [10, 100, 300]), args.seconds, args.world)
    if args.only in (None, "ground"):
        ground_cases(args.n or [100, 500], args.seconds, args.world, [args.controller] if args.controller else ["robot", "group"])


def quadrotor_cases(ns: list[int], seconds: float, world: str) -> None:
    """The vehicles alone (kinematic only) and in a scenario, N each."""
    for n in ns:
        if world == "kinematic":
            print(json.dumps(quadrotors(n, seconds)), flush=True)
        side = max(10.0, 3.0 * n ** 0.5)
        layout = {"groups.0.layout": {"type": "random_box", "lower": [0, 0, 0], "upper": [side, side, 0]},
                  "world.arena_upper": [side + 40, side + 40, 20], "physics.backend": world}
        workload = "quadrotor_scenario_waypoints" + ("_rigid" if world == "pybullet" else "")
        print(json.dumps(in_simulator(workload, layout, n, seconds)), flush=True)


def ground_cases(ns: list[int], seconds: float, world: str, controllers: list[str]) -> None:
    """The ground robots at constant density among a box, a cylinder and a wall, per controller."""
    for n in ns:
        side = max(4.0, 0.9 * n ** 0.5)
        scene = {"arena_lower": [-2 * side - 10, -2 * side - 10, 0], "arena_upper": [2 * side + 10, 2 * side + 10, 3],
                 "obstacles": [{"center": [side / 2, 0, 0.5], "size": [0.4, side, 1]},
                               {"type": "cylinder", "center": [-side / 2, side / 3, 0.5], "radius": 1.0, "height": 1},
                               {"type": "wall", "start": [-side / 2, -side / 2], "end": [0, -side], "height": 1}]}
        layout = {"groups.0.layout": {"type": "random_box", "lower": [-side, -side, 0.2], "upper": [side, side, 0.2]},
                  "world": scene, "physics.backend": world, "groups.0.sensors.range.rate_hz": 10.0}
        for controller in controllers:
            case = dict(layout)
            workload = "ground_diff_drive_8_rays_10hz" + ("_rigid" if world == "pybullet" else "")
            if controller == "group":
                case["groups.0.controller.class"] = "controllers.library.avoider_group:ObstacleAvoiderGroup"
                workload += "_group"
            print(json.dumps(in_simulator(workload, case, n, seconds)), flush=True)

if __name__ == "__main__":
    main()
