"""A simulated quadrotor or rover served as a MAVLink 2 vehicle on UDP, so ground stations and scripts
written for real vehicles can fly or drive it.

The endpoint listens on `host:port` (127.0.0.1 unless told otherwise) and answers whoever writes to
it: HEARTBEAT at 1 Hz with the personality's autopilot, mode and armed bits; telemetry
(GLOBAL_POSITION_INT, LOCAL_POSITION_NED, ATTITUDE, SYS_STATUS with health bits,
EXTENDED_SYS_STATE, HOME_POSITION, MISSION_CURRENT); COMMAND_ACK for every command; parameters;
AUTOPILOT_VERSION; the mission protocol (cosim.mavlink.mission_protocol) and missions flown in
AUTO/MISSION mode (cosim.mavlink.mission_run). Arm, take off, land, mode changes and
position/velocity setpoints drive the body (cosim.mavlink.bodies). Malformed, foreign or (with signing) unsigned traffic is
counted and ignored.
"""

from __future__ import annotations

import logging
import math
from dataclasses import replace

from pymavlink.dialects.v20 import common as mav

from cosim.mavlink import arming, commands, setpoints
from cosim.mavlink import telemetry as tm
from cosim.mavlink.bodies import QuadBody, RoverBody
from cosim.mavlink.datagrams import Codec
from cosim.mavlink.failsafe import GcsFailsafe, GcsWatch, act_on_gcs_loss
from cosim.mavlink.frames import GeoOrigin, yaw_to_heading
from cosim.mavlink.limits import MAX_HEIGHT_M
from cosim.mavlink.mission_control import MissionControl
from cosim.mavlink.mission_protocol import MissionServer
from cosim.mavlink.mission_run import Flight
from cosim.mavlink.offboard_loss import FALLBACK_MODE, OffboardLoss
from cosim.mavlink.parameters import Parameters
from cosim.mavlink.personality import GUIDED_MODES, HOLDING_MODES, MISSION_MODES, PX4, REFUSED_MODES, RETURN_MODES, Personality
from cosim.mavlink.reposition import KeptReposition
from cosim.mavlink.return_home import ReturnHome, ReturnLeg
from cosim.mavlink.shaping import Limits
from cosim.mavlink.takeoff_land import TakeoffLand
from cosim.mavlink.vehicle_port import VehiclePort

log = logging.getLogger(__name__)

ROVER_CRUISE_M_S = 5.0
"""A rover's mission legs' speed until a DO_CHANGE_SPEED."""
ROVER_RETURN_ALT_M = 0.0


