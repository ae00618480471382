"""A vehicle reached over MAVLink, from a cold start to ready, in stages a user can follow: no
heartbeat yet; a heartbeat from system N (its autopilot and type); no position yet (what its EKF and
GPS report); ready.

A powered-on vehicle sends heartbeats at once but has a position only once its GPS has a fix and
its estimator uses it: 20-40 s for a cold ArduCopter SITL, longer for a real vehicle waiting for a
GPS lock. Before that ArduPilot sends GLOBAL_POSITION_INT with its stale location (zeros), so a
position is taken only when EKF_STATUS_REPORT has an absolute horizontal position (ArduPilot) or
when GLOBAL_POSITION_INT comes at all (PX4 sends it only when valid), and then not at 0, 0.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

from pymavlink.dialects.v20 import ardupilotmega as apm
from pymavlink.dialects.v20 import common as mav

from cosim.mavlink.client.adapter import MavlinkError, MavlinkVehicle

DEFAULT_CONNECT_TIMEOUT_S = 90.0
"""How long a run waits for a vehicle to be ready: a cold SITL (20-40 s) and a real vehicle's GPS
lock (typically under a minute outdoors), with room to spare."""
REPORT_EVERY_S = 10.0
"""While a stage lasts, it is reported again this often (with what the EKF and GPS say now)..."""
REPORT_CHANGE_S = 1.0
"""...and sooner, but not more often than this, when what they say changes."""
NEEDED = ("LOCAL_POSITION_NED", "ATTITUDE")
"""Telemetry a ready vehicle must also have sent."""
_GPS_FIX = {0: "no GPS", 1: "no fix", 2: "2D fix", 3: "3D fix", 4: "DGPS", 5: "RTK float", 6: "RTK fixed"}


@dataclass(frozen=True)
class Stage:
    """Where a vehicle is on its way up: `ready`, and what it is waiting for, in words."""

    kind: str  # no_heartbeat, no_position, telemetry or ready
    text: str

    @property
    def ready(self) -> bool:
        return self.kind == "ready"


def _enum_name(enum: str, value: int) -> str:
    entry = mav.enums[enum].get(value)
    return entry.name.removeprefix(f"{enum}_").lower() if entry is not None else str(value)


def _gps(v: MavlinkVehicle) -> str:
    gps = v.latest.get("GPS_RAW_INT")
    if gps is None:
        return "GPS: no report yet"
    return f"GPS: {_GPS_FIX.get(gps.fix_type, gps.fix_type)}, {gps.satellites_visible} satellites"


def _ekf(v: MavlinkVehicle) -> tuple[bool, str]:
    """ArduPilot's estimator: has it an absolute horizontal position (and is it out of constant-position mode)?"""
    ekf = v.latest.get("EKF_STATUS_REPORT")
    if ekf is None:
        return False, "EKF: no report yet"
    ok = bool(ekf.flags & apm.EKF_POS_HORIZ_ABS) and not ekf.flags & apm.EKF_CONST_POS_MODE
    return ok, "EKF: position ok" if ok else f"EKF: no horizontal position (flags 0x{ekf.flags:x})"


def stage(v: MavlinkVehicle) -> Stage:
    """The vehicle's stage now, from its latest telemetry."""
    hb = v.latest.get("HEARTBEAT")
    if hb is None:
        return Stage("no_heartbeat", f"system {v.sysid}: no heartbeat yet")
    who = f"system {v.sysid}: heartbeat ({_enum_name('MAV_AUTOPILOT', hb.autopilot)}, {_enum_name('MAV_TYPE', hb.type)})"
    gpi = v.latest.get("GLOBAL_POSITION_INT")
    located = gpi is not None and (gpi.lat, gpi.lon) != (0, 0)
    if v.personality.dialect_streams:  # ArduPilot: its EKF says when the position is real
        ekf_ok, ekf_text = _ekf(v)
        located = located and ekf_ok
        why = f"{ekf_text}, {_gps(v)}"
    else:
        why = f"{'global position ok' if located else 'no global position'}, {_gps(v)}"
    if not located:
        return Stage("no_position", f"{who}; no position yet ({why})")
    missing = [k for k in NEEDED if k not in v.latest]
    if missing:
        return Stage("telemetry", f"{who}; position ok; waiting for {', '.join(missing)}")
    return Stage("ready", f"system {v.sysid}: ready at {gpi.lat / 1e7:.7f}, {gpi.lon / 1e7:.7f} ({_gps(v)})")


def await_ready(v: MavlinkVehicle, timeout_s: float = DEFAULT_CONNECT_TIMEOUT_S,
                report: Callable[[str], None] | None = None, sleep: Callable[[float], None] = time.sleep) -> Stage:
    """Pump the link until the vehicle is ready, calling `report(text)` at each new stage; MavlinkError
    naming the stage it stopped at after `timeout_s`."""
    start = time.monotonic()
    said = Stage("", "")
    told = -REPORT_EVERY_S
    while True:
        now = stage(v)
        t = time.monotonic() - start
        news = now.kind != said.kind or (now.text != said.text and t - told >= REPORT_CHANGE_S)
        if report is not None and (news or t - told >= REPORT_EVERY_S):
            report(f"vehicle {now.text} (after {t:.0f} s)")
            said = now
            told = t
        if now.ready:
            return now
        if time.monotonic() - start > timeout_s:
            raise MavlinkError(f"vehicle {v.sysid} not ready within {timeout_s:g} s; stopped at: {now.text} "
                               f"(telemetry asked for {v.stream_requests} times)")
        v.tick(time.monotonic())
        sleep(0.05)
        v.link.poll()
