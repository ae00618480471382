"""Unmodified ArduPilot firmware flying a quadrotor of the scenario, in lock-step with the
simulation (ArduPilot's JSON SITL interface, cosim.mavlink.sitl.json_wire).

Each robot of a `mavlink.sitl` group is one firmware instance (`arducopter --model JSON -I k`,
sending to port + 10 k). The firmware runs one frame per answer, and its IMU samples only as often
as answers bring newer timestamps, so the coupling answers at the frame rate the firmware asks for
(`frame_rate` in every servo packet, SIM_RATE_HZ: 1200 Hz by default): it is the world's motor feed
(physics.world.MotorFeed), and each physics step of dt holds n = ceil(dt * frame_rate) control
ticks of dt / n. At the start of every tick it answers the firmware's last frame with the
vehicle's state at that instant (timestamp = simulated time), waits for the next frame and hands
its four motor outputs to the quadrotor (physics.bodies.quadrotor's Mode.MOTORS) for that tick. All
quadrotors of the run tick at dt / n meanwhile (one bank). Neither side runs ahead: the firmware
waits for our answer, the timeline waits for its frame, so the run is not paced to the wall clock
and the same scenario, seed and firmware give the same trajectory. The firmware sends its frame
again (same count) after 1.1 s without an answer, and takes every datagram it receives as the answer
to its latest frame, one per frame. So a copy is answered again only when it reached us more than
RESEND_GRACE_S after our answer (our answer was lost); copies that reached us before it, or crossed
it (those queued while the run started up, or sent as a late answer arrived), are counted as
`crossed` and not answered: each extra answer would leave the firmware one more frame behind the
physics for the rest of the run, as many as the wall clock allowed copies. A count that goes back
(the firmware restarted) puts the vehicle back where it started, with a `sitl_restart` event in
the trace. A frame rate of 0 or above MAX_FRAME_RATE_HZ is refused (counted as `bad_rate`, logged
once) and the last good rate kept.
"""

from __future__ import annotations

import logging
import math
import socket
import struct
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from cosim.core.timeunits import NS_PER_S
from cosim.mavlink.frames import GeoOrigin, heading_to_yaw
from cosim.mavlink.sitl.frd_kernel import ROW, frd_rows
from cosim.mavlink.sitl.json_wire import ServoFrame, parse_servo, quad_thrusts, state_text
from cosim.mavlink.sitl.px4_link import Px4Link
from cosim.mavlink.sitl.px4_vehicle import PERIOD_US, PX4_RATE_HZ, Px4Vehicle
from physics.bodies.quadrotor import Mode
from physics.robot import Robot

log = logging.getLogger(__name__)
MAX_FRAME_RATE_HZ = 10_000
"""Above this a servo packet's frame rate is refused (ArduPilot's own SITL runs 1200 Hz by default)."""
RESEND_GRACE_S = 0.1
"""A copy of a frame that reaches us within this long after our answer left crossed it (the firmware resends
after 1.1 s of silence, so a lost answer's copy comes later, or its next copy does)."""
SO_TIMESTAMPNS = 35
"""Linux's option (and ancillary message type) for each datagram's arrival time; Python does not name it."""
JSON_ORDER = [9, 10, 11, 12, 13, 14, 0, 1, 2, 3, 4, 5, 6, 7, 8]
"""A frd_kernel row (position, velocity, attitude, gyro, specific force) in the answer's order."""


@dataclass
class SitlVehicle:
    """One firmware instance and the robot it flies."""

    node: int
    spec: Any
    sock: socket.socket
    start: np.ndarray
    heading0: float
    max_thrust: float
    slot: int
    index: int
    """Its row in the coupling's arrays."""
    peer: tuple[str, int] | None = None
    last: ServoFrame | None = None
    pending: ServoFrame | None = None  # received, its motors not yet applied
    rate_hz: int = 0  # the last good frame rate the firmware asked for
    answer: bytes = b""
    answered_ns: int = 0
    """When the last answer left (the wall clock, ns)."""
    stats: dict[str, int] = field(default_factory=lambda: {"frames": 0, "resent": 0, "crossed": 0, "lost": 0,
                                                           "restarts": 0, "bad_rate": 0})


class SitlPortBusy(ValueError):
    """A firmware's port cannot be bound; `entry` is the index of its `mavlink.sitl` entry."""

    def __init__(self, entry: int, message: str) -> None:
        super().__init__(message)
        self.entry = entry


class SitlRobot(Robot):
    """The `robot` of a quadrotor that ArduPilot firmware flies: it senses and its controller talks,
    but its motors are the firmware's, so motion commands are refused (fly it over MAVLink)."""

    __slots__ = ()

    def _refuse(self, *args, **kwargs) -> None:
        raise ValueError(f"robot {self.id} is flown by ArduPilot firmware over JSON SITL: its motors are the "
                         "firmware's; command it over MAVLink (a ground station, or mavlink.ghosts), not from its controller")

    set_velocity = turn = set_heading = hover = fly = drive = set_wheel_speeds = _refuse


