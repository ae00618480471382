"""The PPSN 2004 MANET scenario (configs/ppsn2004_manet.yaml) per routing protocol; prints JSON lines.

Each run: 50 nodes, random waypoint, 20 CBR sessions, ns-3 802.11b at 2 Mbit/s, 900 simulated
seconds. `wall_s` is the simulation loop (build and trace writing excluded; ns-3's one-off import,
about 6 s per process, is reported once as `ns3_import_s`). Target: 900 simulated seconds in at most
90 wall seconds per run.

    python benchmarks/routing.py                                 # anthocnet and aodv, seed 1
    python benchmarks/routing.py --protocols anthocnet aodv olsr dsdv --duration 300 --seeds 1 2
"""

from __future__ import annotations

import argparse
import json
import platform
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import cosim  # noqa: E402
from benchmarks.cli_run import plain_line  # noqa: E402

SCENARIO = ROOT / "configs" / "ppsn2004_manet.yaml"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--protocols", nargs="+", default=["anthocnet", "aodv"])
    ap.add_argument("--duration", type=float, default=900.0)
    ap.add_argument("--seeds", nargs="+", type=int, default=[1])
    ap.add_argument("--plain-only", action="store_true", help="only `cosim run` on the plain scenario file")
    args = ap.parse_args()
    for protocol in args.protocols:  # the shipped file as users run it, one key switching the protocol
        print(json.dumps(plain_line(f"ppsn2004_manet_{protocol}", ROOT / "configs" / "ppsn2004_manet.yaml", args.duration,
                                    (f"network.routing.protocol={protocol}",))), flush=True)
    if args.plain_only:
        return
    t0 = time.perf_counter()
    from netstack.ns3.loader import load

    load()
    print(json.dumps({"ns3_import_s": round(time.perf_counter() - t0, 2), "machine": platform.machine(),
                      "python": platform.python_version()}), flush=True)
    for seed in args.seeds:
        for protocol in args.protocols:
            overrides = {"seed": seed, "duration": args.duration, "network.routing.protocol": protocol}
            scenario = cosim.load(SCENARIO, overrides)
            with tempfile.TemporaryDirectory() as tmp:
                result = cosim.run(scenario, out_dir=Path(tmp) / "run")
            m = result.metrics
            r = m.get("routing", {})
            print(json.dumps({
                "workload": "ppsn2004_manet", "protocol": protocol, "seed": seed, "N": m.get("nodes"),
                "simulated_s": m.get("simulated_s"), "wall_s": round(m.get("wall_s", 0.0), 2),
                "real_time_factor": round(m.get("real_time_factor", 0.0), 2), "status": result.status,
                "wall_network_s": round(m.get("wall_network_s", 0.0), 2),
                "delivery_ratio": r.get("delivery_ratio"), "delay_median_s": r.get("delay_median_s"),
                "control_frames": r.get("control_frames"),
            }), flush=True)


if __name__ == "__main__":
    main()
