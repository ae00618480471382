"""The autopilot of a served vehicle: its mode machine, as ArduPilot's or PX4's (the personality's).
Arming, take-off, landing, mode changes, position and velocity targets, missions, returns home and
the failsafes it takes by itself, acting on the body (cosim.mavlink.serve.bodies) and announcing what it
refuses or does through `send` (STATUSTEXT; the mission protocol's replies). No socket: the MAVLink
face (cosim.mavlink.serve.vehicle_endpoint) decodes messages into these calls, and a test can drive it
directly."""

from __future__ import annotations

import logging
import math
from collections.abc import Callable
from typing import Any

from pymavlink.dialects.v20 import common as mav

from cosim.mavlink.frames import GeoOrigin, yaw_to_heading
from cosim.mavlink.personality import HOLDING_MODES, MISSION_MODES, PX4, REFUSED_MODES, RETURN_MODES, Personality
from cosim.mavlink.serve import arming
from cosim.mavlink.serve.bodies import QuadBody, RoverBody
from cosim.mavlink.serve.failsafe import GcsFailsafe, GcsWatch
from cosim.mavlink.serve.limits import MAX_HEIGHT_M
from cosim.mavlink.serve.missions.control import MissionControl
from cosim.mavlink.serve.missions.flight import Flight
from cosim.mavlink.serve.offboard_loss import FALLBACK_MODE, OffboardLoss
from cosim.mavlink.serve.parameters import Parameters
from cosim.mavlink.serve.return_home import ReturnHome
from cosim.mavlink.serve.shaping import Limits
from cosim.mavlink.serve.takeoff_land import TakeoffLand
from cosim.mavlink.serve.vehicle_state import VehicleState

log = logging.getLogger(__name__)

GCS_LOSS_MODES = {"hold": "hold", "land": "land", "return": "rtl"}
"""The mode each ground-station-loss action enters (hold where the personality has no such mode)."""

Send = Callable[[Any], None]
"""Sends one MAVLink message (a pymavlink message object) to the vehicle's ground stations."""