class SitlCoupling:
    """The scenario's `mavlink.sitl` entries; `groups` maps a group name to (first node, count)."""

    def __init__(self, specs: tuple, groups: dict[str, tuple[int, int]], origin: GeoOrigin,
                 noise: Callable[[int], np.random.Generator] = lambda node: np.random.default_rng(node)) -> None:
        self.specs = specs
        self.origin = origin
        self.noise = noise
        """Each robot's seeded stream for the sensor noise PX4 needs (it takes unchanging readings for a failed sensor)."""
        self.plan: list[tuple[int, Any, int, int]] = []  # (node, spec, port, entry)
        for entry, spec in enumerate(specs):
            first, count = groups[spec.group]
            self.plan += [(first + k, spec, spec.instance_port(k), entry) for k in range(count)]
        self.socks = {}
        self.links: dict[int, Px4Link] = {}
        for node, spec, port, entry in self.plan:  # bound now: a busy port fails before the run
            try:
                self._bind(node, spec, port)
            except OSError as exc:
                self.finish(None)
                kind, step = ("tcp", "port + k") if spec.autopilot == "px4" else ("udp", "port + 10 k")
                raise SitlPortBusy(entry, f"{kind} {spec.host}:{port} for robot {node} ({step} for its k-th robot) cannot "
                                 f"be bound: {exc.strerror}; is another run or physics backend using it?") from None
        self.vehicles: list[SitlVehicle] = []
        self.px4: list[Px4Vehicle] = []
        self._sim: Any = None
        self._ticks = 1
        self._slots = np.zeros(0, dtype=np.int64)
        self._about = np.zeros((0, 3))  # each vehicle's start: its NED origin
        self._prev = np.zeros((0, 3))  # each vehicle's velocity a tick ago
        self._rows = np.zeros((0, ROW))

    def _bind(self, node: int, spec: Any, port: int) -> None:
        if spec.autopilot == "px4":
            self.links[node] = Px4Link(spec.host, port)
            return
        sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        sock.setsockopt(socket.SOL_SOCKET, SO_TIMESTAMPNS, 1)
        try:
            sock.bind((spec.host, port))
        except OSError:
            sock.close()
            raise
        self.socks[node] = sock

    def start(self, sim: Any) -> None:
        self._sim = sim
        world = sim.world
        for node, spec, _, _ in self.plan:
            slot = int(world.quad_slot[node])
            if slot < 0:
                raise ValueError(f"robot {node} ({spec.group}) is flown by firmware in lock-step: it must be a quadrotor")
            thrust = float(world.quads.max_rotor[slot])
            if spec.autopilot == "px4":
                self.px4.append(Px4Vehicle(node, spec, self.links[node], world.quads.pos[slot].copy(), thrust, slot,
                                           self.origin, self.noise(node)))
                continue
            v = SitlVehicle(node, spec, self.socks[node], world.quads.pos[slot].copy(), float(world.headings()[node]),
                            thrust, slot, len(self.vehicles))
            self.vehicles.append(v)
            lat, lon, alt = self.origin.to_geodetic(*world.position_of(node).tolist())
            log.info("robot %d: ArduPilot over JSON SITL on udp port %d; start it with --home %.7f,%.7f,%.2f,%.0f",
                     node, v.sock.getsockname()[1], lat, lon, alt, yaw_deg(v.heading0))
        # ArduPilot's vehicles about their starts (its NED origin is --home), then PX4's about the origin
        n = len(self.vehicles) + len(self.px4)
        self._slots = np.array([v.slot for v in self.vehicles] + [p.slot for p in self.px4], dtype=np.int64)
        self._about = np.array([v.start for v in self.vehicles] + [np.zeros(3) for _ in self.px4]).reshape(-1, 3)
        self._prev = np.zeros((n, 3))
        self._rows = np.zeros((n, ROW))
        world.attach_motor_feed(self)

    # -- physics.world.MotorFeed ------------------------------------------------------------------
    def ticks_per_step(self, dt_s: float) -> int:
        """Control ticks per physics step: enough for the fastest frame rate asked for (the first
        frame of each firmware is awaited here, within connect_timeout)."""
        for v in self.vehicles:
            if v.last is None:
                v.pending = self._next_frame(v)
        for p in self.px4:
            if p.link.conn is None:
                p.link.connect(p.spec.connect_timeout_ns / NS_PER_S)
        rate = max([v.rate_hz for v in self.vehicles] + [PX4_RATE_HZ for _ in self.px4])
        if rate:
            self._ticks = max(1, math.ceil(rate * dt_s - 1e-6))
        if self.px4:  # a whole number of ticks per 4 ms, so that PX4's sensor times fall on ticks
            per_period = round(dt_s * 1e6) // PERIOD_US
            self._ticks = math.ceil(self._ticks / per_period) * per_period
        return self._ticks

    def feed(self, bank: Any, tick: int, ticks: int) -> None:
        """Answer each firmware's last frame with the state of this tick's instant, take its next frame
        and set its motors for the tick."""
        sim = self._sim
        t_s = (sim.clock.now_ns - sim.dt_ns + tick * sim.dt_ns / ticks) / NS_PER_S
        h = sim.dt_ns / ticks / NS_PER_S
        frd_rows(bank.pos, bank.vel, bank.euler, bank.rates, self._slots, self._about, self._prev, h, self._rows)
        for p, row in zip(self.px4, self._rows[len(self.vehicles):].tolist()):
            p.sense(bank, t_s, row)
        answered = []
        rows = self._rows[:len(self.vehicles), JSON_ORDER].tolist()
        for v, row in zip(self.vehicles, rows):  # every answer first, so that the firmwares run their frames side by side
            if v.pending is None:
                v.answer = state_text([t_s, *row])
                v.sock.sendto(v.answer, v.peer)
                v.answered_ns = time.time_ns()
                answered.append(v)
        for v in answered:
            v.pending = self._next_frame(v)
        for v in self.vehicles:
            bank.command(v.slot, Mode.MOTORS, *quad_thrusts(v.pending, v.max_thrust))
            v.pending = None
        for p in self.px4:
            p.actuate(bank, p.spec.frame_timeout_ns / NS_PER_S)

    def _next_frame(self, v: SitlVehicle) -> ServoFrame:
        """The firmware's next frame (blocking): a copy is answered again if our answer was lost, a restart
        resets the vehicle."""
        while True:
            timeout = (v.spec.connect_timeout_ns if v.last is None else v.spec.frame_timeout_ns) / NS_PER_S
            v.sock.settimeout(timeout)
            try:
                data, ancillary, _, addr = v.sock.recvmsg(4096, _ANCILLARY_BYTES)
            except TimeoutError:
                raise RuntimeError(f"no servo frame from the ArduPilot firmware of robot {v.node} on udp "
                                   f"{v.sock.getsockname()[0]}:{v.sock.getsockname()[1]} within {timeout:g} s "
                                   "(is `arducopter --model JSON` running and sending here?)") from None
            frame = parse_servo(data)
            if frame is None:
                continue  # not a servo packet: ignored, as the firmware's own parser would
            v.peer = addr
            if v.last is not None and frame.frame_count == v.last.frame_count:
                self._copy(v, _arrival_ns(ancillary), addr)
                continue
            if v.last is not None and frame.frame_count < v.last.frame_count:
                self._restart(v)
            elif v.last is not None and frame.frame_count > v.last.frame_count + 1:
                v.stats["lost"] += frame.frame_count - v.last.frame_count - 1
            v.last = frame
            v.stats["frames"] += 1
            self._note_rate(v, frame.frame_rate)
            return frame

    def _copy(self, v: SitlVehicle, arrived_ns: int, addr: tuple[str, int]) -> None:
        """A frame sent again: answered again if it came RESEND_GRACE_S after our answer, else it crossed it."""
        if v.answer and arrived_ns - v.answered_ns > RESEND_GRACE_S * NS_PER_S:
            v.stats["resent"] += 1
            v.sock.sendto(v.answer, addr)
            v.answered_ns = time.time_ns()
            return
        v.stats["crossed"] += 1

    def _note_rate(self, v: SitlVehicle, rate: int) -> None:
        if 0 < rate <= MAX_FRAME_RATE_HZ:
            v.rate_hz = rate
            return
        v.stats["bad_rate"] += 1
        if v.stats["bad_rate"] == 1:
            log.warning("robot %d: the firmware asked for a frame rate of %d Hz (expected 1..%d); keeping %d Hz", v.node,
                        rate, MAX_FRAME_RATE_HZ, v.rate_hz or round(self._ticks * NS_PER_S / self._sim.dt_ns))

    def _restart(self, v: SitlVehicle) -> None:
        sim = self._sim
        v.stats["restarts"] += 1
        sim.world.reset_quadrotor(v.node, v.start, v.heading0)
        self._prev[v.index] = 0.0
        sim.recorder.event(sim.clock.now_ns, v.node, "sitl_restart", f"firmware frame count went back after {v.last.frame_count}")
        log.warning("robot %d: the ArduPilot firmware restarted; the vehicle is back at its start", v.node)

    def finish(self, sim: Any | None) -> None:
        for sock in self.socks.values():
            sock.close()
        for link in self.links.values():
            link.close()

    def failures(self) -> list[str]:
        return []

    def metrics(self) -> dict:
        return {"sitl": {**{f"robot{v.node}": dict(v.stats) for v in self.vehicles},
                         **{f"robot{p.node}": dict(p.link.stats) for p in self.px4}}}


_ANCILLARY_BYTES = socket.CMSG_SPACE(16)


def _arrival_ns(ancillary: list[tuple[int, int, bytes]]) -> int:
    """A datagram's arrival time from its SO_TIMESTAMPNS message (the wall clock, ns); now, without one."""
    for level, kind, data in ancillary:
        if level == socket.SOL_SOCKET and kind == SO_TIMESTAMPNS and len(data) >= 16:
            sec, nsec = struct.unpack("qq", data[:16])
            return sec * 1_000_000_000 + nsec
    return time.time_ns()


def yaw_deg(heading: float) -> float:
    """The `--home` heading (degrees clockwise from north) that matches an arena heading."""
    return math.degrees(heading_to_yaw(heading)) % 360.0
