"""Reference flights: one pymavlink ground-station script flown against real ArduCopter SITL and
against our stand-in, recorded as positions and speeds over the vehicle's own time, and the
manoeuvres' figures (durations, peak speeds) computed the same way on both.

The flight: GUIDED take-off to 10 m; position targets 20 m north, 100 m east, 15 m up and back
down; a velocity target of 4 m/s west for 10 s, then zero; a mission in AUTO (60 m north and
back); RTL to landing; a second take-off to 20 m and LAND.
`--params changed` sets the speed, acceleration, landing and return parameters first (PARAM_SET),
so the same flight shows what each one does.

    python benchmarks/firmware_flights.py --connect tcp:127.0.0.1:5760 --out flight.csv   # firmware
    python benchmarks/firmware_flights.py --standin --params changed                      # ours

The recorded firmware flights are tests/data/ardupilot/*.csv (ArduCopter V4.7.0-dev SITL, stock
copter.parm); tests/cosim/mavlink/test_firmware_flights.py flies the stand-in the same way and
holds every figure within 10% of the firmware's.
"""

from __future__ import annotations

import argparse
import csv
import json
import math
import sys
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from pymavlink import mavutil  # noqa: E402
from pymavlink.dialects.v20 import ardupilotmega as mav  # noqa: E402

CHANGED = {"WPNAV_SPEED": 500.0, "WPNAV_SPEED_UP": 150.0, "WPNAV_SPEED_DN": 100.0, "WPNAV_ACCEL": 150.0,
           "LAND_SPEED": 30.0, "LAND_ALT_LOW": 500.0, "RTL_ALT": 2000.0, "RTL_SPEED": 300.0}
"""The parameters `--params changed` sets (ArduPilot's units: cm, cm/s, cm/s/s)."""
COLUMNS = ("t", "phase", "north", "east", "up", "v_north", "v_east", "v_up", "mode", "armed", "seq")
POSITION_ONLY = 0b0000_1111_1111_1000
VELOCITY_ONLY = 0b0000_1111_1100_0111
M_PER_DEG = 111_319.49


@dataclass
class Sample:
    """One LOCAL_POSITION_NED, turned to north/east/up, with the state it was flown in."""

    t: float
    phase: str
    north: float
    east: float
    up: float
    v_north: float
    v_east: float
    v_up: float
    mode: int
    armed: int
    seq: int

    @property
    def speed(self) -> float:
        return math.hypot(self.v_north, self.v_east)