class SimVehicleEndpoint:
    """A simulated body (QuadBody or RoverBody) as a MAVLink vehicle with system id `sysid`, on its
    own UDP port (`port` an int; 0 picks a free one) or on a shared VehiclePort. `gcs_failsafe`:
    what it does when its ground station falls silent (cosim.mavlink.failsafe). `position_after_s`: a
    cold start, without a position estimate (no GPS fix, EKF not using it) for that long."""

    def __init__(self, body: QuadBody | RoverBody, port: int | VehiclePort, personality: Personality = PX4,
                 sysid: int = 1, origin: GeoOrigin | None = None, host: str = "127.0.0.1",
                 signing_key: bytes | str | None = None, gcs_failsafe: GcsFailsafe | None = None,
                 position_after_s: float = 0.0) -> None:
        if personality.vehicle != body.vehicle:
            raise ValueError(f"the {personality.name} personality drives a {personality.vehicle}, not a {body.vehicle}")
        if not 1 <= sysid <= 255:
            raise ValueError(f"a MAVLink system id is within 1..255, got {sysid}")
        self.body = body
        self.p = personality
        self.sysid = sysid
        self.origin = origin or GeoOrigin()
        self.transport = port if isinstance(port, VehiclePort) else VehiclePort(port, host, signing_key)
        self._owns_port = not isinstance(port, VehiclePort)
        self.transport.add(self)
        self.port = self.transport.port
        self.stats = self.transport.stats
        self.codec = Codec(sysid, 1, self.transport.signing_key)
        self.armed = False
        self.mode = {"px4": "hold", "ardupilot": "stabilize"}.get(personality.name, "hold")
        self.home = body.position()
        self._takeoff_z: float | None = None
        self.params = Parameters(personality.parameters, {"SYSID_THISMAV": float(sysid)})
        self.rules = None if personality.rules is None else personality.rules(self.params.values)
        if self.rules is not None:
            body.set_limits(self.rules.limits)
        self.vertical = TakeoffLand(body)
        self.streams = tm.Streams(personality.streams_unasked, personality.dialect_streams)
        self.missions = MissionControl(personality, self.send, self.deny, self._flight, self._begin_landing,
                                       self._hold_here)
        self._setpoint_t = -math.inf
        self._velocity_setpoint = False
        self._offboard = OffboardLoss(personality.setpoint_timeout_s)
        self.kept = KeptReposition()  # PX4 flies it when Hold next starts
        self.failsafes: list[str] = []  # those it took by itself, in order (the bridge traces them)
        self.landing = False
        self._gcs = GcsWatch(gcs_failsafe or GcsFailsafe())
        self._return: ReturnHome | None = None
        self._idle = arming.IdleDisarm()
        self.position_after_s = position_after_s
        body.set_motors(False)  # motors stopped until armed
        self.now = 0.0

    # -- the loop's hook ---------------------------------------------------------------------------
    def poll(self, now: float) -> None:
        """Handle what arrived, enforce timeouts, send what is due; `now` is simulated seconds."""
        self.transport.poll(now)

    def close(self) -> None:
        if self._owns_port:
            self.transport.close()

    # -- sending ---------------------------------------------------------------------------------
    def send(self, msg) -> None:
        self.transport.send(self.codec.pack(msg))

    def send_due(self) -> None:
        """Send the heartbeat and telemetry that are due."""
        if not self.transport.peers:
            return
        if self.streams.due("heartbeat", 1.0, self.now):
            self.send(tm.heartbeat(self))
        if self.p.timesync_every_s is not None and self.streams.due("timesync", 1.0 / self.p.timesync_every_s, self.now):
            self.send(mav.MAVLink_timesync_message(0, int(self.now * 1e9)))
        for msg_id in self.streams.due_now(self.now):
            msg = self.streams.builders[msg_id](self)
            if msg is not None:  # (what a cold vehicle does not send yet)
                self.send(msg)

    def ack(self, command: int, result: int) -> None:
        self.send(mav.MAVLink_command_ack_message(command, result, 0, 0, 0, 0))

    # -- receiving -------------------------------------------------------------------------------------
    def handle(self, msg) -> None:
        """One message addressed to this vehicle. Nothing a sender puts in a message may stop the
        vehicle: a handler that fails is logged (rate-limited) and answered with a STATUSTEXT."""
        handler = getattr(self, "_on_" + msg.get_type().lower(), None)
        if msg.get_type() in MissionServer.HANDLED:
            handler = self.missions.server.handle
        elif msg.get_type() in Parameters.HANDLED:
            handler = self._on_param
        if handler is None:
            return
        try:
            handler(msg)
        except Exception as exc:  # untrusted input (a NaN, a bad index...) must never take the vehicle down
            self.stats.rejected += 1
            if self.stats.rejected <= 10 or self.stats.rejected % 1000 == 0:
                log.warning("vehicle %d: %s from a peer was refused (%s: %s); %d refused so far", self.sysid,
                            msg.get_type(), type(exc).__name__, exc, self.stats.rejected)
            self.send(mav.MAVLink_statustext_message(mav.MAV_SEVERITY_WARNING, f"{msg.get_type()} refused"[:50].encode()))

    def _on_command_long(self, m) -> None:
        commands.run(self, m.command, [m.param1, m.param2, m.param3, m.param4, m.param5, m.param6, m.param7])

    def _on_command_int(self, m) -> None:
        commands.run(self, m.command, [m.param1, m.param2, m.param3, m.param4, m.x / 1e7, m.y / 1e7, m.z], m.frame)

    def _on_heartbeat(self, m) -> None:
        if m.type == mav.MAV_TYPE_GCS:
            self._gcs.heard(self.now)

    def _on_timesync(self, m) -> None:
        """Answer a ground station's TIMESYNC request with this vehicle's clock (simulated ns)."""
        if m.tc1 == 0:
            self.send(mav.MAVLink_timesync_message(int(self.now * 1e9), m.ts1))

    def _on_request_data_stream(self, m) -> None:
        """ArduPilot's stream groups; PX4 firmware ignores this message, and so does its personality."""
        if self.p.data_stream_requests:
            self.streams.request_data_stream(m.req_stream_id, m.req_message_rate, bool(m.start_stop))

    def _on_set_mode(self, m) -> None:
        self.set_mode(m.custom_mode)

    def _on_param(self, m) -> None:
        replies, refused = self.params.handle(m)
        if refused is not None:
            self.deny(refused)
        elif self.p.rules is not None and m.get_type() == "PARAM_SET":
            self.rules = self.p.rules(self.params.values)
            self.body.set_limits(self.rules.limits)
        for reply in replies:  # a refused PARAM_SET is still answered with the unchanged value, as ArduPilot does
            self.send(reply)

    def _on_set_position_target_local_ned(self, m) -> None:
        setpoints.local_target(self, m)

    def _on_set_position_target_global_int(self, m) -> None:
        setpoints.global_target(self, m)

    def setpoint_heard(self) -> None:
        self._setpoint_t = self.now
        if self._offboard.regained(self.mode, self.armed):
            self.mode = "offboard"

    @property
    def following(self) -> bool:
        """Setpoints act: armed, in GUIDED or OFFBOARD."""
        return self.mode in GUIDED_MODES and self.armed

    def _grounded_by_setpoint(self) -> bool:
        """ArduCopter in GUIDED keeps a copter on the ground there (ending its take-off); PX4 lifts off."""
        if self.p.setpoints_lift_off or self.body.vehicle != "copter" or not self.body.on_ground:
            return False
        self._takeoff_z = None
        self._hold_here()
        return True

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
        self.body.velocity_body(a, b, c, heading) if body else self.body.velocity_world(a, b, c, heading)

    # -- vehicle logic -----------------------------------------------------------------------------
    def _goto(self, x: float, y: float, z: float, yaw_ned: float | None, leg: Limits | None = None) -> None:
        heading = None if yaw_ned is None or math.isnan(yaw_ned) else yaw_to_heading(yaw_ned)
        self.vertical.cancel()
        self.body.goto(x, y, z, heading, leg)

    def _hold_here(self) -> None:
        self._velocity_setpoint = False
        self.vertical.cancel()
        self.body.hold()

    def deny(self, reason: str) -> bool:
        """Refuse a request; the reason goes out as STATUSTEXT before the COMMAND_ACK."""
        self.send(mav.MAVLink_statustext_message(mav.MAV_SEVERITY_WARNING, reason.encode()[:50]))
        return False

    def failsafe_taken(self, text: str) -> None:
        """A failsafe the vehicle took by itself: announced (STATUSTEXT) and kept in `failsafes`."""
        self.failsafes.append(text)
        self.deny(text)

    def say(self, text: str) -> None:
        """A STATUSTEXT (the autopilots' announcements)."""
        self.send(mav.MAVLink_statustext_message(mav.MAV_SEVERITY_INFO, text.encode()[:50]))

    @property
    def position_ready(self) -> bool:
        """The vehicle has a position estimate (its EKF and GPS are ready: `position_after_s` after start)."""
        return self.now >= self.position_after_s

    def arm(self, arm: bool) -> bool:
        if arm == self.armed:
            return True
        if arm:
            why = arming.refusal(self)
            if why is not None:
                return self.deny(why)
            self.armed = True
            self.body.set_motors(True)
            self.vertical.arm(self.now)
            arming.say_armed(self, True)
            self._hold_here()
            if self.mode in MISSION_MODES:
                self.missions.fly()
            return True
        if not self.body.on_ground:
            return self.deny("Disarm: vehicle is in the air")
        self.force_disarm()
        return True

    def force_disarm(self) -> None:
        """Stop the motors now (a disarm the vehicle decides on, or one asked for on the ground)."""
        self.armed, self.landing = False, False
        self.vertical.cancel()
        self.body.set_motors(False)
        arming.say_armed(self, False)

    def takeoff(self, altitude: float, amsl: bool | None = None) -> bool:
        """Climb to `altitude` (m above sea level if `amsl`, else above home; None: as the personality reads it)."""
        if self.body.vehicle != "copter":
            return self.deny("Takeoff: a rover does not take off")
        if not self.armed:
            return self.deny("Takeoff: vehicle not armed")
        x, y, _ = self.body.position()
        if math.isnan(altitude):  # PX4: the altitude is the MIS_TAKEOFF_ALT parameter (what MAVSDK sets)
            z = self.home[2] + self.rules.takeoff_alt
        elif self.p.takeoff_altitude_is_amsl if amsl is None else amsl:
            z = altitude - self.origin.alt
        else:
            z = self.home[2] + altitude
        if not 0.0 < z - self.home[2] <= MAX_HEIGHT_M:
            return self.deny(f"Takeoff: {z - self.home[2]:.0f} m above home is not within 0..{MAX_HEIGHT_M:.0f} m")
        self.landing = False
        if "takeoff" in self.p.modes:
            self.mode = "takeoff"
        self._takeoff_z = z
        self.vertical.take_off(x, y, z, self.now, self.rules)
        return True

    def land(self, at: tuple[float, float] | None = None) -> bool:
        if self.body.vehicle != "copter":
            return self.deny("Land: a rover does not land")
        self.mode = "land"
        self._return = None
        self._begin_landing(at)
        return True

    def _begin_landing(self, at: tuple[float, float] | None) -> None:
        self.landing = True
        self._velocity_setpoint = False
        self.vertical.land(self.rules, self.home[2], at)

    def set_mode(self, custom_mode: int, must_fly: bool = False) -> bool:
        name = self.p.mode_name(custom_mode)
        if name is None:
            return self.deny(f"Mode change: unknown mode {custom_mode}")
        if name in REFUSED_MODES:
            return self.deny(f"{name.upper()}: {REFUSED_MODES[name]}")
        if name == "offboard" and self.p.offboard_needs_setpoints and self.now - self._setpoint_t > self.p.setpoint_timeout_s:
            return self.deny("Offboard: no setpoints streaming")
        self._offboard.mode_chosen()
        if name == "takeoff":
            return self.takeoff(math.nan)
        if name in RETURN_MODES and not self.armed:
            return self.deny(f"{name.upper()}: vehicle not armed")
        if name in MISSION_MODES:
            return self._enter_mission(name, must_fly)
        self._return = None
        self.missions.stop()
        self.mode = name
        if name == "land":
            return self.land()
        if name in RETURN_MODES:
            self.landing = False
            self._velocity_setpoint = False
            self._return = ReturnHome(self.body, self.home, self._flight().return_leg, self.now)
        elif name in HOLDING_MODES:
            self.landing = False
            self._hold_here()
            if name == "hold":
                self.kept.fly(self)
        return True

    # -- missions ------------------------------------------------------------------------------------
    def _enter_mission(self, name: str, must_fly: bool) -> bool:
        """AUTO/MISSION: fly the uploaded mission from the current item (once armed)."""
        if not self.missions.ready:
            return self.deny(f"{name.upper()}: no mission uploaded")
        if must_fly and not self.armed:
            return self.deny("Mission start: vehicle not armed")
        self._return, self.landing, self._velocity_setpoint = None, False, False
        self.mode = name
        if self.armed:
            self.missions.fly()
        return True

    def _flight(self) -> Flight:
        if self.rules is None:
            return Flight(self.body, self.home, self.origin, ReturnLeg(ROVER_RETURN_ALT_M, None), ROVER_CRUISE_M_S)
        r = self.rules
        return Flight(self.body, self.home, self.origin, ReturnLeg(r.rtl_alt, replace(r.auto, speed=r.rtl_speed),
                                                                   r.rtl_loiter_s), r.auto.speed, r.auto)

    def supervise(self) -> None:
        """Advance what runs by itself: the ground-station failsafe, a return home, setpoint
        time-outs (hold), take-off, and a landing (it ends on the ground, disarmed)."""
        if self._gcs.lost(self.now, self.armed):
            act_on_gcs_loss(self, self._gcs.spec)
        self._idle.step(self)
        self.missions.step(self.now)
        self.vertical.step(self.now)
        if self._return is not None and self.mode in RETURN_MODES:
            done = self._return.step(self.now)
            if done == "land":  # RTL lands itself: the mode stays RTL down to the ground, as on the autopilots
                self._return = None
                self._begin_landing(self.home[:2])
            elif done == "arrived":
                self._return = None
                self._hold_here()
        silent_s = self.now - self._setpoint_t
        if self.p.offboard_needs_setpoints and self._offboard.lost(self.mode, self.armed, silent_s):
            self.failsafe_taken("Failsafe: offboard signal lost, Position mode")
            self.mode = FALLBACK_MODE
            self._hold_here()
        elif self._velocity_setpoint and silent_s > self.p.setpoint_timeout_s:
            log.info("vehicle %d: setpoint stream lost, holding", self.sysid)
            self._hold_here()
        if self.mode == "takeoff" and self._takeoff_z is not None and self.body.position()[2] >= self._takeoff_z - 0.1:
            self.mode = "hold"
            self.kept.fly(self)
        if self.landing and self.vertical.landed(self.now, self.rules):
            self.landing = False
            if self.p.auto_disarm_after_land:
                self.force_disarm()
            if self.mode not in MISSION_MODES | RETURN_MODES:  # a mission's or a return's landing keeps its mode
                self.mode = "hold" if self.p is PX4 else "land"
