"""A served vehicle under a flood of senders (issue 17's attack): N sockets on 127.0.0.1 send to one
stand-in vehicle (PX4, paced at real time) as fast as one thread can, while a ground station beats
at 1 Hz and counts the vehicle's ATTITUDE messages (10 Hz expected). Prints one JSON line per case:
senders, what they send (valid heartbeats or junk bytes), seconds, datagrams sent, the ground
station's ATTITUDE rate, the vehicle's worst pacing lateness, and its peers at the end.

    python benchmarks/mavlink_flood.py                     # 3,000 senders, valid and junk, 10 s each
    python benchmarks/mavlink_flood.py --senders 300 --seconds 5
"""

from __future__ import annotations

import argparse
import json
import socket
import threading
import time

from pymavlink.dialects.v20 import common as mav

from cosim.mavlink.serve.standin import StandInVehicle


def _heartbeat(src: int) -> bytes:
    codec = mav.MAVLink(None, srcSystem=src % 250 + 1, srcComponent=190)
    return mav.MAVLink_heartbeat_message(mav.MAV_TYPE_GCS, mav.MAV_AUTOPILOT_INVALID, 0, 0, 0, 3).pack(codec)


def flood(port: int, senders: int, kind: str, stop: threading.Event, sent: list[int]) -> None:
    socks = [socket.socket(socket.AF_INET, socket.SOCK_DGRAM) for _ in range(senders)]
    for s in socks:
        s.setblocking(False)
    payloads = [_heartbeat(k) if kind == "valid" else b"\xfd\x09junk" + bytes(32) for k in range(senders)]
    while not stop.is_set():
        for s, data in zip(socks, payloads):
            try:
                s.sendto(data, ("127.0.0.1", port))
                sent[0] += 1
            except (BlockingIOError, OSError):
                pass
    for s in socks:
        s.close()


def ground_station(port: int, seconds: float) -> float:
    """ATTITUDE messages per second the ground station received over `seconds` (after 1 s to join)."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    sock.settimeout(0.05)
    codec = mav.MAVLink(None, srcSystem=255, srcComponent=190)
    beat = mav.MAVLink_heartbeat_message(mav.MAV_TYPE_GCS, mav.MAV_AUTOPILOT_INVALID, 0, 0, 0, 3)
    start = time.monotonic()
    counting_from, count, next_beat = start + 1.0, 0, start
    while time.monotonic() < counting_from + seconds:
        if time.monotonic() >= next_beat:
            sock.sendto(beat.pack(codec), ("127.0.0.1", port))
            next_beat += 1.0
        try:
            data = sock.recv(65536)
        except TimeoutError:
            continue
        if time.monotonic() >= counting_from:
            count += sum(m.get_type() == "ATTITUDE" for m in codec.parse_buffer(data) or [])
    sock.close()
    return count / seconds


def case(senders: int, kind: str, seconds: float) -> dict:
    vehicle = StandInVehicle("px4", 0).start()
    stop, sent = threading.Event(), [0]
    flooder = threading.Thread(target=flood, args=(vehicle.port, senders, kind, stop, sent), daemon=True)
    flooder.start()
    rate = ground_station(vehicle.port, seconds)
    stop.set()
    flooder.join()
    peers = len(vehicle.endpoint.transport.peers)
    vehicle.stop()
    return {"workload": "mavlink_flood", "senders": senders, "sending": kind, "seconds": seconds, "datagrams": sent[0],
            "gcs_attitude_hz": round(rate, 2), "worst_late_s": round(vehicle.stats.worst_late_s, 3), "peers_at_end": peers}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--senders", type=int, default=3000)
    ap.add_argument("--seconds", type=float, default=10.0)
    args = ap.parse_args()
    for kind in ("valid", "junk"):
        print(json.dumps(case(args.senders, kind, args.seconds)), flush=True)


if __name__ == "__main__":
    main()