class Flight:
    """A pymavlink link to one vehicle, recording what it reports; times are the vehicle's (s)."""

    def __init__(self, connect: str, record: list[Sample] | None = None, wall_timeout_s: float = 900.0) -> None:
        self.link = mavutil.mavlink_connection(connect, source_system=255, source_component=190, dialect="ardupilotmega")
        self.samples: list[Sample] = [] if record is None else record
        self.phase = "ground"
        self.t = 0.0
        self.mode = 0
        self.armed = 0
        self.seq = 0
        self.geo: tuple[float, float] | None = None  # the latest latitude and longitude (deg)
        self.deadline = time.monotonic() + wall_timeout_s
        self._beat = 0.0

    # -- receiving -----------------------------------------------------------------------------
    def pump(self) -> list:
        """Read what arrived (about 20 ms) and keep the samples. Our heartbeat goes out ten times a
        wall second: the stand-in may run faster than the wall clock."""
        if time.monotonic() > self.deadline:
            raise TimeoutError(f"the flight took longer than its wall budget (phase {self.phase})")
        if time.monotonic() - self._beat > 0.1:
            self._beat = time.monotonic()
            self.link.mav.heartbeat_send(mav.MAV_TYPE_GCS, mav.MAV_AUTOPILOT_INVALID, 0, 0, 0)
        got = []
        m = self.link.recv_match(blocking=True, timeout=0.02)
        while m is not None:
            got.append(m)
            self._note(m)
            m = self.link.recv_match(blocking=False)
        return got

    def _note(self, m) -> None:
        kind = m.get_type()
        if kind == "HEARTBEAT" and m.get_srcSystem() == self.link.target_system and m.type != mav.MAV_TYPE_GCS:
            self.mode = m.custom_mode
            self.armed = int(bool(m.base_mode & mav.MAV_MODE_FLAG_SAFETY_ARMED))
        elif kind == "MISSION_CURRENT":
            self.seq = m.seq
        elif kind == "GLOBAL_POSITION_INT" and (m.lat != 0 or m.lon != 0):
            self.geo = (m.lat * 1e-7, m.lon * 1e-7)
        elif kind == "LOCAL_POSITION_NED":
            self.t = m.time_boot_ms / 1000.0
            self.samples.append(Sample(self.t, self.phase, m.x, m.y, -m.z, m.vx, m.vy, -m.vz, self.mode, self.armed,
                                       self.seq))

    @property
    def last(self) -> Sample:
        return self.samples[-1]

    def wait(self, what: str, done, within_s: float) -> None:
        """Pump until `done()` holds; at most `within_s` of the vehicle's time."""
        start = self.t
        while not (self.samples and done()):
            self.pump()
            if self.t - start > within_s:
                raise TimeoutError(f"{what}: not within {within_s:g} s of the vehicle's time")

    def hold_for(self, seconds: float, each=None) -> None:
        end = self.t + seconds
        while self.t < end:
            if each is not None:
                each()
            self.pump()

    # -- sending -------------------------------------------------------------------------------
    def command(self, cmd: int, *params: float, tries: int = 3) -> int:
        p = [*params] + [0.0] * (7 - len(params))
        for _ in range(tries):
            self.link.mav.command_long_send(self.link.target_system, 1, cmd, 0, *p)
            start = self.t
            while self.t - start < 2.0:
                for m in self.pump():
                    if m.get_type() == "COMMAND_ACK" and m.command == cmd:
                        return m.result
        raise TimeoutError(f"no COMMAND_ACK for command {cmd}")

    def set_mode(self, number: int) -> None:
        result = self.command(mav.MAV_CMD_DO_SET_MODE, mav.MAV_MODE_FLAG_CUSTOM_MODE_ENABLED, number)
        if result != mav.MAV_RESULT_ACCEPTED:
            raise RuntimeError(f"mode {number} refused ({result})")
        self.wait(f"mode {number}", lambda: self.mode == number, 10.0)

    def set_param(self, name: str, value: float) -> None:
        for _ in range(5):
            self.link.mav.param_set_send(self.link.target_system, 1, name.encode(), value, mav.MAV_PARAM_TYPE_REAL32)
            start = self.t
            while self.t - start < 1.0:
                for m in self.pump():
                    if m.get_type() == "PARAM_VALUE" and m.param_id == name and abs(m.param_value - value) < 1e-3:
                        return
        raise RuntimeError(f"PARAM_SET {name}={value:g} was not taken")

    def target(self, north: float, east: float, up: float) -> None:
        self.link.mav.set_position_target_local_ned_send(0, self.link.target_system, 1, mav.MAV_FRAME_LOCAL_NED,
                                                         POSITION_ONLY, north, east, -up, 0, 0, 0, 0, 0, 0, 0, 0)

    def velocity(self, v_north: float, v_east: float) -> None:
        self.link.mav.set_position_target_local_ned_send(0, self.link.target_system, 1, mav.MAV_FRAME_LOCAL_NED,
                                                         VELOCITY_ONLY, 0, 0, 0, v_north, v_east, 0, 0, 0, 0, 0, 0)

    def upload(self, points: list[tuple[float, float, float]]) -> None:
        """A mission of NAV_WAYPOINTs at (north, east, up) in the local frame (placed on the globe
        from where the vehicle is now)."""
        lat0, lon0 = self.geo
        here = self.last
        items = [(mav.MAV_CMD_NAV_WAYPOINT, 0, 0, 0, 0, lat0, lon0, 0.0)]
        for n, e, u in points:
            lat = lat0 + (n - here.north) / M_PER_DEG
            lon = lon0 + (e - here.east) / (M_PER_DEG * math.cos(math.radians(lat0)))
            items.append((mav.MAV_CMD_NAV_WAYPOINT, 0, 0, 0, 0, lat, lon, u))
        self.link.mav.mission_count_send(self.link.target_system, 1, len(items), mav.MAV_MISSION_TYPE_MISSION)
        while True:
            for m in self.pump():
                if m.get_type() in ("MISSION_REQUEST_INT", "MISSION_REQUEST"):
                    cmd, p1, p2, p3, p4, lat, lon, alt = items[m.seq]
                    frame = mav.MAV_FRAME_GLOBAL_RELATIVE_ALT_INT
                    self.link.mav.mission_item_int_send(self.link.target_system, 1, m.seq, frame, cmd, 0, 1, p1, p2, p3,
                                                        p4, round(lat * 1e7), round(lon * 1e7), alt,
                                                        mav.MAV_MISSION_TYPE_MISSION)
                elif m.get_type() == "MISSION_ACK":
                    if m.type != mav.MAV_MISSION_ACCEPTED:
                        raise RuntimeError(f"mission refused ({m.type})")
                    return


def _near(f: Flight, north: float, east: float, up: float, within: float = 0.3) -> bool:
    s = f.last
    off = math.dist((s.north, s.east, s.up), (north, east, up))
    return off < within and s.speed < 0.2 and abs(s.v_up) < 0.2


