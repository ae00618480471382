"""A group's robot body (`groups[].robot`): the model and its settings, with the keys each model
reads and the limits a body may have."""

from __future__ import annotations

from dataclasses import MISSING, dataclass, field, fields
from typing import Literal

from cosim.errors import KeyValueError
from physics.bodies.diff_drive import DriveSpec
from physics.bodies.omni import OmniSpec
from physics.bodies.quadrotor import AIRFRAMES
from physics.bodies.urdf import UrdfSpec

MAX_CONTROL_HZ = 10_000
"""The fastest quadrotor control loop a scenario may ask for (Hz)."""
MAX_SPEED = 1_000.0
"""The fastest a robot may be told to go (m/s): about three times the speed of sound."""
MAX_RADIUS = 1_000.0
"""The largest robot body (m)."""
MAX_MASS = 100_000.0
"""The heaviest robot body (kg): a hundred tonnes."""


@dataclass(frozen=True)
class RobotModelSpec:
    """Body of each robot in a group (SI units). `point` is SimpleBee: velocity, turn, hover.
    `quadrotor` is a rigid body with rotors and cascaded PID (physics.bodies.quadrotor), of preset
    `airframe`; its mass comes from the preset. `diff_drive` is a two-wheeled ground robot
    (physics.bodies.diff_drive) with the `drive` settings. `omni` is BARAKA's three-wheeled omnidirectional
    Robertino (physics.bodies.omni) with the `omni` settings. `urdf` is your own model (physics.bodies.urdf: the
    file, its wheel joints, their radius and track), driven like a diff_drive robot with the
    `drive` limits; pybullet only."""

    model: Literal["point", "quadrotor", "diff_drive", "omni", "urdf"] = "point"
    """The body: `point`, `quadrotor`, `diff_drive`, `omni` or `urdf`."""
    radius: float = 0.1
    """The body's radius: contacts and collisions reach this far from its centre."""
    mass: float = 0.05
    """point, diff_drive and omni only: the body's mass."""
    max_speed: float = 5.0
    """point only: the fastest it may be commanded to go."""
    heading: float = 0.0
    """The heading every robot starts with (rad from +x, anticlockwise)."""
    airframe: str = "crazyflie"
    """quadrotor only: the airframe preset (mass, arm, rotors, gains), e.g. `crazyflie` or `quad_1500g`."""
    control_hz: float = 400.0
    """quadrotor only: the cascaded PID's rate (Hz), one second in whole nanoseconds (50, 100, 200,
    400, ...). The kinematic world integrates at this tick too; pybullet holds each tick's rotor
    wrench (in the body frame) over engine steps of at most 1/240 s, as gym-pybullet-drones does."""
    drive: DriveSpec = field(default_factory=DriveSpec)
    """diff_drive only: wheel_base, max_wheel_speed, max_accel, friction, heading_gain."""
    omni: OmniSpec = field(default_factory=OmniSpec)
    """omni only: max_wheel_speed, max_accel, friction, heading_gain."""
    urdf: UrdfSpec | None = None
    """urdf only: file, left_wheel, right_wheel, wheel_radius, track, scale."""

    @property
    def tick_ns(self) -> int:
        """A quadrotor's control tick (ns)."""
        return round(1e9 / self.control_hz)

    def __post_init__(self) -> None:
        if (self.model == "urdf") != (self.urdf is not None):
            raise KeyValueError("urdf", "model: urdf needs the `urdf` settings (file, wheels, wheel_radius, track), and only "
                                        "it takes them")
        if self.model == "urdf" and self.drive.wheel_base != DriveSpec().wheel_base:
            raise KeyValueError("drive.wheel_base", "a urdf robot's wheel base is urdf.track; leave drive.wheel_base out")
        if self.model == "quadrotor" and self.airframe not in AIRFRAMES:
            names = ", ".join(sorted(AIRFRAMES))
            raise KeyValueError("airframe", f"unknown airframe {self.airframe!r}; expected one of: {names}")
        if self.model != "quadrotor" and self.control_hz != 400.0:
            raise KeyValueError("control_hz", f"control_hz is the quadrotors' control rate; a {self.model} robot takes none")
        if self.control_hz > MAX_CONTROL_HZ:
            raise KeyValueError("control_hz", f"control_hz must be at most {MAX_CONTROL_HZ:,} Hz (autopilots run their "
                                              f"loops at up to a few kHz), got {self.control_hz:g}")
        if not self.control_hz > 0 or abs(1e9 / self.control_hz - round(1e9 / self.control_hz)) > 1e-6:
            raise KeyValueError("control_hz", "control_hz must divide one second into whole nanoseconds (50, 100, 200, 400, "
                                              f"...); got {self.control_hz}")
        if not 1e-4 <= self.radius <= MAX_RADIUS:
            raise KeyValueError("radius", f"radius must be within 0.0001..{MAX_RADIUS:,.0f} m, got {self.radius:g}")
        if not 1e-6 <= self.mass <= MAX_MASS:
            raise KeyValueError("mass", f"mass must be within 1e-06..{MAX_MASS:,.0f} kg, got {self.mass:g}")
        if not 0 <= self.max_speed <= MAX_SPEED:
            raise KeyValueError("max_speed", f"max_speed must be within 0..{MAX_SPEED:,.0f} m/s, got {self.max_speed:g}")
        self._check_model_keys()

    def _check_model_keys(self) -> None:
        """A key only other models use is refused, not ignored (at its default it passes, as a
        written-out scenario spells every key)."""
        for key, models in MODEL_KEYS.items():
            if self.model not in models and getattr(self, key) != _ROBOT_DEFAULTS[key]:
                article = "an" if self.model[0] in "aeiou" else "a"
                raise KeyValueError(key, f"does nothing for {article} {self.model} robot (only for {', '.join(models)}); "
                                         f"{_MODEL_HINTS[self.model]}")


MODEL_KEYS = {"airframe": ("quadrotor",), "drive": ("diff_drive", "urdf"), "omni": ("omni",),
               "max_speed": ("point",), "mass": ("point", "diff_drive", "omni")}
"""The robot keys each model uses (radius, heading: all; control_hz and urdf are checked above)."""
_MODEL_HINTS = {
    "quadrotor": "a quadrotor's mass and dynamics come from its airframe preset",
    "diff_drive": "its speed and acceleration limits are drive.max_wheel_speed and drive.max_accel",
    "omni": "its speed and acceleration limits are omni.max_wheel_speed and omni.max_accel",
    "urdf": "its masses come from the URDF file, its speed limits from drive",
    "point": "a point robot takes radius, mass, max_speed and heading",
}
_ROBOT_DEFAULTS = {f.name: f.default_factory() if f.default is MISSING else f.default for f in fields(RobotModelSpec)}
