"""Your own robot from a URDF file: which joints are its wheels, their radius and track.

The file is read when the scenario loads, so a missing file, a wheel joint the file does not have
(or that is not a revolute or continuous joint) and lengths or masses far from SI units are
errors naming the key, before anything runs. The pybullet world loads the model
(physics.pybullet.wheeled) and drives the two wheel joints like a differential-drive robot's:
`robot.drive(v, w)` and the generic velocity commands work unchanged.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from dataclasses import dataclass
from pathlib import Path

MAX_EXTENT_M = 50.0
MIN_EXTENT_M = 0.005
MAX_MASS_KG = 5000.0


@dataclass(frozen=True)
class UrdfSpec:
    """A URDF model driven by two wheel joints: `left_wheel` and `right_wheel` (joint names),
    `wheel_radius` and `track` (the distance between the wheels' ground contacts), metres;
    `scale` multiplies the file's lengths."""

    file: str
    """The URDF file, relative to the file that names it."""
    left_wheel: str
    """The left wheel's joint name in the file."""
    right_wheel: str
    """The right wheel's joint name in the file."""
    wheel_radius: float
    """The wheels' radius (m)."""
    track: float
    """The distance between the wheels' ground contacts (m)."""
    scale: float = 1.0
    """The factor on the file's lengths."""

    def __post_init__(self) -> None:
        if min(self.wheel_radius, self.track, self.scale) <= 0:
            raise ValueError("wheel_radius, track and scale must be > 0")
        path = Path(self.file)
        if path.suffix.lower() != ".urdf":
            raise ValueError(f"file must be a .urdf file, got {self.file!r}")
        if not path.is_file():
            raise ValueError(f"URDF file {self.file!r} does not exist")
        try:
            root = ET.parse(path).getroot()
        except ET.ParseError as exc:
            raise ValueError(f"{self.file} is not valid URDF (XML): {exc}") from None
        joints = {j.get("name"): j.get("type") for j in root.iter("joint")}
        turning = sorted(name for name, kind in joints.items() if kind in ("revolute", "continuous"))
        for key in ("left_wheel", "right_wheel"):
            name = getattr(self, key)
            if joints.get(name) not in ("revolute", "continuous"):
                found = "is not a revolute or continuous joint" if name in joints else "is not a joint of the model"
                raise ValueError(f"{key}: {name!r} {found}; its turning joints: {', '.join(turning) or 'none'}")
        self._check_units(root)

    def _check_units(self, root: ET.Element) -> None:
        """Lengths and masses must look like metres and kilograms (a model in millimetres would be a
        kilometre across)."""
        lengths = [float(v) for g in root.iter("geometry") for shape in g for k, v in shape.attrib.items()
                   if k in ("radius", "length")]
        lengths += [float(x) for g in root.iter("box") for x in g.get("size", "").split()]
        extent = self.scale * max(lengths, default=0.0)
        if lengths and not MIN_EXTENT_M <= extent <= MAX_EXTENT_M:
            raise ValueError(f"{self.file}: its largest shape is {extent:g} m across (scale {self.scale}); "
                             f"URDF lengths are metres: expected {MIN_EXTENT_M} to {MAX_EXTENT_M} m")
        mass = sum(float(m.get("value", 0.0)) for m in root.iter("mass"))
        if mass > MAX_MASS_KG or mass <= 0:
            raise ValueError(f"{self.file}: its links weigh {mass:g} kg in all; URDF masses are kilograms "
                             f"(expected more than 0 and at most {MAX_MASS_KG:g})")
        if self.wheel_radius > extent:
            raise ValueError(f"wheel_radius {self.wheel_radius} m is larger than the whole model ({extent:g} m)")
