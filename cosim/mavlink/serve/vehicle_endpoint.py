"""A simulated quadrotor or rover served as a MAVLink 2 vehicle on UDP, so ground stations and scripts
written for real vehicles can fly or drive it: the MAVLink face of its autopilot.

A served vehicle is three things: its state (cosim.mavlink.serve.vehicle_state), its autopilot, the mode
machine that arms, takes off, lands, changes mode, flies targets and missions and takes failsafes
(cosim.mavlink.serve.autopilot, which needs no socket), and this face. The endpoint listens on
`host:port` (127.0.0.1 unless told otherwise) and answers whoever writes to it: HEARTBEAT at 1 Hz
with the personality's autopilot, mode and armed bits; telemetry (GLOBAL_POSITION_INT,
LOCAL_POSITION_NED, ATTITUDE, SYS_STATUS with health bits, EXTENDED_SYS_STATE, HOME_POSITION,
MISSION_CURRENT); COMMAND_ACK for every command (cosim.mavlink.serve.commands decides it); parameters;
AUTOPILOT_VERSION; the mission protocol (cosim.mavlink.serve.missions.protocol). Malformed, foreign or
(with signing) unsigned traffic is counted and ignored.
"""

from __future__ import annotations

import logging

from pymavlink.dialects.v20 import common as mav

from cosim.mavlink.datagrams import Codec
from cosim.mavlink.frames import GeoOrigin
from cosim.mavlink.personality import PX4, Personality
from cosim.mavlink.serve import commands, setpoints
from cosim.mavlink.serve import telemetry as tm
from cosim.mavlink.serve.autopilot import Autopilot
from cosim.mavlink.serve.bodies import QuadBody, RoverBody
from cosim.mavlink.serve.failsafe import GcsFailsafe
from cosim.mavlink.serve.missions.protocol import MissionServer
from cosim.mavlink.serve.parameters import Parameters
from cosim.mavlink.serve.vehicle_port import Transport, VehiclePort

log = logging.getLogger(__name__)


class SimVehicleEndpoint:
    """A simulated body (QuadBody or RoverBody) as a MAVLink vehicle with system id `sysid`, on its
    own UDP port (`port` an int; 0 picks a free one) or on a shared transport (a VehiclePort, or the
    simulated network: cosim.mavlink.radio_link): the MAVLink face of
    its `autopilot` (cosim.mavlink.serve.autopilot, where `gcs_failsafe` and `position_after_s` go)."""

    def __init__(self, body: QuadBody | RoverBody, port: int | Transport, personality: Personality = PX4,
                 sysid: int = 1, origin: GeoOrigin | None = None, host: str = "127.0.0.1",
                 signing_key: bytes | str | None = None, gcs_failsafe: GcsFailsafe | None = None,
                 position_after_s: float = 0.0) -> None:
        if not 1 <= sysid <= 255:
            raise ValueError(f"a MAVLink system id is within 1..255, got {sysid}")
        self.sysid = sysid
        self.autopilot = Autopilot(body, personality, sysid, origin or GeoOrigin(), self.send, gcs_failsafe,
                                   position_after_s)
        self.state = self.autopilot.state
        self._owns_port = isinstance(port, int)
        self.transport: Transport = VehiclePort(port, host, signing_key) if isinstance(port, int) else port
        self.transport.add(self)
        self.port = self.transport.port
        self.stats = self.transport.stats
        self.codec = Codec(sysid, 1, self.transport.signing_key)
        self.streams = tm.Streams(personality.streams_unasked, personality.dialect_streams)

    # -- the port's hooks --------------------------------------------------------------------------
    def poll(self, now: float) -> None:
        """Handle what arrived, enforce timeouts, send what is due; `now` is simulated seconds."""
        self.transport.poll(now)

    def begin(self, now: float) -> None:
        """An instant starts (`now`: simulated seconds); the port hands over what arrived next."""
        self.state.now = now

    def end(self) -> None:
        """What arrived is handled: the autopilot advances, the body follows, telemetry goes out."""
        self.autopilot.supervise()
        self.state.body.update()
        self.send_due()

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
        now = self.state.now
        if self.streams.due("heartbeat", 1.0, now):
            self.send(tm.heartbeat(self.autopilot))
        every = self.state.personality.timesync_every_s
        if every is not None and self.streams.due("timesync", 1.0 / every, now):
            self.send(mav.MAVLink_timesync_message(0, int(now * 1e9)))
        for msg_id in self.streams.due_now(now):
            msg = self.streams.builders[msg_id](self.autopilot)
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
            handler = self.autopilot.missions.server.handle
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

    def _command(self, cmd: int, params: list[float], frame: int | None = None) -> None:
        self.stats.commands[cmd] = self.stats.commands.get(cmd, 0) + 1
        result, reply = commands.run(self.autopilot, self.streams, cmd, params, frame)
        self.ack(cmd, result)
        if reply is not None:  # after the acknowledgement, as the autopilots send it
            self.send(reply)

    def _on_command_long(self, m) -> None:
        self._command(m.command, [m.param1, m.param2, m.param3, m.param4, m.param5, m.param6, m.param7])

    def _on_command_int(self, m) -> None:
        self._command(m.command, [m.param1, m.param2, m.param3, m.param4, m.x / 1e7, m.y / 1e7, m.z], m.frame)

    def _on_heartbeat(self, m) -> None:
        if m.type == mav.MAV_TYPE_GCS:
            self.autopilot.gcs_heard()

    def _on_timesync(self, m) -> None:
        """Answer a ground station's TIMESYNC request with this vehicle's clock (simulated ns)."""
        if m.tc1 == 0:
            self.send(mav.MAVLink_timesync_message(int(self.state.now * 1e9), m.ts1))

    def _on_request_data_stream(self, m) -> None:
        """ArduPilot's stream groups; PX4 firmware ignores this message, and so does its personality."""
        if self.state.personality.data_stream_requests:
            self.streams.request_data_stream(m.req_stream_id, m.req_message_rate, bool(m.start_stop))

    def _on_set_mode(self, m) -> None:
        self.autopilot.set_mode(m.custom_mode)

    def _on_param(self, m) -> None:
        ap = self.autopilot
        replies, refused = ap.params.handle(m)
        if refused is not None:
            ap.deny(refused)
        elif m.get_type() == "PARAM_SET":
            ap.parameters_changed()
        for reply in replies:  # a refused PARAM_SET is still answered with the unchanged value, as ArduPilot does
            self.send(reply)

    def _on_set_position_target_local_ned(self, m) -> None:
        setpoints.local_target(self.autopilot, m)

    def _on_set_position_target_global_int(self, m) -> None:
        setpoints.global_target(self.autopilot, m)
