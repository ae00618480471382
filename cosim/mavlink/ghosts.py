"""Ghost twins of real vehicles: one real vehicle reached over MAVLink and its twin robot in the
scenario, whose controller senses the simulated world and talks over the simulated network while its
motion commands go to the real vehicle as setpoints (the bridge, cosim.mavlink.bridge, keeps the twin
where the vehicle's telemetry says)."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from cosim.mavlink.client.adapter import MavlinkVehicle
from cosim.mavlink.client.remote_robot import MavlinkRobot
from cosim.mavlink.frames import yaw_to_heading
from cosim.mavlink.spec import GhostSpec
from physics.robot import Robot


@dataclass
class Ghost:
    """One real vehicle and its twin, node `node` of the scenario."""

    node: int
    spec: GhostSpec
    vehicle: MavlinkVehicle
    remote: MavlinkRobot
    offset: np.ndarray = field(default_factory=lambda: np.zeros(3))  # arena minus the vehicle's local frame (ENU)
    seen_t: float = -math.inf  # wall time of the last GLOBAL_POSITION_INT applied
    stale: bool = False
    stale_events: int = 0
    reported_failsafe: str | None = None


class GhostRobot(Robot):
    """A ghost's `robot`: pose and sensors are the twin's (the simulated world's), motion commands
    go to the real vehicle. Position targets are arena coordinates, as in simulation."""

    __slots__ = ("_ghost",)

    def __init__(self, world: Any, index: int, sensors: dict[str, Any], batteries: Any, ghost: Ghost) -> None:
        super().__init__(world, index, sensors, batteries)
        self._ghost = ghost

    @property
    def stale(self) -> bool:
        """The vehicle's telemetry is older than the ghost's stale_after: the pose is its last known."""
        return self._ghost.stale

    @property
    def attitude(self) -> tuple[float, float, float]:
        att = self._ghost.vehicle.latest.get("ATTITUDE")
        if att is None:
            return 0.0, 0.0, self.heading
        return float(att.roll), float(-att.pitch), yaw_to_heading(att.yaw)

    def _commandable(self) -> None:
        if self._ghost.spec.mission:
            raise ValueError(f"robot {self.id} is a ghost flying its scenario mission (mavlink.ghosts ... mission): "
                             "its controller may sense and talk, but motion commands are not taken")

    def set_velocity(self, vx: float, vy: float = 0.0, vz: float = 0.0) -> None:
        self._commandable()
        self._ghost.remote.set_velocity(vx, vy, vz)

    def turn(self, angle: float) -> None:
        self._commandable()
        self._ghost.remote.turn(angle)

    def set_heading(self, heading: float) -> None:
        self._commandable()
        self._ghost.remote.set_heading(heading)

    def hover(self) -> None:
        self._commandable()
        self._ghost.remote.hover()

    def fly(self, mode: str, a: float, b: float, c: float, d: float | None = None) -> None:
        """Only `position` (x, y, z in the arena frame, heading) reaches a real vehicle."""
        self._commandable()
        if mode != "position":
            raise ValueError(f"robot {self.id} is a ghost of a real vehicle: it takes fly('position', ...) or "
                             f"set_velocity, not mode {mode!r}")
        o = self._ghost.offset
        self._ghost.remote.fly("position", a - o[0], b - o[1], c - o[2], d)

    def drive(self, v: float, w: float) -> None:
        raise ValueError(f"robot {self.id} is a ghost of a real vehicle: steer it with set_velocity and turn")
