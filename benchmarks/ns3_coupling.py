"""Cost of coupling ns-3 to the coordinator, and Simbeeotic's broadcast workload on ns-3; prints JSON.

(a) storm: N static nodes uniform in a 200 m square, 802.11b, each broadcasting 100 bytes at 1 Hz
    with a seeded random phase, 10 simulated seconds. The co-simulation's wall time is compared
    with the same frames pre-scheduled inside ns-3 and run in one Simulator::Run (the same C++
    helper records the deliveries in both). Target: overhead <= 15% at N = 200.
(b) simbeeotic: the core issue's broadcast workload (random walk at 10 Hz, compass at 1 Hz, 4-byte
    broadcast at 1 Hz, start within 20 m of the origin) with ns-3 802.11b as the network.
    Target: 400 robots at 1x real time or faster.

    python benchmarks/ns3_coupling.py                  # both, at the issue's sizes
    python benchmarks/ns3_coupling.py --only storm --n 200 --repeat 3
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

from benchmarks.cli_run import plain_line  # noqa: E402

sys.path.insert(0, str(ROOT / "benchmarks"))

import numpy as np  # noqa: E402

import cosim  # noqa: E402
from cosim.core.seeding import SeedStreams  # noqa: E402

STORM_SECONDS = 10.0


def storm_scenario(n: int, seed: int) -> cosim.Scenario:
    rng = np.random.default_rng(seed)
    points = np.column_stack([rng.uniform(0, 200, n), rng.uniform(0, 200, n), np.ones(n)]).round(3).tolist()
    return cosim.from_dict({
        "name": f"storm-{n}", "seed": seed, "duration": STORM_SECONDS, "quantum": "10 ms",
        "physics": {"backend": "kinematic", "dt": "10 ms", "collisions": False},
        "network": {"backend": "ns3", "radio": {"standard": "802.11b"}},
        "world": {"arena_lower": [-10, -10, 0], "arena_upper": [210, 210, 10]},
        "groups": [{"name": "nodes", "count": n, "layout": {"type": "list", "points": points},
                    "robot": {"max_speed": 0.0},
                    "controller": {"class": "controllers.library.probes:PeriodicBroadcast",
                                   "params": {"interval": 1.0, "size": 100}}}],
        "output": {"trace": {"positions_every": None, "network": False, "records": False}},
    }, source=f"benchmarks/ns3_coupling.py:storm-{n}")


def cosim_storm(s: cosim.Scenario) -> tuple[float, int]:
    sim = cosim.build(s)
    sim.run()
    wall = sim.wall_s
    delivered = sim.counters.delivered
    sim.net.close()
    return wall, delivered


def pure_ns3_storm(s: cosim.Scenario) -> tuple[float, int]:
    """The same frames at the same times, scheduled up front, one Simulator::Run."""
    from netstack.ns3.backend import Ns3Backend

    streams = SeedStreams(s.seed)
    n = s.n_nodes
    net = Ns3Backend(s.network.radio.ns3_config(), streams.integer("ns3.seed") or 1, streams.integer("ns3.run"))
    for i in range(n):
        net.add_node(i)
    pos = np.array(s.groups[0].layout.points, dtype=float)
    net.set_positions(0, pos, np.zeros_like(pos))
    payload = bytes(i % 251 for i in range(100))
    period = 1_000_000_000
    t0 = time.perf_counter()
    for i in range(n):
        phase = int(streams.generator("timers", i).integers(0, period))  # what NodeServices.every draws
        for t in range(phase, int(STORM_SECONDS * 1e9) + 1, period):
            net._net.SendAt(i, -1, payload, t)
    _, events = net.advance(int(STORM_SECONDS * 1e9))  # nobody listens: one Simulator::Run to the end
    wall = time.perf_counter() - t0
    delivered = len(events.dst) if events is not None else 0
    net.close()
    return wall, delivered


def storm(n: int, seed: int, repeat: int) -> dict:
    s = storm_scenario(n, seed)
    co, pure = [], []
    for _ in range(repeat):  # interleaved, so a change in machine load hits both alike
        co.append(cosim_storm(s))
        pure.append(pure_ns3_storm(s))
    if co[0][1] != pure[0][1]:
        print(f"warning: deliveries differ (co-sim {co[0][1]}, ns-3 alone {pure[0][1]})", file=sys.stderr)
    co_wall, pure_wall = min(w for w, _ in co), min(w for w, _ in pure)
    co_median = float(np.median([w for w, _ in co]))
    pure_median = float(np.median([w for w, _ in pure]))
    return {"workload": "storm", "N": n, "simulated_s": STORM_SECONDS, "wall_s": round(co_wall, 3),
            "ns3_alone_wall_s": round(pure_wall, 3), "coupling_overhead": round(co_wall / pure_wall - 1.0, 4),
            "coupling_overhead_median": round(co_median / pure_median - 1.0, 4), "repeats": repeat,
            "real_time_factor": round(STORM_SECONDS / co_wall, 3), "deliveries": co[0][1], "deliveries_ns3_alone": pure[0][1]}


def simbeeotic(n: int, duration: float, seed: int) -> dict:
    import simbeeotic as sb

    s = sb.scenario("broadcast", "kinematic", n, duration, seed, "10 ms", "10 ms",
                    network={"backend": "ns3", "radio": {"standard": "802.11b"}})
    with tempfile.TemporaryDirectory() as tmp:
        result = cosim.run(s, out_dir=Path(tmp) / "run")
    if result.status != "ok":
        raise SystemExit(f"run failed: {result.error}")
    m = result.metrics
    return {"workload": "simbeeotic-broadcast-ns3-802.11b", "N": n, "simulated_s": m["simulated_s"],
            "wall_s": round(m["wall_s"], 3), "real_time_factor": round(m["real_time_factor"], 3),
            "messages_sent": m["messages_sent"], "messages_delivered": m["messages_delivered"]}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--only", choices=["storm", "simbeeotic"])
    ap.add_argument("--n", type=int, action="append", help="sizes (repeatable)")
    ap.add_argument("--duration", type=float, default=30.0, help="simulated seconds for simbeeotic")
    ap.add_argument("--repeat", type=int, default=2, help="storm repetitions (the best is kept)")
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--plain-only", action="store_true", help="only `cosim run` on the plain scenario file")
    args = ap.parse_args()
    for n in args.n or [400]:  # Simbeeotic's broadcast workload on ns-3, from the file beside simbeeotic.py
        sets = (f"groups.0.count={n}", "groups.0.controller.params.radio_period=1.0", "network.backend=ns3",
                "network.radio.standard=802.11b")
        print(json.dumps(plain_line("simbeeotic_broadcast_ns3", ROOT / "benchmarks" / "simbeeotic.yaml", args.duration, sets)),
              flush=True)
    if args.plain_only:
        return
    if args.only in (None, "storm"):
        for n in args.n or [50, 200, 500]:
            print(json.dumps(storm(n, args.seed, args.repeat)), flush=True)
    if args.only in (None, "simbeeotic"):
        for n in args.n or [400]:
            print(json.dumps(simbeeotic(n, args.duration, args.seed)), flush=True)


if __name__ == "__main__":
    main()
