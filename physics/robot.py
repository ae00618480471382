"""A controller's handle on one simulated robot (SimpleBee-style actuation and its sensors): the
simulated implementation of `controllers.Robot`."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from physics.bodies.battery import Batteries
from physics.bodies.quadrotor import Mode
from physics.world import World

FLY_MODES = {"attitude": Mode.ATTITUDE, "speed_vertical": Mode.SPEED_VERTICAL, "speed_altitude": Mode.SPEED_ALTITUDE,
             "speed_altitude_heading": Mode.SPEED_ALT_HEADING, "position": Mode.POSITION,
             "speed_vertical_heading": Mode.SPEED_VERTICAL_HEADING}


_QUAD = 1
_WHEELS = 2
_TWO_WHEELS = 4


def require_finite(command: str, names: str, *values: Any) -> None:
    """A command's numbers (or arrays of them) must be finite: NaN or infinity would reach the physics
    and the trace. Refused, naming the command and the argument."""
    for name, v in zip(names.split(), values):
        try:
            ok = math.isfinite(v) if isinstance(v, (int, float)) else bool(np.isfinite(np.asarray(v, dtype=np.float64)).all())
        except (TypeError, ValueError):
            ok = False
        if not ok:
            raise ValueError(f"{command}: {name} must be a finite number, got {v!r}")


LIGHT_SPEED = 299_792_458.0
"""No velocity command may exceed it (m/s): the world caps speeds at max_speed, but the length of a
vector beyond ~1e154 overflows to infinity and would stop the robot dead instead."""


def require_speed(command: str, names: str, *values: Any) -> None:
    """A velocity command's components (numbers or arrays) must be finite and below the speed of light."""
    require_finite(command, names, *values)
    for name, v in zip(names.split(), values):
        if np.any(np.abs(np.asarray(v, dtype=np.float64)) > LIGHT_SPEED):
            raise ValueError(f"{command}: {name} must be within +-{LIGHT_SPEED:.0f} m/s (the speed of light; "
                             f"max_speed caps it anyway), got {v!r}")


def check_ground_velocity(world: World, robots: np.ndarray, vy, vz) -> None:
    """Wheels roll on the ground: no robot on wheels climbs (vz), and one with a left and a right wheel
    (diff_drive, urdf) cannot move sideways (vy); refused rather than ignored."""
    if np.any(np.asarray(vz) != 0.0):
        raise ValueError(f"robot {int(robots[0])} drives on wheels and cannot climb: set_velocity's vz must be 0")
    slots = world.drive_slot
    if np.any(np.asarray(vy) != 0.0) and slots.size and np.any(slots[robots] >= 0):
        raise ValueError(f"robot {int(robots[0])} has a left and a right wheel and cannot move sideways: set_velocity's "
                         "vy must be 0 (turn with set_heading, turn or drive)")


