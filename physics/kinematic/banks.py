"""The kinematic world's banks of vehicles (quadrotors, two-wheeled drives, omnidirectional robots):
built from the robots' specs at start, and their poses exchanged with the world's arrays each step
(the banks move their vehicles; the world confines every robot; a blocked vehicle stops)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from physics.bodies.diff_drive import DiffDriveBank
from physics.bodies.omni import OmniBank, OmniRobots
from physics.bodies.quadrotor import AIRFRAMES, QuadrotorBank
from physics.kinematic import kernels
from physics.scene.wind import winds
from physics.world import RobotSpec


def robots_where(specs: Sequence[RobotSpec], field: str) -> np.ndarray:
    """The robots whose spec sets `field` (airframe, drive, omni), in id order."""
    return np.array([i for i, s in enumerate(specs) if getattr(s, field) is not None], dtype=np.int64)


def quad_bank(specs: Sequence[RobotSpec], robots: np.ndarray, pos: np.ndarray, heading: np.ndarray,
              wind: tuple | None) -> QuadrotorBank | None:
    """The quadrotors `robots` as one bank at their positions and headings, under the wind (if any)."""
    if not len(robots):
        return None
    frames = [AIRFRAMES[specs[i].airframe] for i in robots]
    bank = QuadrotorBank(frames, pos[robots], heading[robots], tick=specs[robots[0]].control_tick_s)
    bank.forces.extend(winds(wind, len(robots)))
    return bank


def drive_bank(specs: Sequence[RobotSpec], robots: np.ndarray, pos: np.ndarray, heading: np.ndarray) -> DiffDriveBank | None:
    """The two-wheeled robots `robots` as one bank, steering by their commanded heading."""
    if not len(robots):
        return None
    bank = DiffDriveBank([specs[i].drive for i in robots], pos[robots], heading[robots])
    bank.steer_by_heading[:] = True
    return bank


def omni_robots(specs: Sequence[RobotSpec], pos: np.ndarray, heading: np.ndarray) -> OmniRobots | None:
    """The three-wheeled omnidirectional robots as one bank, if any."""
    robots = robots_where(specs, "omni")
    if not len(robots):
        return None
    bank = OmniBank([specs[i].omni for i in robots], [specs[i].radius_m for i in robots], pos[robots], heading[robots])
    return OmniRobots(robots, bank, len(specs))


def step_ground(drives: DiffDriveBank | None, drive_robots: np.ndarray, omnis: OmniRobots | None, alive: np.ndarray,
                dt_s: float) -> None:
    """One step of the ground vehicles' banks (the living ones move)."""
    if drives is not None:
        drives.step(dt_s, alive[drive_robots])
    if omnis is not None:
        omnis.bank.step(dt_s, alive[omnis.robots])


def poses_from_banks(quads: QuadrotorBank | None, quad_robots: np.ndarray, drives: DiffDriveBank | None,
                     drive_robots: np.ndarray, omnis: OmniRobots | None, pos: np.ndarray, vel: np.ndarray,
                     heading: np.ndarray) -> None:
    """The banks' vehicles' poses (after their step) into the world's arrays."""
    if quads is not None:
        pos[quad_robots] = quads.pos
        vel[quad_robots] = quads.vel
        heading[quad_robots] = quads.euler[:, 2]
    if drives is not None:
        kernels.drive_writeback(drive_robots, drives.pos, drives.wheels, drives.heading, pos, vel, heading)
    if omnis is not None:
        omnis.write_back(pos, vel, heading)


def stop_blocked(quads: QuadrotorBank | None, quad_robots: np.ndarray, drives: DiffDriveBank | None,
                 drive_robots: np.ndarray, omnis: OmniRobots | None, pos: np.ndarray, vel: np.ndarray) -> None:
    """Vehicles the world moved back (walls, obstacles, other robots) take its positions and stop."""
    if quads is not None:
        moved = pos[quad_robots] != quads.pos
        if moved.any():
            quads.vel[moved] = 0.0
            quads.pos[:] = pos[quad_robots]
            vel[quad_robots] = quads.vel
    if drives is not None:  # a blocked ground robot's wheels stop
        kernels.drive_blocked(drive_robots, pos, drives.pos, drives.wheels, vel)
    if omnis is not None:
        omnis.constrain(pos)