def _goto(f: Flight, phase: str, north: float, east: float, up: float) -> None:
    f.phase = phase
    f.target(north, east, up)
    f.wait(phase, lambda: _near(f, north, east, up), 90.0)
    f.hold_for(1.0)


def _take_off(f: Flight, phase: str, up: float) -> None:
    f.phase = "ground"
    f.set_mode(4)  # GUIDED
    start = f.t
    while f.command(mav.MAV_CMD_COMPONENT_ARM_DISARM, 1) != mav.MAV_RESULT_ACCEPTED:
        if f.t - start > 120.0:
            raise TimeoutError("the vehicle did not arm within 120 s of its time")
        f.hold_for(1.0)
    f.phase = phase
    if f.command(mav.MAV_CMD_NAV_TAKEOFF, 0, 0, 0, 0, 0, 0, up) != mav.MAV_RESULT_ACCEPTED:
        raise RuntimeError("take-off refused")
    f.wait(phase, lambda: abs(f.last.up - up) < 0.2 and abs(f.last.v_up) < 0.1, 90.0)
    f.hold_for(1.0)


def _until_disarmed(f: Flight, phase: str) -> None:
    f.phase = phase
    f.wait(phase, lambda: f.armed == 0, 240.0)
    f.hold_for(1.0)


def fly(connect: str, params: dict[str, float] | None = None, record: list[Sample] | None = None) -> list[Sample]:
    """Fly the reference flight on the vehicle at `connect` (a pymavlink connection string); the
    samples go to `record` as they come (so that a failed flight keeps what it recorded)."""
    f = Flight(connect, record)
    f.link.mav.heartbeat_send(mav.MAV_TYPE_GCS, mav.MAV_AUTOPILOT_INVALID, 0, 0, 0)
    f.link.wait_heartbeat(timeout=60)
    f.link.mav.request_data_stream_send(f.link.target_system, 1, mav.MAV_DATA_STREAM_ALL, 10, 1)
    f.wait("position", lambda: f.geo is not None, 120.0)
    for name, value in (params or {}).items():
        f.set_param(name, value)
    _take_off(f, "takeoff", 10.0)
    _goto(f, "north20", 20.0, 0.0, 10.0)
    _goto(f, "east100", 20.0, 100.0, 10.0)
    _goto(f, "climb15", 20.0, 100.0, 25.0)
    _goto(f, "sink15", 20.0, 100.0, 10.0)
    f.phase = "velocity"
    f.hold_for(10.0, lambda: f.velocity(0.0, -4.0))
    f.phase = "stop"
    f.hold_for(6.0, lambda: f.velocity(0.0, 0.0))
    f.phase = "upload"
    f.upload([(80.0, 60.0, 10.0), (20.0, 60.0, 10.0)])
    f.phase = "mission"
    f.set_mode(3)  # AUTO
    f.wait("mission", lambda: f.seq >= 2 and _near(f, 20.0, 60.0, 10.0, 1.0), 120.0)
    f.hold_for(1.0)
    f.phase = "rtl"
    f.set_mode(6)  # RTL
    _until_disarmed(f, "rtl")
    _take_off(f, "takeoff20", 20.0)
    f.phase = "land"
    f.set_mode(9)  # LAND
    _until_disarmed(f, "land")
    return f.samples


# -- the manoeuvres' figures ---------------------------------------------------------------------------
def _phase(samples: list[Sample], name: str) -> list[Sample]:
    return [s for s in samples if s.phase == name]


def _first(rows: list[Sample], cond) -> float:
    return next(s.t for s in rows if cond(s)) - rows[0].t


def _reach(rows: list[Sample], axis: str, fraction: float) -> float:
    """Time from the phase's start until `fraction` of the way along `axis` to where it ended."""
    start, goal = getattr(rows[0], axis), getattr(rows[-1], axis)
    return next(s.t for s in rows if abs(getattr(s, axis) - start) >= fraction * abs(goal - start)) - rows[0].t


