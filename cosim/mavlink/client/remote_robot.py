"""What a controller flying a MAVLink vehicle sees: `MavlinkRobot` (the `controllers.Robot` on
telemetry and setpoints), `NoNetwork` (its `net` when no simulated network carries it) and
`WallClockServices` (its timers, on the wall clock). Nothing is accepted and ignored: what a
vehicle cannot do raises an error that says so."""

from __future__ import annotations

import heapq
import itertools
import logging
import math
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

import numpy as np

from controllers import Message, Neighbor
from cosim.mavlink.client.missions import flight_plan, fly_mission, waypoint
from cosim.mavlink.frames import GeoOrigin, heading_to_yaw, yaw_to_heading
from cosim.mavlink.mission_items import MissionProgress

if TYPE_CHECKING:
    from cosim.mavlink.client.adapter import MavlinkVehicle

log = logging.getLogger(__name__)


class MavlinkRobot:
    """The robot API on a MAVLink vehicle: pose from telemetry (ENU), commands become setpoints."""

    def __init__(self, vehicle: MavlinkVehicle, clock: Callable[[], float] = time.monotonic) -> None:
        self.v = vehicle
        self.id = vehicle.sysid
        self.sensors: dict = {}  # a vehicle's own sensors reach us as telemetry, not as simulated sensors
        self._clock = clock
        self._heading_cmd: float | None = None  # the commanded heading (turn, set_heading), else the vehicle's
        self._body_vel = (0.0, 0.0, 0.0)

    # -- state --------------------------------------------------------------------------------
    @property
    def position(self) -> np.ndarray:
        return self.v.position_enu()

    @property
    def velocity(self) -> np.ndarray:
        return self.v.velocity_enu()

    @property
    def heading(self) -> float:
        return self.v.heading()

    @property
    def pose(self) -> tuple[np.ndarray, float]:
        return self.position, self.heading

    @property
    def alive(self) -> bool:
        return "HEARTBEAT" in self.v.latest

    @property
    def attitude(self) -> tuple[float, float, float]:
        """Roll, pitch, heading (rad) from the vehicle's ATTITUDE (pitch positive nose up, as in simulation)."""
        att = self.v.latest.get("ATTITUDE")
        if att is None:
            return math.nan, math.nan, math.nan
        return float(att.roll), float(-att.pitch), yaw_to_heading(att.yaw)

    @property
    def desired_velocity(self) -> tuple[float, float, float]:
        return self._body_vel

    @property
    def battery_j(self) -> float:
        """Unknown in joules (MAVLink reports a percentage: see battery_level): inf, as for no battery model."""
        return math.inf

    @property
    def moves_sideways(self) -> bool:
        """A multicopter flies any body-frame velocity."""
        return True

    # -- commands -----------------------------------------------------------------------------
    def set_velocity(self, vx: float, vy: float = 0.0, vz: float = 0.0) -> None:
        """Body-frame velocity (x forward, y left, z up) at the commanded heading, as in simulation."""
        self._body_vel = (vx, vy, vz)
        h = self.heading if self._heading_cmd is None else self._heading_cmd
        c = math.cos(h)
        s = math.sin(h)
        e = c * vx - s * vy
        n = s * vx + c * vy
        self._set(("velocity", n, e, -vz, heading_to_yaw(h)))

    def turn(self, angle: float) -> None:
        """Rotate the commanded heading by `angle` rad (counter-clockwise); the velocity turns with it."""
        base = self.heading if self._heading_cmd is None else self._heading_cmd
        self.set_heading(base + angle)

    def set_heading(self, heading: float) -> None:
        self._heading_cmd = math.remainder(heading, 2.0 * math.pi)
        if self.v.setpoint is not None and self.v.setpoint[0] == "velocity":
            self.set_velocity(*self._body_vel)

    def hover(self) -> None:
        self._free()
        self._body_vel = (0.0, 0.0, 0.0)
        self.v.hold()
        self.v.setpoint_t = self._clock()

    def fly(self, mode: str, a: float, b: float, c: float, d: float | None = None) -> None:
        """Only `position` (x, y, z ENU, heading) goes to a MAVLink vehicle as a setpoint."""
        if mode != "position":
            raise ValueError(f"a MAVLink vehicle takes position setpoints; got mode {mode!r}")
        heading = self.heading if d is None else d
        self._set(("position", b, a, -c, heading_to_yaw(heading)))

    # -- missions (MAVLink vehicles only) -------------------------------------------------------
    def fly_mission(self, points: list[tuple[float, float, float]], hold_s: float = 0.0, end: str = "rtl",
                    radius_m: float = 0.0) -> None:
        """Hand the flight to the autopilot: take off to the first point's height, fly `points` (x, y,
        z in the vehicle's local ENU frame, m; z above home), each reached within `radius_m` (0: the
        autopilot's default, 2 m) and held `hold_s`, then `end` (rtl, land or hold). Uploaded,
        verified by download and started (cosim.mavlink.client.missions); until it is over, motion
        commands raise. Blocks for the upload (about a second)."""
        if end not in ("rtl", "land", "hold") or not points:
            raise ValueError(f"fly_mission needs points and end in rtl, land, hold; got {len(points)} points, end {end!r}")
        g = self.v.latest["GLOBAL_POSITION_INT"]
        lp = self.v.latest["LOCAL_POSITION_NED"]
        here = GeoOrigin(g.lat / 1e7, g.lon / 1e7, g.alt / 1000.0)
        legs = []
        for x, y, z in points:
            lat, lon, _ = here.to_geodetic(x - lp.y, y - lp.x, 0.0)
            legs.append(waypoint(lat, lon, z, hold_s, radius_m))
        self.v.streaming = False  # the autopilot flies now; our setpoints would only be ignored
        fly_mission(self.v, flight_plan(g.lat / 1e7, g.lon / 1e7, legs, end))

    def mission_progress(self) -> MissionProgress | None:
        """The mission's progress as the vehicle reports it (current item, items reached, over)."""
        return self.v.mission

    def drive(self, v: float, w: float) -> None:
        raise ValueError(f"vehicle {self.id} is flown over MAVLink: steer it with set_velocity and turn, not drive")

    def set_wheel_speeds(self, left: float, right: float) -> None:
        raise ValueError(f"vehicle {self.id} is flown over MAVLink: its wheels are the autopilot's; use set_velocity")

    def _free(self) -> None:
        """Motion commands would be ignored by an autopilot flying a mission: refused instead."""
        m = self.v.mission
        if m is not None and not m.complete:
            raise ValueError(f"vehicle {self.id} flies a mission (item {m.current} of {m.total}): motion commands "
                             "are not taken until it is over")

    def _set(self, setpoint: tuple) -> None:
        self._free()
        self.v.setpoint = setpoint
        self.v.setpoint_t = self._clock()

    # -- sensors ------------------------------------------------------------------------------
    def compass(self) -> float:
        """The vehicle's own heading estimate (rad)."""
        return self.heading

    def gps(self) -> np.ndarray:
        """The vehicle's position estimate (m, ENU about its local origin)."""
        return self.position

    def battery_level(self) -> float:
        """Charge left as a fraction, from SYS_STATUS; an error until the vehicle has reported it."""
        status = self.v.latest.get("SYS_STATUS")
        if status is None or status.battery_remaining < 0:
            raise RuntimeError(f"vehicle {self.id} has not reported its battery (SYS_STATUS battery_remaining)")
        return status.battery_remaining / 100.0

    def ranges(self) -> np.ndarray:
        raise self._no_sensor("range")

    def imu(self) -> tuple[np.ndarray, np.ndarray]:
        raise self._no_sensor("imu")

    def bumped(self) -> bool:
        raise self._no_sensor("bump")

    def _no_sensor(self, name: str) -> RuntimeError:
        return RuntimeError(f"vehicle {self.id} is flown over MAVLink: it has no simulated {name} sensor "
                            "(a ghost twin in a scenario has the simulated world's sensors)")


