"""Unmodified ArduPilot firmware flying a quadrotor of the scenario, in lock-step with the
simulation (ArduPilot's JSON SITL interface, cosim.mavlink.sitl_json).

Each robot of a `mavlink.sitl` group is one firmware instance (`arducopter --model JSON -I k`,
sending to port + 10 k). At every physics step the coupling answers the firmware's last servo
frame with the vehicle's state at this instant (timestamp = simulated time), then waits for its
next frame and hands its four motor outputs to the quadrotor (physics.quadrotor's Mode.MOTORS)
for the next step. Neither side runs ahead: the firmware waits for our answer, the timeline waits
for its frame, so the run is not paced to the wall clock and the same scenario, seed and firmware
give the same trajectory. A frame sent again (same count: our answer was lost) is answered again;
a count that goes back (the firmware restarted) puts the vehicle back where it started, with a
`sitl_restart` event in the trace.
"""

from __future__ import annotations

import logging
import math
import socket
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from cosim.core.timeline import Priority
from cosim.core.timeunits import NS_PER_S
from cosim.mavlink.frames import GeoOrigin, heading_to_yaw
from cosim.mavlink.sitl_json import ServoFrame, State, parse_servo, quad_thrusts
from physics.attitude import rotation_zyx
from physics.quadrotor import Mode
from physics.robot import Robot

log = logging.getLogger(__name__)
G = 9.81


@dataclass
class SitlVehicle:
    """One firmware instance and the robot it flies."""

    node: int
    spec: Any
    sock: socket.socket
    start: np.ndarray
    heading0: float
    max_thrust: float
    peer: tuple[str, int] | None = None
    last: ServoFrame | None = None
    answer: bytes = b""
    stats: dict[str, int] = field(default_factory=lambda: {"frames": 0, "resent": 0, "lost": 0, "restarts": 0})


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

    def __init__(self, specs: tuple, groups: dict[str, tuple[int, int]], origin: GeoOrigin) -> None:
        self.specs, self.origin = specs, origin
        self.plan: list[tuple[int, Any, int, int]] = []  # (node, spec, port, entry)
        for entry, spec in enumerate(specs):
            first, count = groups[spec.group]
            self.plan += [(first + k, spec, spec.port + 10 * k, entry) for k in range(count)]
        self.socks = {}
        for node, spec, port, entry in self.plan:  # bound now: a busy port fails before the run
            sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
            try:
                sock.bind((spec.host, port))
            except OSError as exc:
                sock.close()
                self.finish(None)
                raise SitlPortBusy(entry, f"udp {spec.host}:{port} for robot {node} (port + 10 k for its k-th robot) cannot be "
                                 f"bound: {exc.strerror}; is another run or physics backend using it?") from None
            self.socks[node] = sock
        self.vehicles: list[SitlVehicle] = []
        self._sim: Any = None

    def start(self, sim: Any) -> None:
        self._sim = sim
        world = sim.world
        world.want_motion()
        for node, spec, _, _ in self.plan:
            slot = int(world.quad_slot[node])
            if slot < 0:
                raise ValueError(f"robot {node} ({spec.group}) is flown by ArduPilot over JSON SITL: it must be a quadrotor")
            thrust = float(world.quads.max_rotor[slot])
            v = SitlVehicle(node, spec, self.socks[node], world.position_of(node).copy(), float(world.headings()[node]),
                            thrust)
            self.vehicles.append(v)
            lat, lon, alt = self.origin.to_geodetic(*v.start.tolist())
            log.info("robot %d: ArduPilot over JSON SITL on udp port %d; start it with --home %.7f,%.7f,%.2f,%.0f",
                     node, v.sock.getsockname()[1], lat, lon, alt, yaw_deg(v.heading0))
        sim.queue.push(0, Priority.TIMER, self._exchange)

    def _exchange(self) -> None:
        sim = self._sim
        for v in self.vehicles:
            if v.peer is not None:
                v.answer = self._state(v).encode()
                v.sock.sendto(v.answer, v.peer)
            frame = self._next_frame(v)
            sim.world.fly(v.node, Mode.MOTORS, *quad_thrusts(frame, v.max_thrust))
        nxt = sim.now_ns + sim.dt_ns
        if nxt <= sim.duration_ns:
            sim.queue.push(nxt, Priority.TIMER, self._exchange)

    def _next_frame(self, v: SitlVehicle) -> ServoFrame:
        """The firmware's next frame (blocking): a resend is answered again, a restart resets the vehicle."""
        while True:
            timeout = (v.spec.connect_timeout_ns if v.last is None else v.spec.frame_timeout_ns) / NS_PER_S
            v.sock.settimeout(timeout)
            try:
                data, addr = v.sock.recvfrom(4096)
            except TimeoutError:
                raise RuntimeError(f"no servo frame from the ArduPilot firmware of robot {v.node} on udp "
                                   f"{v.sock.getsockname()[0]}:{v.sock.getsockname()[1]} within {timeout:g} s "
                                   "(is `arducopter --model JSON` running and sending here?)") from None
            frame = parse_servo(data)
            if frame is None:
                continue  # not a servo packet: ignored, as the firmware's own parser would
            v.peer = addr
            if v.last is not None and frame.frame_count == v.last.frame_count:
                v.stats["resent"] += 1  # our answer was lost (or not yet sent): the firmware asks again
                if v.answer:
                    v.sock.sendto(v.answer, addr)
                continue
            if v.last is not None and frame.frame_count < v.last.frame_count:
                self._restart(v)
            elif v.last is not None and frame.frame_count > v.last.frame_count + 1:
                v.stats["lost"] += frame.frame_count - v.last.frame_count - 1
            v.last = frame
            v.stats["frames"] += 1
            return frame

    def _restart(self, v: SitlVehicle) -> None:
        sim = self._sim
        v.stats["restarts"] += 1
        sim.world.reset_quadrotor(v.node, v.start, v.heading0)
        sim.recorder.event(sim.now_ns, v.node, "sitl_restart", f"firmware frame count went back after {v.last.frame_count}")
        log.warning("robot %d: the ArduPilot firmware restarted; the vehicle is back at its start", v.node)

    def _state(self, v: SitlVehicle) -> State:
        """The vehicle now, in the firmware's frames: NED about its start, body FRD, specific force."""
        w, i = self._sim.world, v.node
        x, y, z = (w.position_of(i) - v.start).tolist()
        ve, vn, vu = w.velocity_of(i).tolist()
        roll, pitch, heading = w.attitude_of(i).tolist()
        rot = rotation_zyx(roll, pitch, heading)
        f = rot.T @ (w.acceleration_of(i) + np.array([0.0, 0.0, G]))
        p, q, r = w.body_rates_of(i).tolist()
        return State(self._sim.now_ns / NS_PER_S, (p, -q, -r), (float(f[0]), float(-f[1]), float(-f[2])),
                     (y, x, -z), (vn, ve, -vu), (roll, -pitch, heading_to_yaw(heading)))

    def finish(self, sim: Any | None) -> None:
        for sock in self.socks.values():
            sock.close()

    def failures(self) -> list[str]:
        return []

    def metrics(self) -> dict:
        return {"sitl": {f"robot{v.node}": dict(v.stats) for v in self.vehicles}}


def yaw_deg(heading: float) -> float:
    """The `--home` heading (degrees clockwise from north) that matches an arena heading."""
    return math.degrees(heading_to_yaw(heading)) % 360.0