def figures(samples: list[Sample]) -> dict[str, float]:
    """What each manoeuvre did: times (s) from its command, peak speeds (m/s)."""
    out: dict[str, float] = {}
    rows = _phase(samples, "takeoff")
    out["takeoff_to_9.5m_s"] = _first(rows, lambda s: s.up >= 9.5)
    out["takeoff_peak_climb_m_s"] = max(s.v_up for s in rows)
    for name, axis in (("north20", "north"), ("east100", "east")):
        rows = _phase(samples, name)
        out[f"{name}_to_95pct_s"] = _reach(rows, axis, 0.95)
        out[f"{name}_peak_speed_m_s"] = max(s.speed for s in rows)
    rows = _phase(samples, "climb15")
    out["climb15_peak_m_s"] = max(s.v_up for s in rows)
    out["climb15_to_95pct_s"] = _first(rows, lambda s: s.up - rows[0].up >= 0.95 * 15.0)
    rows = _phase(samples, "sink15")
    out["sink15_peak_m_s"] = -min(s.v_up for s in rows)
    out["sink15_to_95pct_s"] = _first(rows, lambda s: rows[0].up - s.up >= 0.95 * 15.0)
    rows = _phase(samples, "velocity")  # rise and fall times, 10% to 90% of 4 m/s: free of the command's latency
    out["velocity_rise_s"] = _first(rows, lambda s: s.speed >= 3.6) - _first(rows, lambda s: s.speed >= 0.4)
    rows = _phase(samples, "stop")
    out["stop_fall_s"] = _first(rows, lambda s: s.speed <= 0.4) - _first(rows, lambda s: s.speed <= 3.6)
    rows = _phase(samples, "mission")
    first_leg = [s for s in rows if s.seq <= 1]
    second_leg = [s for s in rows if s.seq >= 2]
    out["mission_leg1_peak_m_s"] = max(s.speed for s in first_leg)
    out["mission_leg2_peak_m_s"] = max(s.speed for s in second_leg)
    out["mission_s"] = _first(rows, lambda s: s.seq >= 2 and math.hypot(s.north - 20.0, s.east - 60.0) < 1.0)
    rows = _phase(samples, "rtl")
    out["rtl_peak_speed_m_s"] = max(s.speed for s in rows)
    out["rtl_peak_climb_m_s"] = max(s.v_up for s in rows)
    out["rtl_top_m"] = max(s.up for s in rows)
    out["rtl_to_disarm_s"] = _first(rows, lambda s: s.armed == 0)
    for name in ("rtl", "land"):
        rows = [s for s in _phase(samples, name) if s.armed]
        out[f"{name}_sink_below_4m_m_s"] = _median([-s.v_up for s in rows if 1.0 < s.up < 4.0])
    rows = _phase(samples, "land")
    out["land_sink_6_to_9m_m_s"] = _median([-s.v_up for s in rows if 6.0 < s.up < 9.0])
    out["land_sink_above_12m_m_s"] = _median([-s.v_up for s in rows if 12.0 < s.up < 18.0])
    out["land_to_disarm_s"] = _first(rows, lambda s: s.armed == 0)
    return out


def _median(values: list[float]) -> float:
    values = sorted(values)
    return values[len(values) // 2] if values else math.nan


# -- files -----------------------------------------------------------------------------------------------
def save(samples: list[Sample], path: Path) -> None:
    with open(path, "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(COLUMNS)
        for s in samples:
            w.writerow([f"{s.t:.3f}", s.phase, f"{s.north:.3f}", f"{s.east:.3f}", f"{s.up:.3f}", f"{s.v_north:.3f}",
                        f"{s.v_east:.3f}", f"{s.v_up:.3f}", s.mode, s.armed, s.seq])


def load(path: Path) -> list[Sample]:
    with open(path, newline="") as fh:
        rows = list(csv.DictReader(fh))
    return [Sample(float(r["t"]), r["phase"], float(r["north"]), float(r["east"]), float(r["up"]), float(r["v_north"]),
                   float(r["v_east"]), float(r["v_up"]), int(r["mode"]), int(r["armed"]), int(r["seq"])) for r in rows]


def fly_standin(params: dict[str, float] | None = None, speed: float = 8.0,
                record: list[Sample] | None = None) -> list[Sample]:
    """The reference flight on our ardupilot stand-in, paced at `speed` times the wall clock."""
    from cosim.mavlink.serve.standin import StandInVehicle

    vehicle = StandInVehicle("ardupilot", port=0, speed=speed).start()
    try:
        return fly(f"udpout:127.0.0.1:{vehicle.port}", params, record)
    finally:
        vehicle.stop()


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    where = ap.add_mutually_exclusive_group(required=True)
    where.add_argument("--connect", help="a pymavlink connection string (the firmware: tcp:127.0.0.1:5760)")
    where.add_argument("--standin", action="store_true", help="fly our ardupilot stand-in")
    ap.add_argument("--params", choices=("default", "changed"), default="default")
    ap.add_argument("--out", type=Path, help="write the samples as CSV")
    ap.add_argument("--compare", type=Path, help="a recorded flight (CSV) to compare the figures with")
    args = ap.parse_args(argv)
    params = CHANGED if args.params == "changed" else None
    samples = fly(args.connect, params) if args.connect else fly_standin(params)
    if args.out:
        save(samples, args.out)
    ours = figures(samples)
    theirs = figures(load(args.compare)) if args.compare else {}
    for name, value in ours.items():
        row = {"figure": name, "value": round(value, 3)}
        if name in theirs:
            row |= {"reference": round(theirs[name], 3), "error": round(value / theirs[name] - 1.0, 3)}
        print(json.dumps(row))


if __name__ == "__main__":
    main()
