"""Quadrotor airframes (mass, arm, inertia, rotor limits, drag), the named presets scenarios pick
by `robot.airframe`, and the flight controller's loop gains (physics.bodies.quadrotor)."""

from __future__ import annotations

import math
from dataclasses import dataclass

G = 9.81


@dataclass(frozen=True)
class Airframe:
    """Mass (kg), arm length centre-to-rotor (m), principal inertia (kg m^2), rotor limits, drag."""

    mass: float
    arm: float
    inertia: tuple[float, float, float]
    max_rotor_thrust: float  # N per rotor
    torque_per_thrust: float  # m: yaw reaction torque of a rotor per newton of its thrust
    drag: float  # N per m/s, linear, on the body's velocity relative to the air

    def __post_init__(self) -> None:
        if self.mass <= 0 or self.arm <= 0 or min(self.inertia) <= 0:
            raise ValueError("mass, arm and inertia must be positive")
        if 4 * self.max_rotor_thrust <= self.mass * G:
            raise ValueError(f"four rotors of {self.max_rotor_thrust} N cannot lift {self.mass} kg")


AIRFRAMES = {
    # Crazyflie 2.x class: 27 g, 46 mm arms, thrust-to-weight about 2.2
    "crazyflie": Airframe(0.027, 0.046, (1.4e-5, 1.4e-5, 2.17e-5), 0.15, 0.006, 0.01),
    # a 1.5 kg camera quadrotor (450 mm class): thrust-to-weight about 2
    "quad_1500g": Airframe(1.5, 0.225, (0.0347, 0.0347, 0.0612), 7.5, 0.016, 0.3),
}


@dataclass(frozen=True)
class Gains:
    """Loop gains, normalised by mass and inertia so one set flies both presets (units of 1/s, 1/s^2)."""

    rate_p: float = 90.0  # body rate -> angular acceleration
    rate_i: float = 30.0
    attitude_p: float = 9.0  # angle -> body rate
    yaw_p: float = 5.0  # heading -> yaw rate
    velocity_p: float = 3.0  # horizontal speed -> acceleration
    velocity_i: float = 1.0
    vertical_p: float = 5.0  # vertical speed -> acceleration
    vertical_i: float = 2.0
    altitude_p: float = 2.2  # altitude -> vertical speed
    position_p: float = 1.0  # position -> horizontal speed
    max_tilt: float = math.radians(30.0)
    max_yaw_rate: float = math.radians(200.0)
    max_horizontal_speed: float = 10.0
    max_vertical_speed: float = 3.0
