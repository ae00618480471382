"""The adapter for vehicles reached over MAVLink (real ArduPilot or PX4 vehicles, or simulated
endpoints): a `Controller` flies them through the same robot API it uses in simulation.

`MavlinkLink` is one UDP connection (to 127.0.0.1 unless told otherwise) that may carry several
vehicles, told apart by system id. `MavlinkVehicle` discovers its vehicle by heartbeat, sends our
own heartbeat at 1 Hz, asks for telemetry rates, waits for COMMAND_ACK with retries (failures
carry the vehicle's STATUSTEXT), streams the controller's latest setpoint at 10 Hz (a velocity
setpoint older than its time-to-live becomes hold; a position target is already safe to keep: it
stands until replaced), and checks that what the vehicle acknowledged keeps happening: once it is
ours (`watch`), a vehicle that disarms, lands or changes mode by itself, or falls silent, is no
longer commanded and says why in `failsafe`. Taking off is `cosim.mavlink.client.launch`;
`cosim.mavlink.client.remote_robot.MavlinkRobot` is the controller's `robot`.
"""

from __future__ import annotations

import logging
import math
import socket
import time
from collections.abc import Callable

import numpy as np
from pymavlink.dialects.v20 import common as mav

from cosim.mavlink.datagrams import Codec
from cosim.mavlink.frames import ned_to_enu, yaw_to_heading
from cosim.mavlink.mission_items import MissionProgress
from cosim.mavlink.personality import PX4, Personality
from cosim.mavlink.ratelog import RateLimitedLog

log = logging.getLogger(__name__)

_VELOCITY_MASK = 0b0000_1011_1100_0111  # use vx, vy, vz and yaw (bit 10 clear: the yaw counts)
_POSITION_MASK = 0b0000_1011_1111_1000  # use x, y, z and yaw


class MavlinkError(RuntimeError):
    """A command the vehicle refused or never acknowledged; the message carries its STATUSTEXT."""


_MISSION_PROTOCOL = {"MISSION_REQUEST", "MISSION_REQUEST_INT", "MISSION_ACK", "MISSION_COUNT", "MISSION_ITEM_INT"}
_FLOAT_FIELDS = {"LOCAL_POSITION_NED": ("x", "y", "z", "vx", "vy", "vz"), "ATTITUDE": ("roll", "pitch", "yaw")}


def plausible(m) -> bool:
    """False for telemetry no vehicle can send: a non-finite position, velocity or attitude, or
    coordinates beyond the poles or the date line (a twin must never take a NaN pose from a sender)."""
    kind = m.get_type()
    if kind == "GLOBAL_POSITION_INT":
        return abs(m.lat) <= 900_000_000 and abs(m.lon) <= 1_800_000_000
    return all(math.isfinite(getattr(m, f)) for f in _FLOAT_FIELDS.get(kind, ()))


