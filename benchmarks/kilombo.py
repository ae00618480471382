"""Kilombo's efficiency workload (paper 002, section 5): follow-the-leader with every robot moving
and transmitting twice a second; real-time factor against swarm size. Prints one JSON line per N.

`--layout line` is Kilombo's own configuration (configs/kilombo_follow_group.yaml): robots in a line
50 mm apart, 10 cm infrared range, the robots' loop every 32.25 ms. `--layout snake` is
configs/kilombo_follow.yaml (a snake of 32 columns, 45 mm apart, reacting at each receive time).
`--controller` picks the followers' program: `group` (one ChainFollowerGroup for the whole chain),
`group_compiled` (its compiled twin, ChainFollowerCompiled: the same step as one numba function),
`ticked` (the same program per robot, TickedChainFollower; `ticked_compiled` its compiled twin),
`reactive` (ChainFollower, on each message; `reactive_compiled` its compiled twin, a
CompiledController), `idle` (a StationGroup whose tick does nothing: the framework's per-tick floor,
with physics and the leader), `kilolib` (Kilombo's follow example as a Python kilolib program,
controllers/case_studies/kilolib_programs.py, on point robots in the same line) or `compiled` (that program
compiled, controllers/case_studies/kilolib_programs_compiled.py: the fused engine) or `compiled_idle` (every robot a compiled
program that does nothing, `Still`: the fused engine's floor, its loop, motion and transmit timers and
the physics step at the same rates, without the program's work). `--compile-times` measures a compiled
run's first compile and its load from the on-disk cache, each in a fresh process. Traces off.
`wall_s` and the real-time factor time the run (its start-up included); `build_s` is cosim.build. A
short warm-up run first loads (or compiles) the kernels, outside the timing.
Kilombo reported about 100x real time for 1,000 robots (C, Intel i7-4770).

    python benchmarks/kilombo.py                                   # line, group, N = 10 .. 10,000
    python benchmarks/kilombo.py --controller ticked --n 100 1000
    python benchmarks/kilombo.py --layout snake --controller reactive --n 1000 --seconds 300
    python benchmarks/kilombo.py --controller compiled --n 10 100 1000 10000
    python benchmarks/kilombo.py --compile-times
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import cosim  # noqa: E402
from benchmarks.cli_run import cosim_run  # noqa: E402
from controllers.compiled.program import Program  # noqa: E402

FOLLOWERS = {"group": "controllers.case_studies.kilobot_group:ChainFollowerGroup",
             "group_compiled": "controllers.case_studies.kilobot_group_compiled:ChainFollowerCompiled",
             "ticked": "controllers.case_studies.kilobot:TickedChainFollower",
             "reactive": "controllers.case_studies.kilobot:ChainFollower",
             "reactive_compiled": "controllers.case_studies.kilobot_compiled:ChainFollowerRobot",
             "ticked_compiled": "controllers.case_studies.kilobot_compiled:TickedChainFollowerRobot",
             "idle": "controllers.library.station:StationGroup"}


KILOLIB = {"kilolib": ("controllers.case_studies.kilolib_programs:Leader", "controllers.case_studies.kilolib_programs:Follower"),
           "compiled": ("controllers.case_studies.kilolib_programs_compiled:Leader",
                        "controllers.case_studies.kilolib_programs_compiled:Follower"),
           "compiled_idle": ("benchmarks.kilombo:Still", "benchmarks.kilombo:Still")}


class Still(Program):
    """A compiled program that never moves, sends or keeps anything (the fused engine's floor)."""


def kilolib_line(classes: tuple[str, str], n: int, seconds: float) -> cosim.Scenario:
    """Kilombo's follow example in its line layout: robots 50 mm apart, the leader (classes[0]) first."""
    return cosim.load(ROOT / "configs" / "kilolib_follow.yaml", {
        "duration": seconds, "groups.1.count": n - 1, "groups.0.controller.class": classes[0],
        "groups.1.controller.class": classes[1],
        "groups.1.layout": {"type": "line", "start": [-0.05, 0, 0], "step": [-0.05, 0, 0]},
        "world.arena_lower": [-0.05 * n - 1, -3, 0], "world.arena_upper": [3, 3, 0.1],
        "output.trace.positions_every": None, "output.trace.network": False, "output.trace.records": False})


def scenario(layout: str, controller: str, n: int, seconds: float) -> cosim.Scenario:
    if controller in KILOLIB:
        return kilolib_line(KILOLIB[controller], n, seconds)
    off = {"duration": seconds, "groups.1.count": n - 1, "groups.1.controller.class": FOLLOWERS[controller],
           "output.trace.positions_every": None, "output.trace.network": False, "output.trace.records": False}
    if layout == "line":
        off["world.arena_lower"] = [-0.05 * n - 1, -3, 0]
        if controller in ("ticked", "ticked_compiled"):  # steps at the group's instants
            off["groups.1.controller.phase"] = 0
        if controller == "idle":  # the framework's floor: a group tick that does nothing, at Kilombo's rate
            off["groups.1.controller.period"] = 0.03225
            off["groups.1.controller.params"] = {}
        return cosim.load(ROOT / "configs" / "kilombo_follow_group.yaml", off)
    off["groups.1.layout.columns"] = min(32, n - 1)
    return cosim.load(ROOT / "configs" / "kilombo_follow.yaml", off)


def follow(layout: str, controller: str, n: int, seconds: float) -> dict:
    s = scenario(layout, controller, n, seconds)
    t0 = time.perf_counter()
    sim = cosim.build(s)
    t1 = time.perf_counter()
    sim.run()
    wall = time.perf_counter() - t1
    sim_s = sim.clock.now_ns / 1e9
    c = sim.counters
    return {"workload": f"kilombo_follow_the_leader_{layout}", "controller": controller, "engine": sim.engine_path,
            "N": n, "simulated_s": sim_s,
            "build_s": round(t1 - t0, 3), "wall_s": round(wall, 3), "real_time_factor": round(sim_s / wall, 1),
            "messages_sent": c.sent,
            "receptions": c.delivered, "wall_physics_s": round(c.wall_physics_s, 3),
            "wall_per_simulated_s_ms": round(1e3 * wall / sim_s, 3)}


COLD = """
import sys, time
t0 = time.perf_counter()
sys.path.insert(0, sys.argv[1])
from benchmarks.kilombo import kilolib_line
import cosim
from benchmarks.kilombo import KILOLIB
sim = cosim.build(kilolib_line(KILOLIB["compiled"], 10, 0.1))
sim.run()
print(time.perf_counter() - t0)
"""


def compile_times() -> dict:
    """Build and run a 0.1 s compiled scenario in a fresh process: with empty caches, then again."""
    import os
    import subprocess

    with tempfile.TemporaryDirectory() as cache:
        inherited = ("NUMBA_CACHE_DIR", "COSIM_NUMBA_CACHE")  # this process's folder: the child chooses its own
        env = {k: v for k, v in os.environ.items() if k not in inherited} | {"COSIM_CACHE_DIR": cache}
        times = [float(subprocess.run([sys.executable, "-c", COLD, str(ROOT)], env=env, capture_output=True, text=True,
                                      check=True).stdout) for _ in range(2)]
    base = float(subprocess.run([sys.executable, "-c", "import time; t = time.perf_counter(); import cosim; "
                                 "print(time.perf_counter() - t)"], capture_output=True, text=True, check=True).stdout)
    return {"workload": "compiled_kilolib_follow_compile", "first_compile_s": round(times[0], 2),
            "cached_load_s": round(times[1], 2), "import_cosim_s": round(base, 2)}


PLAIN = ROOT / "benchmarks" / "kilombo_follow.yaml"


def run_plain(n: int, seconds: float, folder: Path) -> dict:
    """`cosim run` on the plain scenario file (the compiled kilolib programs, line layout), n robots."""
    m = cosim_run(PLAIN, folder / f"plain_{n}", seconds,
                  (f"groups.1.count={n - 1}", f"world.arena_lower=[{-0.05 * n - 1}, -3, 0]"))
    return {"workload": "kilombo_follow_the_leader_plain_cosim_run", "controller": "compiled", **m,
            "wall_per_simulated_s_ms": round(1e3 * m["wall_s"] / m["simulated_s"], 3)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--layout", choices=["line", "snake"], default="line")
    ap.add_argument("--controller", choices=sorted([*FOLLOWERS, *KILOLIB]), default="group")
    ap.add_argument("--n", type=int, nargs="*", default=[10, 100, 1000, 10000])
    ap.add_argument("--seconds", type=float, default=60.0)
    ap.add_argument("--compile-times", action="store_true", help="only measure the compiled program's compile and cached load")
    ap.add_argument("--plain-only", action="store_true", help="only `cosim run` on the plain scenario file")
    args = ap.parse_args()
    if args.compile_times:
        print(json.dumps(compile_times()), flush=True)
        return
    with tempfile.TemporaryDirectory(prefix="kilombo-plain-") as tmp:
        run_plain(10, 0.5, Path(tmp))  # not printed: the cache's first load in a new process tree
        for n in args.n:
            print(json.dumps(run_plain(n, args.seconds, Path(tmp))), flush=True)
    if args.plain_only:
        return
    follow(args.layout, args.controller, 300, 1.0)  # warm-up, not printed: every kernel's one-off load (or compile)
    for n in args.n:
        print(json.dumps(follow(args.layout, args.controller, n, args.seconds)), flush=True)


if __name__ == "__main__":
    main()