class Autopilot:
    """The mode machine of one vehicle (`state`: what it is now) flying `body` as `personality`
    does, with system id `sysid`. `gcs_failsafe`: what it does when its ground station falls
    silent; `position_after_s`: a cold start, without a position estimate for that long."""

    def __init__(self, body: QuadBody | RoverBody, personality: Personality, sysid: int, origin: GeoOrigin, send: Send,
                 gcs_failsafe: GcsFailsafe | None = None, position_after_s: float = 0.0) -> None:
        if personality.vehicle != body.vehicle:
            raise ValueError(f"the {personality.name} personality drives a {personality.vehicle}, not a {body.vehicle}")
        self.state = VehicleState(body, personality, sysid, origin, body.position(),
                                  {"px4": "hold", "ardupilot": "stabilize"}.get(personality.name, "hold"), position_after_s)
        self.send = send
        self.params = Parameters(personality.parameters, {"SYSID_THISMAV": float(sysid)})
        self.rules = None if personality.rules is None else personality.rules(self.params.values)
        if self.rules is not None:
            body.set_limits(self.rules.limits)
        self.vertical = TakeoffLand(body)
        self.missions = MissionControl(personality, send, self.deny, lambda: Flight.of(self.state, self.rules),
                                       self._begin_landing, self._hold_here)
        self._takeoff_z: float | None = None
        self._setpoint_t = -math.inf
        self._velocity_setpoint = False
        self._offboard = OffboardLoss(personality.setpoint_timeout_s)
        self._gcs = GcsWatch(gcs_failsafe or GcsFailsafe())
        self._return: ReturnHome | None = None
        self._idle = arming.IdleDisarm()
        body.set_motors(False)  # motors stopped until armed

    # -- words ---------------------------------------------------------------------------------------
    def deny(self, reason: str) -> bool:
        """Refuse a request; the reason goes out as STATUSTEXT (before any COMMAND_ACK)."""
        self.send(mav.MAVLink_statustext_message(mav.MAV_SEVERITY_WARNING, reason.encode()[:50]))
        return False

    def say(self, text: str) -> None:
        """A STATUSTEXT (the autopilots' announcements)."""
        self.send(mav.MAVLink_statustext_message(mav.MAV_SEVERITY_INFO, text.encode()[:50]))

    def failsafe_taken(self, text: str) -> None:
        """A failsafe the vehicle took by itself: announced (STATUSTEXT) and kept in the state's `failsafes`."""
        self.state.failsafes.append(text)
        self.deny(text)

    # -- what the ground station tells it --------------------------------------------------------------
    def gcs_heard(self) -> None:
        """A ground station's HEARTBEAT arrived."""
        self._gcs.heard(self.state.now)

    def parameters_changed(self) -> None:
        """A PARAM_SET was taken: the flight rules follow the new values."""
        if self.state.personality.rules is not None:
            self.rules = self.state.personality.rules(self.params.values)
            self.state.body.set_limits(self.rules.limits)

    def setpoint_heard(self) -> None:
        self._setpoint_t = self.state.now
        if self._offboard.regained(self.state.mode, self.state.armed):
            self.state.mode = "offboard"

    def follow_position(self, x: float, y: float, z: float, yaw_ned: float | None, auto: bool = False) -> None:
        """A position target; `auto`: the navigator's (PX4's Hold), flown within the auto limits."""
        if self._grounded_by_setpoint():
            return
        self._velocity_setpoint = False
        self._goto(x, y, z, yaw_ned, self.rules.auto if auto and self.rules is not None else None)

    def follow_velocity(self, body: bool, a: float, b: float, c: float, yaw_ned: float | None = None) -> None:
        """Velocity (m/s): forward/left/up if `body`, else east/north/up; a copter yaws to a given yaw."""
        if self._grounded_by_setpoint():
            return
        self._velocity_setpoint = True
        heading = None if yaw_ned is None or math.isnan(yaw_ned) else yaw_to_heading(yaw_ned)
        target = self.state.body
        target.velocity_body(a, b, c, heading) if body else target.velocity_world(a, b, c, heading)

    def _grounded_by_setpoint(self) -> bool:
        """ArduCopter in GUIDED keeps a copter on the ground there (ending its take-off); PX4 lifts off."""
        v = self.state
        if v.personality.setpoints_lift_off or v.body.vehicle != "copter" or not v.body.on_ground:
            return False
        self._takeoff_z = None
        self._hold_here()
        return True

    def _goto(self, x: float, y: float, z: float, yaw_ned: float | None, leg: Limits | None = None) -> None:
        heading = None if yaw_ned is None or math.isnan(yaw_ned) else yaw_to_heading(yaw_ned)
        self.vertical.cancel()
        self.state.body.goto(x, y, z, heading, leg)

    def _hold_here(self) -> None:
        self._velocity_setpoint = False
        self.vertical.cancel()
        self.state.body.hold()

    def _fly_kept(self) -> None:
        """Hold starts: PX4 flies to the kept reposition target, if any (once)."""
        target = self.state.kept
        self.state.kept = None
        if target is not None:
            self.follow_position(*target, auto=True)

    # -- arming, take-off, landing --------------------------------------------------------------------
    def arm(self, arm: bool) -> bool:
        v = self.state
        if arm == v.armed:
            return True
        if arm:
            why = arming.refusal(v)
            if why is not None:
                return self.deny(why)
            v.armed = True
            v.body.set_motors(True)
            self.vertical.arm(v.now)
            self._announce_armed(True)
            self._hold_here()
            if v.mode in MISSION_MODES:
                self.missions.fly()
            return True
        if not v.body.on_ground:
            return self.deny("Disarm: vehicle is in the air")
        self.force_disarm()
        return True

    def force_disarm(self) -> None:
        """Stop the motors now (a disarm the vehicle decides on, or one asked for on the ground)."""
        self.state.armed = False
        self.state.landing = False
        self.vertical.cancel()
        self.state.body.set_motors(False)
        self._announce_armed(False)

    def _announce_armed(self, armed: bool) -> None:
        words = arming.armed_words(self.state, armed)
        if words is not None:
            self.say(words)

    def takeoff(self, altitude: float, amsl: bool | None = None) -> bool:
        """Climb to `altitude` (m above sea level if `amsl`, else above home; None: as the personality reads it)."""
        v = self.state
        if v.body.vehicle != "copter":
            return self.deny("Takeoff: a rover does not take off")
        if not v.armed:
            return self.deny("Takeoff: vehicle not armed")
        x, y, _ = v.body.position()
        if math.isnan(altitude):  # PX4: the altitude is the MIS_TAKEOFF_ALT parameter (what MAVSDK sets)
            z = v.home[2] + self.rules.takeoff_alt
        elif v.personality.takeoff_altitude_is_amsl if amsl is None else amsl:
            z = altitude - v.origin.alt
        else:
            z = v.home[2] + altitude
        if not 0.0 < z - v.home[2] <= MAX_HEIGHT_M:
            return self.deny(f"Takeoff: {z - v.home[2]:.0f} m above home is not within 0..{MAX_HEIGHT_M:.0f} m")
        v.landing = False
        if "takeoff" in v.personality.modes:
            v.mode = "takeoff"
        self._takeoff_z = z
        self.vertical.take_off(x, y, z, v.now, self.rules)
        return True

    def land(self, at: tuple[float, float] | None = None) -> bool:
        if self.state.body.vehicle != "copter":
            return self.deny("Land: a rover does not land")
        self.state.mode = "land"
        self._return = None
        self._begin_landing(at)
        return True

    def _begin_landing(self, at: tuple[float, float] | None) -> None:
        self.state.landing = True
        self._velocity_setpoint = False
        self.vertical.land(self.rules, self.state.home[2], at)

    # -- modes -----------------------------------------------------------------------------------------
    def set_mode(self, custom_mode: int) -> bool:
        v = self.state
        p = v.personality
        name = p.mode_name(custom_mode)
        if name is None:
            return self.deny(f"Mode change: unknown mode {custom_mode}")
        if name in REFUSED_MODES:
            return self.deny(f"{name.upper()}: {REFUSED_MODES[name]}")
        if name == "offboard" and p.offboard_needs_setpoints and v.now - self._setpoint_t > p.setpoint_timeout_s:
            return self.deny("Offboard: no setpoints streaming")
        self._offboard.mode_chosen()
        if name == "takeoff":
            return self.takeoff(math.nan)
        if name in RETURN_MODES and not v.armed:
            return self.deny(f"{name.upper()}: vehicle not armed")
        if name in MISSION_MODES:
            return self._enter_mission(name)
        self._return = None
        self.missions.stop()
        v.mode = name
        if name == "land":
            return self.land()
        if name in RETURN_MODES:
            v.landing = False
            self._velocity_setpoint = False
            self._return = ReturnHome(v.body, v.home, Flight.of(self.state, self.rules).return_leg, v.now)
        elif name in HOLDING_MODES:
            v.landing = False
            self._hold_here()
            if name == "hold":
                self._fly_kept()
        return True

    def _enter_mission(self, name: str) -> bool:
        """AUTO/MISSION: fly the uploaded mission from the current item (once armed)."""
        if not self.missions.ready:
            return self.deny(f"{name.upper()}: no mission uploaded")
        self._return = None
        self.state.landing = False
        self._velocity_setpoint = False
        self.state.mode = name
        if self.state.armed:
            self.missions.fly()
        return True

    # -- what runs by itself ---------------------------------------------------------------------------
    def supervise(self) -> None:
        """Advance what runs by itself: the ground-station failsafe, a return home, setpoint
        time-outs (hold), take-off, and a landing (it ends on the ground, disarmed)."""
        v = self.state
        if self._gcs.lost(v.now, v.armed):
            self._gcs_lost(self._gcs.spec)
        self._idle.step(v, self.say, self.force_disarm)
        self.missions.step(v.now)
        self.vertical.step(v.now)
        if self._return is not None and v.mode in RETURN_MODES:
            self._step_return()
        self._check_setpoints()
        if v.mode == "takeoff" and self._takeoff_z is not None and v.body.position()[2] >= self._takeoff_z - 0.1:
            v.mode = "hold"
            self._fly_kept()
        if v.landing and self.vertical.landed(v.now, self.rules):
            v.landing = False
            if v.personality.auto_disarm_after_land:
                self.force_disarm()
            if v.mode not in MISSION_MODES | RETURN_MODES:  # a mission's or a return's landing keeps its mode
                v.mode = "hold" if v.personality is PX4 else "land"

    def _step_return(self) -> None:
        done = self._return.step(self.state.now)
        if done == "land":  # RTL lands itself: the mode stays RTL down to the ground, as on the autopilots
            self._return = None
            self._begin_landing(self.state.home[:2])
        elif done == "arrived":
            self._return = None
            self._hold_here()

    def _check_setpoints(self) -> None:
        """PX4 leaves OFFBOARD when its setpoints stop; a velocity setpoint that is not renewed holds."""
        v = self.state
        p = v.personality
        silent_s = v.now - self._setpoint_t
        if p.offboard_needs_setpoints and self._offboard.lost(v.mode, v.armed, silent_s):
            self.failsafe_taken("Failsafe: offboard signal lost, Position mode")
            v.mode = FALLBACK_MODE
            self._hold_here()
        elif self._velocity_setpoint and silent_s > p.setpoint_timeout_s:
            log.info("vehicle %d: setpoint stream lost, holding", v.sysid)
            self._hold_here()

    def _gcs_lost(self, spec: GcsFailsafe) -> None:
        """The ground station fell silent: act as `spec` says (on the ground: disarm)."""
        v = self.state
        log.warning("vehicle %d: no ground station heartbeat for %.1f s: failsafe %s", v.sysid, spec.timeout_s, spec.action)
        self.failsafe_taken(f"Failsafe: GCS lost, {spec.action}")
        if v.body.on_ground and not v.landing:
            self.arm(False)
            return
        wanted = GCS_LOSS_MODES[spec.action]
        self.set_mode(v.personality.modes[wanted if wanted in v.personality.modes else "hold"])