class Robot:
    """Pose, velocity and commands of robot `id` in a world; state is the last physics tick's.

    Velocities are in the robot's body frame (x forward, y left, z up), metres per second; angles
    in radians. Commands take effect at the first physics tick at or after the call.
    """

    __slots__ = ("_batteries", "_kind", "_w", "id", "sensors")

    def __init__(self, world: World, index: int, sensors: dict[str, Any], batteries: Batteries | None = None) -> None:
        self.id = index
        self._w = world
        self.sensors = sensors
        self._batteries = batteries
        self._kind: int | None = None

    def _body(self) -> int:
        """What the body is (_QUAD, _WHEELS, _TWO_WHEELS bits), read once the world has started."""
        if self._kind is not None:
            return self._kind
        w = self._w
        i = self.id
        if not (w.quad_slot.size or w.drive_slot.size or w.omni_slot.size):
            return 0  # not started, or only point robots: nothing to remember
        two = bool(w.drive_slot.size and w.drive_slot[i] >= 0)
        omni = bool(w.omni_slot.size and w.omni_slot[i] >= 0)
        quad = bool(w.quad_slot.size and w.quad_slot[i] >= 0)
        self._kind = (_QUAD if quad else 0) | (_WHEELS if two or omni else 0) | (_TWO_WHEELS if two else 0)
        return self._kind

    @property
    def battery_j(self) -> float:
        """Energy left in joules (inf without a battery)."""
        return float(self._batteries.energy_j[self.id]) if self._batteries is not None else float("inf")

    @property
    def position(self) -> np.ndarray:
        return self._w.position_of(self.id)

    @property
    def pose(self) -> tuple[np.ndarray, float]:
        """(position in metres, heading in radians)."""
        return self._w.position_of(self.id), float(self._w.active_heading[self.id])

    @property
    def velocity(self) -> np.ndarray:
        return self._w.velocity_of(self.id)

    @property
    def heading(self) -> float:
        return float(self._w.active_heading[self.id])

    @property
    def alive(self) -> bool:
        return bool(self._w.alive[self.id])

    @property
    def desired_velocity(self) -> tuple[float, float, float]:
        v = self._w.cmd_vel[self.id]
        return (float(v[0]), float(v[1]), float(v[2]))

    @property
    def moves_sideways(self) -> bool:
        return not self._body() & _TWO_WHEELS

    def set_velocity(self, vx: float, vy: float = 0.0, vz: float = 0.0) -> None:
        """Desired body-frame velocity (m/s), capped at the robot's max_speed by the world. A quadrotor
        flies it in ground speed + vertical speed mode, holding the commanded heading."""
        c = LIGHT_SPEED
        try:
            fine = -c <= vx <= c and -c <= vy <= c and -c <= vz <= c  # false for NaN too
        except TypeError:  # not numbers: require_speed says which
            fine = False
        if not fine:
            require_speed("set_velocity", "vx vy vz", vx, vy, vz)
        kind = self._body()
        if kind & _WHEELS and (vy or vz):
            check_ground_velocity(self._w, np.array([self.id]), vy, vz)
        self._w.cmd_vel[self.id] = (vx, vy, vz)
        if kind & _QUAD:
            self._w.quads_follow(self.id)
        elif kind & _WHEELS:
            self._w.drive(self.id, None)  # forward speed vx, steered by the heading commands

    @property
    def _wheeled(self) -> bool:
        """A ground robot on wheels: diff_drive (or a URDF robot driven like one) or omni."""
        return bool(self._body() & _WHEELS)

    def drive(self, v: float, w: float) -> None:
        """A wheeled robot's forward speed (m/s) and turn rate (rad/s, counter-clockwise)."""
        if not self._wheeled:
            raise ValueError(f"robot {self.id} is not a wheeled robot (robot.model: diff_drive, omni or urdf)")
        require_finite("drive", "v w", v, w)
        self._w.drive(self.id, v, w)

    def set_wheel_speeds(self, left: float, right: float) -> None:
        """A differential-drive robot's wheel surface speeds (m/s)."""
        slots = self._w.drive_slot
        if slots.size == 0 or slots[self.id] < 0:
            raise ValueError(f"robot {self.id} has no left and right wheel (robot.model: diff_drive or urdf)")
        require_finite("set_wheel_speeds", "left right", left, right)
        base = self._w.drives.base[int(self._w.drive_slot[self.id])]
        self._w.drive(self.id, 0.5 * (left + right), (right - left) / base)

    @property
    def _quad(self) -> bool:
        return bool(self._body() & _QUAD)

    def fly(self, mode: str, a: float, b: float, c: float, d: float | None = None) -> None:
        """Quadrotor command (see physics.bodies.quadrotor): mode `attitude` (roll, pitch, yaw rate, thrust N),
        `speed_vertical` (vx, vy body-heading frame, vz), `speed_altitude` (vx, vy, z),
        `speed_altitude_heading` (vx, vy, z, heading) or `position` (x, y, z, heading)."""
        if not self._quad:
            raise ValueError(f"robot {self.id} is not a quadrotor (robot.model: quadrotor in its group)")
        try:
            m = FLY_MODES[mode]
        except KeyError:
            raise ValueError(f"unknown flight mode {mode!r}; expected one of: {', '.join(FLY_MODES)}") from None
        require_finite(f"fly({mode!r})", "a b c" if d is None else "a b c d", a, b, c, *(() if d is None else (d,)))
        self._w.fly(self.id, m, float(a), float(b), float(c), float("nan") if d is None else float(d))

    @property
    def attitude(self) -> tuple[float, float, float]:
        """A quadrotor's roll, pitch, yaw (rad)."""
        q = self._w.quads
        return tuple(float(x) for x in q.euler[int(self._w.quad_slot[self.id])])

    def turn(self, angle: float) -> None:
        """Rotate the heading by `angle` radians (counter-clockwise seen from above)."""
        self.set_heading(float(self._w.cmd_heading[self.id]) + angle)

    def set_heading(self, heading: float) -> None:
        """Face `heading` (rad, counter-clockwise from +x); a quadrotor yaws to it."""
        if not math.isfinite(heading):
            require_finite("set_heading (or turn)", "heading", heading)
        self._w.cmd_heading[self.id] = math.remainder(heading, 2.0 * math.pi)
        kind = self._body()
        if kind & _QUAD:
            self._w.quads_steer(self.id)
        elif kind & _WHEELS:
            self._w.drive(self.id, None)  # steered by the heading command from now on

    def hover(self) -> None:
        """Hold position: zero velocity command (a quadrotor holds the point where it is)."""
        self._w.cmd_vel[self.id] = (0.0, 0.0, 0.0)
        if self._quad:
            p = self._w.position_of(self.id)
            self._w.fly(self.id, Mode.POSITION, float(p[0]), float(p[1]), float(p[2]), self.heading)
        elif self._wheeled:
            self._w.drive(self.id, None)

    def ranges(self) -> np.ndarray:
        """Range/IR readings in metres, one per ray (see physics.sensors.onboard.RangeOptions); needs a `range` sensor."""
        sensor = self.sensors.get("range")
        if sensor is None:
            raise RuntimeError(f"robot {self.id} has no range sensor; add `sensors: {{range: {{}}}}` to its group")
        return sensor.read()

    def gps(self) -> np.ndarray:
        """Position fix (m, arena frame); needs a `gps` sensor. `robot.sensors['gps'].geodetic()`
        gives latitude, longitude and altitude."""
        return self._sensor("gps").read()

    def imu(self) -> tuple[np.ndarray, np.ndarray]:
        """(accelerometer m/s^2, gyroscope rad/s), body frame; needs an `imu` sensor."""
        return self._sensor("imu").read()

    def bumped(self) -> bool:
        """Touched something during the last physics step; needs a `bump` sensor."""
        return self._sensor("bump").read()

    def battery_level(self) -> float:
        """Charge left as a fraction of capacity, as the `battery` sensor reads it (noise, rate)."""
        return self._sensor("battery").read()

    def _sensor(self, name: str):
        sensor = self.sensors.get(name)
        if sensor is None:
            raise RuntimeError(f"robot {self.id} has no {name!r} sensor; add `sensors: {{{name}: {{}}}}` to its group")
        return sensor

    def compass(self) -> float:
        """A noisy heading reading, radians in (-pi, pi]; needs a `compass` sensor on the group."""
        sensor = self.sensors.get("compass")
        if sensor is None:
            raise RuntimeError(f"robot {self.id} has no compass; add `sensors: {{compass: {{}}}}` to its group")
        return sensor.read()
