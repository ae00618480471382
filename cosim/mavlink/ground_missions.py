"""A ground station, written as a controller, that flies a mission with every vehicle it hears
(`mavlink.ground_station` with this class as its group's controller).

Each vehicle goes through the steps a ground-station operator takes, over the simulated network:
its position streams asked for; once it reports a position, a mission of `legs` about where it
stands uploaded (take-off, waypoints, then `end`); the mission downloaded back and compared; then
started (ArduPilot: guided, arm, MISSION_START; PX4: MISSION_START from item 0, which arms it). A step not done by the next
`retry` is tried again, as an operator would: an autopilot that refuses to arm until its estimator
has a position is asked again until it accepts. Each vehicle's progress is a record
`mission_step.<sysid>` (STEPS' index) whenever it moves on.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any, Literal

from cosim.mavlink.ground_control import GroundControl
from cosim.mavlink.personality import Personality
from cosim.mavlink.vehicle_view import VehicleView
from physics.geodesy import GeoOrigin

log = logging.getLogger(__name__)
WARNING_SEVERITY = 4
"""STATUSTEXTs of this MAV_SEVERITY or worse (emergency 0 .. warning 4) are logged as warnings."""
STEPS = ("heard", "streams", "uploaded", "verified", "started", "flying")
"""A vehicle's steps in order; `flying` once it is armed in its mission mode."""
STALL_LOOKS = 4
"""Looks at a vehicle without an answer (its position, the upload's verdict) before the step before is
taken again: the frames may have been lost."""


class MissionFlights(GroundControl):
    """Every vehicle heard flies `legs` (offsets from where it stood when first placed, m: x east, y
    north, z above its home) and then `end`."""

    @dataclass(frozen=True)
    class Params:
        legs: tuple[tuple[float, float, float], ...] = ((0.0, 0.0, 5.0), (10.0, 0.0, 5.0), (10.0, 10.0, 5.0))
        """The waypoints, as offsets from the vehicle's position when its mission is made (m; z above home)."""
        end: Literal["land", "rtl", "hold"] = "land"
        """What each vehicle does after its last waypoint."""
        start_after: float = 1.0
        """Seconds of simulated time before the first step."""
        retry: float = 2.0
        """Seconds between looks at each vehicle: a step not done by then is tried again."""
        radius: float = 0.0
        """Each waypoint's acceptance radius (m; 0: the vehicle's own)."""

    def __init__(self, params: Any = None, origin: GeoOrigin | None = None,
                 directory: dict[int, tuple[int, Personality]] | None = None) -> None:
        super().__init__(params, origin, directory)
        p = self.params
        if not p.legs:
            raise ValueError("legs: a mission needs at least one waypoint")
        if not (p.retry > 0 and p.start_after >= 0 and p.radius >= 0):
            raise ValueError(f"retry must be > 0 s and start_after, radius >= 0, got {p.retry}, {p.start_after}, {p.radius}")
        if any(z <= 0 for _, _, z in p.legs):
            raise ValueError(f"every leg flies above home: z must be > 0 m, got {[leg[2] for leg in p.legs]}")
        self.step_of: dict[int, int] = {}
        self.stalled: dict[int, int] = {}

    def setup(self) -> None:
        super().setup()
        self.after(self.params.start_after, lambda: self.every(self.params.retry, self._look))

    def _look(self) -> None:
        for sysid in sorted(self.vehicles):
            vehicle = self.vehicles[sysid]
            if vehicle.commands:  # something of ours still in flight to it
                continue
            before = self.step_of.get(sysid, 0)
            self._advance(vehicle)
            if self.step_of.get(sysid, 0) != before or before in (3, 5):
                self.stalled[sysid] = 0
                continue
            self.stalled[sysid] = self.stalled.get(sysid, 0) + 1
            if self.stalled[sysid] >= STALL_LOOKS and before in (1, 2):
                self.stalled[sysid] = 0
                self._reach(vehicle, before - 1)

    def _advance(self, v: VehicleView) -> None:
        """Move vehicle `v` on by one step if the last is done, or try the step again."""
        step = self.step_of.get(v.sysid, 0)
        if step == 0:
            self.request_streams(v.sysid)
            self._reach(v, 1)
        elif step == 1 and v.position is not None:
            x, y, _ = v.position
            self.upload_mission(v.sysid, [(x + dx, y + dy, z) for dx, dy, z in self.params.legs], self.params.end,
                                radius_m=self.params.radius)
            self._reach(v, 2)
        elif step == 2 and v.mission_result is not None:
            self._verify_or_upload_again(v)
        elif step == 3 and v.mission_verified is not None:
            self._start_or_verify_again(v)
        elif step == 4:
            self._check_started(v)

    def _verify_or_upload_again(self, v: VehicleView) -> None:
        if v.mission_result == 0:
            self.verify_mission(v.sysid)
            self._reach(v, 3)
        else:
            self._reach(v, 1)

    def _start_or_verify_again(self, v: VehicleView) -> None:
        if v.mission_verified:
            self.start_mission(v.sysid)
            self._reach(v, 4)
        else:
            self._reach(v, 1)

    def _check_started(self, v: VehicleView) -> None:
        if v.armed and v.mode in ("auto", "mission"):
            self._reach(v, 5)
        else:
            self.start_mission(v.sysid)  # refused (no position estimate yet, say): asked again

    def on_mavlink(self, vehicle: VehicleView, msg: Any) -> None:
        """Each acknowledgement is a record `ack_<command>.<sysid>` (its MAV_RESULT); what the vehicle says
        (STATUSTEXT) is logged, its warnings and worse as warnings."""
        if msg.get_type() == "COMMAND_ACK":
            self.record(f"ack_{msg.command}.{vehicle.sysid}", float(msg.result))
        elif msg.get_type() == "STATUSTEXT":
            level = logging.WARNING if msg.severity <= WARNING_SEVERITY else logging.INFO
            log.log(level, "t = %.2f s: vehicle %d says %r", self.now, vehicle.sysid, msg.text)

    def _reach(self, v: VehicleView, step: int) -> None:
        self.step_of[v.sysid] = step
        self.record(f"mission_step.{v.sysid}", float(step))
