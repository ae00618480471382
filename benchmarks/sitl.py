"""What flying a quadrotor with ArduPilot firmware over JSON SITL costs per simulated second; prints JSON lines.

The scenario is configs/sitl_copter.yaml (one firmware-flown quadrotor beside three simulated
ones, a fast radio). The firmware is the stand-in (cosim.mavlink.sitl.standin), run in its own
process as the real firmware is, so its cost is not ours; it arms at 1 s and climbs to 3 m.

- `own_controller`: the same scenario with the quadrotor flown by our own controller (no firmware):
  the cost of the simulation itself, at the 400 Hz control tick.
- `sitl_<rate>`: the firmware asks for `rate` Hz (SIM_RATE_HZ; ArduCopter's SITL default is 1200),
  and the coupling answers every frame: the bank ticks at that rate and each frame is one UDP
  round trip to the firmware.

    python benchmarks/sitl.py                  # 10 simulated seconds, 1200 and 2000 Hz
    python benchmarks/sitl.py --seconds 30 --rates 1200
"""

from __future__ import annotations

import argparse
import json
import socket
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import cosim  # noqa: E402

CONFIG = ROOT / "configs" / "sitl_copter.yaml"
FIRMWARE = """
import socket, sys, time
from cosim.mavlink.sitl.standin import StandInFirmware
while True:  # start once the run listens (its port taken), as one starts the firmware after `cosim run`
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
            probe.bind(("127.0.0.1", int(sys.argv[1])))
        time.sleep(0.01)
    except OSError:
        break
fw = StandInFirmware(int(sys.argv[1]), sim_rate_hz=int(sys.argv[2]), arm_at_s=1.0, position_after_s=1.0).start()
sys.stdin.read()
fw.stop()
print(len(fw.states), fw.statustexts[-1][1] if fw.statustexts else "", flush=True)
"""


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _case(workload: str, overrides: dict, seconds: float, rate: int | None) -> dict:
    overrides = {"duration": seconds, "output.trace": None, **overrides}
    firmware = None
    if rate is not None:
        port = _free_port()
        overrides["mavlink.sitl.0.port"] = port
        firmware = subprocess.Popen([sys.executable, "-c", FIRMWARE, str(port), str(rate)], stdin=subprocess.PIPE,
                                    stdout=subprocess.PIPE, text=True, cwd=ROOT)
    scenario = cosim.load(CONFIG, overrides)
    t0 = time.perf_counter()
    result = cosim.run(scenario, out_dir=ROOT / "benchmarks" / "out" / f"sitl-{workload}", overwrite=True)
    wall = time.perf_counter() - t0
    row = {"workload": workload, "N": scenario.n_nodes, "sim_s": seconds, "wall_s": round(wall, 3),
           "rtf": round(seconds / wall, 2), "status": result.status, "wall_ms_per_sim_s": round(1000 * wall / seconds, 1)}
    if firmware is not None:
        out, _ = firmware.communicate("", timeout=30)
        stats = result.metrics["sitl"]["robot0"]
        row.update(frames=stats["frames"], us_per_frame=round(1e6 * wall / stats["frames"], 1), firmware=out.strip())
    return row


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=10.0)
    ap.add_argument("--rates", type=int, nargs="+", default=[1200, 2000])
    args = ap.parse_args()
    own = {"mavlink": None, "groups.0.controller.class": "controllers.library.waypoints:WaypointFlyer",
           "groups.0.controller.params": {"waypoints": [[0, 0, 3]]}}
    print(json.dumps(_case("own_controller", own, args.seconds, None)), flush=True)
    for rate in args.rates:
        print(json.dumps(_case(f"sitl_{rate}", {}, args.seconds, rate)), flush=True)


if __name__ == "__main__":
    main()