class MavlinkLink:
    """One UDP connection carrying one or more vehicles (demultiplexed by system id).

    `connect` (default): `host:port` is the vehicle's (or its radio's) address and we write first.
    `listen`: we bind `host:port` (127.0.0.1 unless told otherwise) and answer whoever sends to it,
    as a ground station does for SITL's or MAVProxy's `--out=udp:127.0.0.1:14550`.
    With `signing_key` (32 bytes, 64 hex digits or a passphrase) our frames are MAVLink 2 signed and
    the vehicle's unsigned or badly signed frames are dropped and counted."""

    def __init__(self, host: str = "127.0.0.1", port: int = 14540, signing_key: bytes | str | None = None,
                 link_id: int = 1, mode: str = "connect") -> None:
        if mode not in ("connect", "listen"):
            raise ValueError(f"mode is connect or listen, got {mode!r}")
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.sock.setblocking(False)
        self.addr: tuple[str, int] | None = (host, port)
        if mode == "listen":
            try:
                self.sock.bind((host, port))
            except OSError as exc:
                self.sock.close()
                raise OSError(exc.errno, f"cannot bind UDP {host}:{port}: {exc.strerror}") from None
            self.addr = None  # learnt from the first datagram
        self.port = self.sock.getsockname()[1] if mode == "listen" else port
        self.codec = Codec(255, 190, signing_key, link_id)
        self.vehicles: dict[int, MavlinkVehicle] = {}
        self.ignored = 0  # foreign messages (other system ids); malformed ones are in codec.stats
        self.refused = 0  # messages with impossible values (a NaN position, a latitude beyond 90 degrees)
        self._bad_log = RateLimitedLog(log)

    def send(self, msg) -> None:
        if self.addr is None:
            return  # listening, and nobody has spoken yet
        try:
            self.sock.sendto(self.codec.pack(msg), self.addr)
        except OSError as exc:  # e.g. no route while a radio is down: the heartbeat watchdog reports it
            log.debug("send to %s failed: %s", self.addr, exc)

    def poll(self) -> None:
        while True:
            try:
                data, sender = self.sock.recvfrom(65536)
            except (BlockingIOError, ConnectionRefusedError):
                break
            bad = self.codec.stats.malformed + self.codec.stats.rejected_signature
            msgs = self.codec.parse(data)
            now = time.monotonic()
            if self.codec.stats.malformed + self.codec.stats.rejected_signature > bad:
                self._bad_log.warn(now, "udp %s: dropped a malformed or badly signed datagram from %s", self.port, sender)
            if msgs and self.addr is None:
                self.addr = sender
            for m in msgs:
                v = self.vehicles.get(m.get_srcSystem())
                if v is None:
                    self.ignored += 1
                elif not plausible(m):
                    self.refused += 1
                    self._bad_log.warn(now, "vehicle %d: %s with impossible values dropped", m.get_srcSystem(), m.get_type())
                else:
                    v.receive(m)

    def close(self) -> None:
        self.sock.close()


WANTED_HZ = {mav.MAVLINK_MSG_ID_GLOBAL_POSITION_INT: 10.0, mav.MAVLINK_MSG_ID_LOCAL_POSITION_NED: 10.0,
             mav.MAVLINK_MSG_ID_ATTITUDE: 10.0, mav.MAVLINK_MSG_ID_SYS_STATUS: 2.0,
             mav.MAVLINK_MSG_ID_EXTENDED_SYS_STATE: 2.0, mav.MAVLINK_MSG_ID_GPS_RAW_INT: 1.0}
"""The telemetry a vehicle is asked for (ArduPilot sends none until asked; PX4 streams unasked)."""
DATA_STREAMS_HZ = {mav.MAV_DATA_STREAM_POSITION: 10, mav.MAV_DATA_STREAM_EXTRA1: 10, mav.MAV_DATA_STREAM_EXTENDED_STATUS: 2,
                   mav.MAV_DATA_STREAM_EXTRA3: 1}
"""The same as ArduPilot's REQUEST_DATA_STREAM groups, for firmware older than SET_MESSAGE_INTERVAL."""
_EKF_STATUS = 193
"""ArduPilot's EKF_STATUS_REPORT (cosim.mavlink.client.readiness reads it)."""
STREAMS_STALE_S = 2.0
"""Telemetry missing or older than this (s) after a heartbeat: the streams are asked for again."""


