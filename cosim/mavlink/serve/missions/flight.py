"""Flying a mission on a served vehicle (AUTO on ArduPilot, MISSION on PX4): one item after the
other, with MISSION_CURRENT when the current item changes and MISSION_ITEM_REACHED when a
position is reached.

Legs are flown to their end at the cruise speed (DO_CHANGE_SPEED changes it) along a path shaped
with the mission's jerk (cosim.mavlink.serve.shaping), as the autopilots' waypoint navigation does. A
copter on the ground climbs straight up to the first item's altitude before it sets off (PX4 and
ArduPilot take off in a mission the same way); PX4 then flies to a take-off item's latitude and
longitude, ArduPilot does not use them. ArduPilot keeps home as item 0 and starts at 1;
as AP_Mission does, it reports a DO item reached when it runs it on the way to the next position
item, and one after the last position item never runs (the mission is complete when that is done);
its MISSION_CURRENT total leaves home out.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, replace

from pymavlink.dialects.v20 import common as mav

from cosim.mavlink.flight_params import Rules
from cosim.mavlink.frames import GeoOrigin, yaw_to_heading
from cosim.mavlink.mission_items import MissionItem
from cosim.mavlink.serve.bodies import QuadBody, RoverBody
from cosim.mavlink.serve.limits import target_problem
from cosim.mavlink.serve.return_home import ReturnHome, ReturnLeg
from cosim.mavlink.serve.shaping import Limits
from cosim.mavlink.serve.vehicle_state import VehicleState

DEFAULT_RADIUS_M = 2.0
"""Acceptance radius of a waypoint that gives none (ArduPilot's WPNAV_RADIUS, PX4's NAV_ACC_RAD)."""
MAX_JUMPS = 64
"""DO_JUMPs taken in search of the next position item before the mission is given up as over (and the
vehicle holds where it is): AP_Mission::get_next_cmd's limit."""
ROVER_CRUISE_M_S = 5.0
"""A rover's mission legs' speed until a DO_CHANGE_SPEED."""
ROVER_RETURN_ALT_M = 0.0
CLIMB_DONE_M = 0.3
"""A take-off (or the climb before the first leg) is over this close below its altitude."""


@dataclass(frozen=True)
class Flight:
    """What a mission flies with: the vehicle's body, home (local ENU), the geodetic origin, how it
    returns, the cruise speed (m/s), the legs' limits (None: the vehicle's own; the speed is the
    cruise speed), whether a take-off item's position is flown to after its climb (PX4), and whether
    latitude and longitude 0 mean where the vehicle is (ArduPilot) or 0 N 0 E (PX4)."""

    body: QuadBody | RoverBody
    home: tuple[float, float, float]
    origin: GeoOrigin
    return_leg: ReturnLeg
    cruise_m_s: float
    legs: Limits | None = None
    takeoff_item_flown: bool = False
    zero_lat_lon_is_here: bool = True

    @classmethod
    def of(cls, v: VehicleState, rules: Rules | None) -> Flight:
        """How vehicle `v` flies under its autopilot's `rules` (None: a rover, at ROVER_CRUISE_M_S,
        returning on the ground)."""
        if rules is None:
            return cls(v.body, v.home, v.origin, ReturnLeg(ROVER_RETURN_ALT_M, None), ROVER_CRUISE_M_S)
        return cls(v.body, v.home, v.origin, ReturnLeg(rules.rtl_alt, replace(rules.auto, speed=rules.rtl_speed),
                                                       rules.rtl_loiter_s),
                   rules.auto.speed, rules.auto, rules.takeoff_item_flown, rules.zero_lat_lon_is_here)


