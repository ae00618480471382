"""How many simulated vehicles a scenario can serve over MAVLink, and how fast; prints JSON lines.

N quadrotors of a scenario are served on one UDP port on 127.0.0.1 (PX4 personality) while a
pymavlink ground station in a thread sends heartbeats and reads everything they stream (each
vehicle: heartbeat at 1 Hz, position and attitude at 10 Hz, status at 2 Hz). The scenario runs
unpaced-fast (`speed` 1000: pacing never sleeps) to show the headroom, then paced at real time to
count overruns (the fast run's overruns only say it never waited).

    python benchmarks/mavlink.py                    # N = 10, 50, 100; 10 simulated seconds
    python benchmarks/mavlink.py --n 200 --seconds 20
"""

from __future__ import annotations

import argparse
import json
import socket
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from pymavlink.dialects.v20 import common as mav  # noqa: E402

import cosim  # noqa: E402


def _free_port() -> int:
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def _ground_station(port: int, stop: threading.Event, counts: dict) -> None:
    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    sock.settimeout(0.05)
    codec = mav.MAVLink(None, srcSystem=255, srcComponent=190)
    codec.robust_parsing = True
    next_hb = 0.0
    while not stop.is_set():
        now = time.monotonic()
        if now >= next_hb:
            sock.sendto(mav.MAVLink_heartbeat_message(mav.MAV_TYPE_GCS, mav.MAV_AUTOPILOT_INVALID, 0, 0, 0, 3).pack(codec),
                        ("127.0.0.1", port))
            next_hb = now + 1.0
        try:
            data = sock.recv(65536)
        except (TimeoutError, ConnectionRefusedError):
            continue
        counts["messages"] += len(codec.parse_buffer(data) or [])
    sock.close()


def served(n: int, seconds: float, speed: float) -> dict:
    port = _free_port()
    scenario = cosim.from_dict({
        "name": "served", "seed": 1, "duration": seconds, "quantum": "10 ms",
        "physics": {"backend": "kinematic", "dt": "10 ms"}, "network": {"backend": "none"},
        "world": {"arena_lower": [-200, -200, 0], "arena_upper": [200, 200, 50]},
        "output": {"trace": {"positions_every": None, "network": False}},
        "mavlink": {"speed": speed, "serve": [{"group": "quads", "port": port, "personality": "px4"}]},
        "groups": [{"name": "quads", "count": n, "robot": {"model": "quadrotor", "airframe": "crazyflie"},
                    "layout": {"type": "grid", "origin": [0, 0, 0], "spacing": 2.0, "columns": 20},
                    "controller": {"class": "controllers:Controller"}}],
    }, "benchmarks/mavlink.py")
    stop, counts = threading.Event(), {"messages": 0}
    sim = cosim.build(scenario)  # binds the port
    gcs = threading.Thread(target=_ground_station, args=(port, stop, counts))
    gcs.start()
    try:
        sim.run()
    finally:
        stop.set()
        gcs.join()
    rt = sim.extensions[0].metrics()["realtime"]
    sim_s = sim.clock.now_ns / 1e9
    return {"workload": "mavlink_served_quadrotors", "N": n, "speed": speed, "simulated_s": sim_s,
            "wall_s": round(sim.wall_s, 3), "real_time_factor": round(sim_s / sim.wall_s, 2),
            "overruns": rt["overruns"], "worst_late_ms": round(rt["worst_late_s"] * 1e3, 1),
            "messages_to_gcs": counts["messages"]}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--n", type=int, nargs="*", default=[10, 50, 100])
    ap.add_argument("--seconds", type=float, default=10.0)
    args = ap.parse_args()
    for n in args.n:
        print(json.dumps(served(n, args.seconds, 1000.0)), flush=True)
        print(json.dumps(served(n, args.seconds, 1.0)), flush=True)


if __name__ == "__main__":
    main()