class NoNetwork:
    """`net` of a controller flying a vehicle on its own: no simulated radio, so sending is an error,
    nobody is heard and there are no routes."""

    def __init__(self, node: int) -> None:
        self.node = node

    def send(self, dst: int, payload: bytes, port: int = 0, interface: str | None = None) -> int | None:
        raise RuntimeError(self._why("send"))

    def broadcast(self, payload: bytes, port: int = 0, interface: str | None = None) -> int | None:
        raise RuntimeError(self._why("broadcast"))

    def neighbors(self) -> list[Neighbor]:
        return []

    def range_to(self, node: int) -> float:
        raise RuntimeError(self._why("measure range to another robot"))

    def bearing_to(self, node: int) -> float:
        raise RuntimeError(self._why("measure bearing to another robot"))

    def poses(self) -> tuple[np.ndarray, np.ndarray]:
        """No robot's pose is known here (not even this vehicle's by node id): empty arrays, so a
        compiled controller runs, and its range_to and bearing_to refuse as net.range_to does."""
        return np.zeros((0, 3)), np.zeros(0)

    def routes(self) -> dict:
        return {}

    def invalidate_route(self, dst: int, next_hop: int) -> None:
        raise RuntimeError(self._why("change routes"))

    def discover_route(self, dst: int) -> None:
        raise RuntimeError(self._why("discover routes"))

    def bind(self, port: int, fn: Callable[[Message], None]) -> None:
        raise RuntimeError(self._why("bind a port"))

    def _why(self, what: str) -> str:
        return (f"vehicle {self.node} flies over MAVLink without a simulated network: it cannot {what} "
                "(run it as a ghost in a scenario to give it one)")


class WallClockServices:
    """Timers for controllers on real vehicles, in wall-clock seconds (`controllers.Services`)."""

    def __init__(self) -> None:
        self.t0 = time.monotonic()
        self._heap: list = []
        self._seq = itertools.count()

    def now_s(self) -> float:
        return time.monotonic() - self.t0

    def every(self, period_s: float, fn: Callable[[], None], phase_s: float | None = None) -> _Timer:
        return self._add(self.now_s() + (phase_s or 0.0), period_s, fn)

    def after(self, delay_s: float, fn: Callable[[], None]) -> _Timer:
        return self._add(self.now_s() + delay_s, 0.0, fn)

    def record(self, name: str, value: float) -> None:
        log.info("%s = %s", name, value)

    def _add(self, t: float, period: float, fn: Callable[[], None]) -> _Timer:
        handle = _Timer()
        heapq.heappush(self._heap, (t, next(self._seq), period, fn, handle))
        return handle

    def run_due(self) -> None:
        now = self.now_s()
        while self._heap and self._heap[0][0] <= now:
            t, _, period, fn, handle = heapq.heappop(self._heap)
            if handle.cancelled:
                continue
            if period:
                heapq.heappush(self._heap, (t + period, next(self._seq), period, fn, handle))
            fn()


class _Timer:
    cancelled = False

    def cancel(self) -> None:
        self.cancelled = True