class MissionRunner:
    """Flies `items` from `start_seq`. `send` sends a MAVLink message; `land(at)` starts a landing at
    `at` (x, y) or where the vehicle is. `step(now)` moves it on and returns True once the mission
    is over (the last item done, or a landing finished)."""

    def __init__(self, items: list[MissionItem], start_seq: int, flight: Flight,
                 send: Callable[[object], None], land: Callable[[tuple[float, float] | None], None],
                 home_items: int = 0) -> None:
        self.items = items
        self.f = flight
        self._send = send
        self._land = land
        self._home_items = home_items  # 1 on ArduPilot (home is item 0), 0 on PX4
        self.speed = flight.cruise_m_s
        self.jumps_left: dict[int, float] = {}
        self.current = -1
        self.finished = False
        self._phase = ""
        self._t0 = 0.0
        self._leg = None
        self._return = None
        self._heading: float | None = None
        self._go(start_seq, 0.0)

    # -- items ---------------------------------------------------------------------------------------
    def _go(self, seq: int, now: float) -> None:
        """Make `seq` current, running DO_ items at once, and begin the next nav item."""
        done_do: list[int] = []
        jumps = 0
        while True:
            if seq >= len(self.items):
                self._finish()
                return
            item = self.items[seq]
            if item.command == mav.MAV_CMD_DO_CHANGE_SPEED:
                self.speed = item.params[1] if item.params[1] > 0 else self.speed
                done_do.append(seq)
                seq += 1
            elif item.command == mav.MAV_CMD_DO_JUMP:
                left = self.jumps_left.setdefault(seq, item.params[1])
                if left == 0:
                    seq += 1
                    continue
                jumps += 1
                if jumps > MAX_JUMPS:  # DO_JUMPs that loop with no position item between them
                    self._say("Mission: DO_JUMP loop, no waypoint; mission over")
                    self._finish()
                    return
                self.jumps_left[seq] = left - 1 if left > 0 else left
                seq = int(item.params[0])
            else:
                break
        self.current = seq
        self._send_current()
        if self._home_items:  # ArduPilot: a DO item run on the way to this position item is reached
            for k in done_do:
                self._send(mav.MAVLink_mission_item_reached_message(k))
        self._begin(self.items[seq], now)

    def _begin(self, item: MissionItem, now: float) -> None:
        body = self.f.body
        x, y, z = body.position()
        self._t0 = now
        if item.command == mav.MAV_CMD_NAV_RETURN_TO_LAUNCH:
            self._phase, self._return = "return", ReturnHome(body, self.f.home, self.f.return_leg, now)
            return
        if item.command == mav.MAV_CMD_NAV_DELAY:
            body.hold()
            self._reached(now)
            return
        tx, ty, tz = self._target(item)
        if item.command == mav.MAV_CMD_NAV_TAKEOFF:  # climbed where it stands; PX4 then flies to its position (_climbed)
            tx = x
            ty = y
        far = target_problem(tx, ty, tz - self.f.home[2])
        if far is not None:  # a waypoint on another continent, or in space: said, and not flown
            self._say(f"Mission {item.seq}: {far}")
            self._finish()
            return
        if item.command == mav.MAV_CMD_NAV_TAKEOFF:
            self._phase = "climb"
            self._leg = (x, y, tz, x, y, tz, now)
            body.goto(x, y, tz, None)
            return
        if body.vehicle == "copter" and body.on_ground:
            self._phase, self._leg = "climb", (x, y, max(tz, self.f.home[2] + 1.0), tx, ty, tz, now)
            body.goto(*self._leg[:3], None)
            return
        self._start_leg(item, (x, y, z), (tx, ty, tz), now)

    def _target(self, item: MissionItem) -> tuple[float, float, float]:
        x, y, z = self.f.body.position()
        if item.has_horizontal or not self.f.zero_lat_lon_is_here:
            x, y, amsl_z = self.f.origin.from_geodetic(item.lat, item.lon, item.alt)
        else:
            amsl_z = item.alt - self.f.origin.alt
        if self.f.body.vehicle != "copter":
            return x, y, z
        if item.command == mav.MAV_CMD_NAV_LAND:
            return x, y, z  # flown to at the current altitude, then down
        return x, y, (self.f.home[2] + item.alt if item.relative else amsl_z)

    def _leg_limits(self) -> Limits:
        """The legs' limits at the current speed (a rover has none but its speed)."""
        if self.f.legs is None:
            return Limits.speed_only(self.speed)
        return replace(self.f.legs, speed=self.speed)

    def _start_leg(self, item: MissionItem, start, end, now: float) -> None:
        self._phase = "leg"
        self._leg = (*start, *end, now)
        yaw = item.params[3] if item.command == mav.MAV_CMD_NAV_WAYPOINT else math.nan
        self._heading = yaw_to_heading(math.radians(yaw)) if math.isfinite(yaw) else None
        self.f.body.goto(*end, self._heading, self._leg_limits())

    # -- progress ------------------------------------------------------------------------------------
    def step(self, now: float) -> bool:
        if self.finished:
            return True
        item = self.items[self.current]
        body = self.f.body
        x, y, z = body.position()
        if self._phase == "climb":
            if z >= self._leg[2] - CLIMB_DONE_M:
                if item.command == mav.MAV_CMD_NAV_TAKEOFF:
                    self._climbed(item, (x, y, z), now)
                else:
                    self._start_leg(item, (x, y, z), self._leg[3:6], now)
        elif self._phase == "leg":
            self._fly_leg(item, now)
        elif self._phase == "hold" and now - self._t0 >= self._hold_s(item):
            self._next(now)
        elif self._phase == "return":
            done = self._return.step(now)
            if done == "land":
                self._phase = "landing"
                self._land(self.f.home[:2])
            elif done == "arrived":
                self._reached(now)
        elif self._phase == "landing" and body.on_ground:
            self._send(mav.MAVLink_mission_item_reached_message(self.current))
            self._finish()
        return self.finished

    def _climbed(self, item: MissionItem, here: tuple[float, float, float], now: float) -> None:
        """A take-off's climb is over: reached, or (PX4) on to the item's latitude and longitude, zeros
        included (PX4 flies toward 0 N 0 E then; said here and not flown, as a far waypoint is)."""
        if not self.f.takeoff_item_flown:
            self._reached(now)
            return
        tx, ty, _ = self._target(item)
        far = target_problem(tx, ty, here[2] - self.f.home[2])
        if far is not None:
            self._say(f"Mission {item.seq}: {far}")
            self._finish()
        elif math.dist(here[:2], (tx, ty)) <= DEFAULT_RADIUS_M:
            self._reached(now)
        else:
            self._start_leg(item, here, (tx, ty, here[2]), now)

    def _fly_leg(self, item: MissionItem, now: float) -> None:
        ex, ey, ez = self._leg[3:6]
        here = self.f.body.position()
        radius = item.params[1] if item.command == mav.MAV_CMD_NAV_WAYPOINT and item.params[1] > 0 else DEFAULT_RADIUS_M
        gap = math.dist(here, (ex, ey, ez)) if self.f.body.vehicle == "copter" else math.dist(here[:2], (ex, ey))
        if gap <= radius:
            if item.command == mav.MAV_CMD_NAV_LAND:
                self._phase = "landing"
                self._land((ex, ey))
            else:
                self._reached(now)

    def _hold_s(self, item: MissionItem) -> float:
        if item.command in (mav.MAV_CMD_NAV_WAYPOINT, mav.MAV_CMD_NAV_LOITER_TIME, mav.MAV_CMD_NAV_DELAY) \
                and math.isfinite(item.params[0]):
            return max(item.params[0], 0.0)
        return 0.0

    def _reached(self, now: float) -> None:
        self._send(mav.MAVLink_mission_item_reached_message(self.current))
        self._phase = "hold"
        self._t0 = now
        if self._hold_s(self.items[self.current]) <= 0:
            self._next(now)

    def _next(self, now: float) -> None:
        self._go(self.current + 1, now)

    def _finish(self) -> None:
        """The mission is over: after a waypoint the vehicle comes to rest on it, as the autopilots
        do; otherwise (an item not flown) it stops where it is."""
        self.finished = True
        reached_point = self._phase in ("leg", "hold")
        self._phase = "done"
        if not (self.f.body.on_ground or reached_point):
            self.f.body.hold()
        self._send_current()

    def _say(self, text: str) -> None:
        """A warning for the ground station (STATUSTEXT holds 50 characters)."""
        self._send(mav.MAVLink_statustext_message(mav.MAV_SEVERITY_WARNING, text.encode()[:50]))

    def _send_current(self) -> None:
        self._send(self.current_message())

    def current_message(self):
        """MISSION_CURRENT for this mission (sent on every change and streamed)."""
        state = mav.MISSION_STATE_COMPLETE if self.finished else mav.MISSION_STATE_ACTIVE
        return mav.MAVLink_mission_current_message(max(self.current, 0), len(self.items) - self._home_items, state, 1)
