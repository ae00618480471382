"""MAVLink command latency and loss against distance, carried by the simulated radio; prints JSON lines.

A ground station in the scenario (cosim.mavlink.ground_control:LinkProbe, on the simulated clock)
sends a TIMESYNC every 0.5 s to one served ArduCopter at distance d, once it heard the vehicle's
heartbeat (a vehicle never heard counts as all lost), over 802.11g (log-distance path
loss, exponent 3: configs/mavlink_over_radio.yaml's radio) and times each answer; the vehicle also
streams its heartbeat, so the link carries traffic both ways. Both engines, the same scenario.

    python benchmarks/mavlink_radio.py                       # fast and ns3, 9 distances, 60 s each
    python benchmarks/mavlink_radio.py --engines fast --seconds 20 --figure docs/figures/mavlink_radio.png
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

import numpy as np  # noqa: E402

import cosim  # noqa: E402

DISTANCES = (10, 20, 30, 40, 45, 50, 55, 60, 80)


def scenario(engine: str, distance_m: float, seconds: float, seed: int = 1) -> dict:
    """One ground station at the origin and one served ArduCopter `distance_m` east of it."""
    return {
        "name": f"mavlink_radio_{engine}_{distance_m:g}m", "seed": seed, "duration": seconds, "quantum": "10 ms",
        "physics": {"backend": "kinematic", "dt": "10 ms"},
        "network": {"backend": engine, "radio": {"standard": "802.11g", "pathloss": {"model": "log_distance", "exponent": 3.0}}},
        "world": {"arena_lower": [-10, -10, 0], "arena_upper": [distance_m + 10, 10, 20]},
        "output": {"trace": {"positions_every": 1.0}},
        "mavlink": {"speed": 1000.0, "ground_station": {"group": "gcs"},
                    "serve": [{"group": "copter", "personality": "ardupilot", "port": 0}]},
        "groups": [
            {"name": "gcs", "count": 1, "robot": {"model": "point", "radius": 0.2},
             "layout": {"type": "list", "points": [[0, 0, 1]]},
             "controller": {"class": "cosim.mavlink.ground_control:LinkProbe", "params": {"period": 0.5}}},
            {"name": "copter", "count": 1, "robot": {"model": "quadrotor", "airframe": "quad_1500g"},
             "layout": {"type": "list", "points": [[distance_m, 0, 0]]}},
        ],
    }


def measure(engine: str, distance_m: float, seconds: float) -> dict:
    """Probes sent and answered, loss and round trips (ms) of one run, with its speed."""
    with tempfile.TemporaryDirectory() as tmp:
        t0 = time.perf_counter()
        result = cosim.run(cosim.from_dict(scenario(engine, distance_m, seconds)), out_dir=Path(tmp) / "run")
        wall = time.perf_counter() - t0
        if result.status != "ok":
            raise RuntimeError(result.error)
        records = cosim.read_run(result.directory).trace("records").to_pydict()
    names = np.array(records["name"])
    rtt = np.array(records["value"])[names == "rtt_ms.1"]
    sent = int(np.count_nonzero(names == "ping.1"))
    return {"workload": "mavlink_radio", "engine": engine, "distance_m": distance_m, "N": 2, "simulated_s": seconds,
            "wall_s": round(wall, 2), "real_time_factor": round(result.metrics["real_time_factor"], 1),
            "heard": bool(sent), "probes": sent, "answered": len(rtt),
            "loss": round(1.0 - len(rtt) / sent, 4) if sent else 1.0,  # never heard: nothing gets through
            "rtt_median_ms": round(float(np.median(rtt)), 3) if len(rtt) else None,
            "rtt_p95_ms": round(float(np.percentile(rtt, 95)), 3) if len(rtt) else None}


def figure(rows: list[dict], path: Path) -> None:
    """Loss and median round trip against distance, one line per engine."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (loss_ax, rtt_ax) = plt.subplots(1, 2, figsize=(9, 3.4))
    for engine, style in zip(sorted({r["engine"] for r in rows}), ("o-", "x--")):
        mine = [r for r in rows if r["engine"] == engine]
        d = [r["distance_m"] for r in mine]
        loss_ax.plot(d, [100 * r["loss"] for r in mine], style, label=engine, markersize=8)
        rtt_ax.plot([r["distance_m"] for r in mine if r["rtt_median_ms"] is not None],
                    [r["rtt_median_ms"] for r in mine if r["rtt_median_ms"] is not None], style, label=engine, markersize=8)
    loss_ax.set(xlabel="distance (m)", ylabel="probes lost (%)", title="MAVLink loss")
    rtt_ax.set(xlabel="distance (m)", ylabel="median round trip (ms)", title="MAVLink round trip")
    for ax in (loss_ax, rtt_ax):
        ax.grid(alpha=0.3)
        ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--engines", nargs="+", default=["fast", "ns3"], choices=["fast", "ns3"])
    ap.add_argument("--distances", nargs="+", type=float, default=list(DISTANCES))
    ap.add_argument("--seconds", type=float, default=60.0)
    ap.add_argument("--figure", type=Path, help="write the loss and round-trip figure here (PNG)")
    args = ap.parse_args()
    rows = []
    for engine in args.engines:
        for d in args.distances:
            rows.append(measure(engine, d, args.seconds))
            print(json.dumps(rows[-1]), flush=True)
    if args.figure is not None:
        figure(rows, args.figure)


if __name__ == "__main__":
    main()