class MavlinkVehicle:
    """One vehicle on a link: its latest telemetry, and commands with acknowledgement."""

    def __init__(self, link: MavlinkLink, sysid: int, personality: Personality = PX4, setpoint_hz: float = 10.0,
                 setpoint_ttl_s: float = 1.0) -> None:
        self.link = link
        self.sysid = sysid
        self.personality = personality
        link.vehicles[sysid] = self
        self.latest: dict[str, object] = {}
        self.statustext: list[str] = []
        self._acks: dict[int, int] = {}
        self.setpoint: tuple | None = None  # ("velocity", vn, ve, vd, yaw) or ("position", n, e, d, yaw)
        self.setpoint_t = -math.inf
        self.setpoint_hz = setpoint_hz
        self.setpoint_ttl_s = setpoint_ttl_s
        self._next_heartbeat = 0.0
        self._next_setpoint = 0.0
        self.streaming = False
        self.watching = False  # the vehicle is ours: it must stay armed, in expected_mode (and airborne)
        self.expect_airborne = False
        self.heartbeat_t = -math.inf
        self.expected_mode: int | None = None  # the mode we put the vehicle in; another one means a pilot took over
        self.failsafe: str | None = None  # why we stopped commanding, if we did
        self.heartbeat_timeout_s = 3.0
        self.position_t = -math.inf  # wall time of the latest GLOBAL_POSITION_INT
        self.mission_inbox: list = []  # mission protocol messages not yet taken (cosim.mavlink.client.missions)
        self.mission: MissionProgress | None = None  # the mission we gave it, as it reports it
        self._next_stream_request = -math.inf
        self.stream_requests = 0  # times the telemetry streams were asked for

    # -- telemetry ---------------------------------------------------------------------------------
    def receive(self, m) -> None:
        kind = m.get_type()
        self.latest[kind] = m
        if kind == "HEARTBEAT":
            self.heartbeat_t = time.monotonic()
            self._check_heartbeat(m)
        elif kind == "EXTENDED_SYS_STATE":
            landed = m.landed_state in (mav.MAV_LANDED_STATE_ON_GROUND, mav.MAV_LANDED_STATE_LANDING)
            if self.watching and self.expect_airborne and landed:
                self._stop("the vehicle is landing or landed by itself (a failsafe on board?): no longer commanding")
        elif kind == "GLOBAL_POSITION_INT":
            self.position_t = time.monotonic()
        elif kind in _MISSION_PROTOCOL:
            self.mission_inbox = [*self.mission_inbox[-63:], m]
        elif kind in ("MISSION_CURRENT", "MISSION_ITEM_REACHED") and self.mission is not None:
            self.mission.heard(m)
            if self.mission.complete:  # what follows (a landing, a disarm) is the mission's own
                self.watching = False
        elif kind == "COMMAND_ACK":
            self._acks[m.command] = m.result
        elif kind == "STATUSTEXT":
            self.statustext.append(m.text)

    @property
    def armed(self) -> bool:
        hb = self.latest.get("HEARTBEAT")
        return bool(hb and hb.base_mode & mav.MAV_MODE_FLAG_SAFETY_ARMED)

    def position_enu(self) -> np.ndarray:
        lp = self.latest.get("LOCAL_POSITION_NED")
        return np.array(ned_to_enu(lp.x, lp.y, lp.z)) if lp else np.full(3, np.nan)

    def velocity_enu(self) -> np.ndarray:
        lp = self.latest.get("LOCAL_POSITION_NED")
        return np.array(ned_to_enu(lp.vx, lp.vy, lp.vz)) if lp else np.full(3, np.nan)

    def heading(self) -> float:
        att = self.latest.get("ATTITUDE")
        return yaw_to_heading(att.yaw) if att else math.nan

    # -- the loop --------------------------------------------------------------------------------
    def watch(self, mode: int, airborne: bool = False) -> None:
        """From now on the vehicle must stay armed and in `mode` (and off the ground if `airborne`)."""
        self.expected_mode = mode
        self.expect_airborne = airborne
        self.watching = True

    def release(self) -> None:
        """We stop commanding on purpose (landing at the end): nothing it does now is a failsafe."""
        self.watching = self.streaming = False

    def _check_heartbeat(self, hb) -> None:
        if not self.watching:
            return
        if not hb.base_mode & mav.MAV_MODE_FLAG_SAFETY_ARMED:
            self._stop("the vehicle disarmed by itself: no longer commanding")
        elif self.expected_mode is not None and hb.custom_mode != self.expected_mode:
            name = self.personality.mode_name(hb.custom_mode) or str(hb.custom_mode)
            self._stop(f"mode changed to {name} by someone else (a pilot, or a failsafe on board): no longer commanding")

    def _stop(self, why: str) -> None:
        self.watching = self.streaming = False
        if self.failsafe is None:
            self.failsafe = why
        log.warning("vehicle %d: %s", self.sysid, why)

    def tick(self, now: float) -> None:
        """Heartbeat at 1 Hz; the latest setpoint at setpoint_hz while streaming (hold when stale);
        a vehicle silent for heartbeat_timeout_s is reported lost and no longer commanded."""
        if self.watching and now - self.heartbeat_t > self.heartbeat_timeout_s:
            self._stop(f"no heartbeat for {now - self.heartbeat_t:.1f} s: vehicle lost")
        if now >= self._next_heartbeat:
            self._next_heartbeat = now + 1.0
            self.link.send(mav.MAVLink_heartbeat_message(mav.MAV_TYPE_GCS, mav.MAV_AUTOPILOT_INVALID, 0, 0, 0, 3))
        if "HEARTBEAT" in self.latest and now >= self._next_stream_request and self._telemetry_missing(now):
            self._next_stream_request = now + 1.0
            self.request_streams()
        if self.streaming and now >= self._next_setpoint:
            self._next_setpoint = now + 1.0 / self.setpoint_hz
            moving = self.setpoint is not None and self.setpoint[0] == "velocity"
            if self.setpoint is None or (moving and now - self.setpoint_t > self.setpoint_ttl_s):
                self.hold()
            self._send_setpoint()

    def _telemetry_missing(self, now: float) -> bool:
        have = all(k in self.latest for k in ("GLOBAL_POSITION_INT", "LOCAL_POSITION_NED", "ATTITUDE"))
        return not have or now - self.position_t > STREAMS_STALE_S

    def request_streams(self) -> None:
        """Ask for the telemetry this side needs, as a ground station does on connecting (and again
        while it does not come: a rebooted autopilot forgets)."""
        self.stream_requests += 1
        ekf = [(_EKF_STATUS, 1.0)] if _EKF_STATUS in self.personality.dialect_streams else []  # when a position is real
        for msg_id, hz in [*WANTED_HZ.items(), *ekf]:
            self.link.send(mav.MAVLink_command_long_message(self.sysid, 1, mav.MAV_CMD_SET_MESSAGE_INTERVAL, 0, msg_id,
                                                            1e6 / hz, 0, 0, 0, 0, 0))
        if self.personality.data_stream_requests:
            for stream, hz in DATA_STREAMS_HZ.items():
                self.link.send(mav.MAVLink_request_data_stream_message(self.sysid, 1, stream, hz, 1))

    def hold(self) -> None:
        lp = self.latest.get("LOCAL_POSITION_NED")
        yaw = self.latest["ATTITUDE"].yaw if "ATTITUDE" in self.latest else 0.0
        if lp is not None:
            self.setpoint = ("position", lp.x, lp.y, lp.z, yaw)

    def _send_setpoint(self) -> None:
        if self.setpoint is None:
            return
        kind, a, b, c, yaw = self.setpoint
        if kind == "velocity":
            msg = mav.MAVLink_set_position_target_local_ned_message(0, self.sysid, 1, mav.MAV_FRAME_LOCAL_NED,
                                                                    _VELOCITY_MASK, 0, 0, 0, a, b, c, 0, 0, 0, yaw, 0)
        else:
            msg = mav.MAVLink_set_position_target_local_ned_message(0, self.sysid, 1, mav.MAV_FRAME_LOCAL_NED,
                                                                    _POSITION_MASK, a, b, c, 0, 0, 0, 0, 0, 0, yaw, 0)
        self.link.send(msg)

    # -- commands ---------------------------------------------------------------------------------
    def command(self, cmd: int, *params: float, retries: int = 3, timeout_s: float = 1.0,
                wait: Callable[[float], None] | None = None) -> None:
        """COMMAND_LONG, resent until acknowledged; raises MavlinkError with the vehicle's reason."""
        p = list(params) + [0.0] * (7 - len(params))
        for attempt in range(retries):
            self._acks.pop(cmd, None)
            self.link.send(mav.MAVLink_command_long_message(self.sysid, 1, cmd, attempt, *p))
            end = time.monotonic() + timeout_s
            while time.monotonic() < end:
                (wait or time.sleep)(0.02)
                self.link.poll()
                if cmd in self._acks:
                    result = self._acks[cmd]
                    if result in (mav.MAV_RESULT_ACCEPTED, mav.MAV_RESULT_IN_PROGRESS):
                        return
                    reason = self.statustext[-1] if self.statustext else "no STATUSTEXT"
                    raise MavlinkError(f"vehicle {self.sysid} refused command {cmd} (result {result}): {reason}")
        raise MavlinkError(f"vehicle {self.sysid} did not acknowledge command {cmd} after {retries} tries")

