"""One quadrotor flown by PX4 in lock-step (cosim.mavlink.sitl.px4_link): on each tick of its 4 ms grid
its sensors, with white noise from the robot's seeded stream, go to PX4 stamped with the simulated
time, and once PX4's answer has come its four motor outputs drive the rotors until the next. PX4's
clock starts at the first tick after time 0 (PX4 takes a timestamp of 0 for "none yet")."""

from __future__ import annotations

from typing import Any

import numpy as np

from cosim.mavlink.sitl.px4_link import Px4Link
from cosim.mavlink.sitl.px4_wire import Kinematics, hil_gps, hil_sensor, motor_thrusts, noisy
from physics.bodies.quadrotor import Mode, QuadrotorBank
from physics.geodesy import GeoOrigin

PX4_RATE_HZ = 250
PERIOD_US = 4000
"""PX4 is sent its sensors every 4 ms of simulated time (250 Hz, its IMU_INTEG_RATE, as its simulators
do): it answers each with one output, which drives the rotors until the next."""


class Px4Vehicle:
    """Robot `node` (row `slot` of the bank), its PX4 reached through `link`; positions are placed on the
    globe about the scenario's `origin`."""

    def __init__(self, node: int, spec: Any, link: Px4Link, start: np.ndarray, max_thrust: float, slot: int,
                 origin: GeoOrigin, rng: np.random.Generator) -> None:
        self.node = node
        self.spec = spec
        self.link = link
        self.start = start
        self.max_thrust = max_thrust
        self.slot = slot
        self.origin = origin
        self.rng = rng
        self.sent = False
        self.time_us = 0
        self.thrusts = [0.0] * 4

    def sense(self, bank: QuadrotorBank, t_s: float, row: list[float]) -> None:
        """The sensors at the start of this tick, to PX4, if the tick is on its 4 ms grid (not at time 0);
        `row` is the vehicle now in the firmware's frames, about the origin (cosim.mavlink.sitl.frd_kernel)."""
        time_us = round(t_s * 1e6)
        kin = Kinematics.of_row(row)
        self.sent = time_us > 0 and time_us % PERIOD_US == 0
        self.time_us = time_us
        if not self.sent:
            return
        gps = None
        if self.link.gps_due(time_us):
            lat, lon, alt = self.origin.to_geodetic(*bank.pos[self.slot].tolist())
            gps = hil_gps(time_us, lat, lon, alt, kin)
        self.link.send(noisy(hil_sensor(time_us, kin, self.spec.magnetic_field, self.origin.alt), self.rng), gps)

    def actuate(self, bank: QuadrotorBank, timeout_s: float) -> None:
        """The rotors from PX4's answer to this tick's sensors (held between its answers; still while PX4
        is starting)."""
        if self.sent:
            answer = self.link.controls(self.time_us, timeout_s)
            self.thrusts = [0.0] * 4 if answer is None else motor_thrusts(answer[0], answer[1], self.max_thrust)
        bank.command(self.slot, Mode.MOTORS, *self.thrusts)
