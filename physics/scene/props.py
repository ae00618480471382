"""Movable props: bodies robots can push (boxes, cylinders, and OBJ or URDF models), and terrain.

They exist in the pybullet world only; the kinematic world refuses them (cosim.scenario.checks).
A scenario's `world.props` list holds the props (`PROPS` names them by `type`) and
`world.terrain` the ground's shape, so each checks its own values.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from physics.scene.obstacles import Cylinder, OrientedBox


def _check_body(mass: float | None, friction: float) -> None:
    if mass is not None and mass <= 0:
        raise ValueError(f"mass must be > 0 kg, got {mass}")
    if friction < 0:
        raise ValueError(f"friction must be >= 0, got {friction}")


@dataclass(frozen=True)
class BoxProp:
    """A movable box: centre, size (full extents, m), mass (kg), ground friction coefficient."""

    center: tuple[float, float, float]
    """The box's centre (m, x y z)."""
    size: tuple[float, float, float]
    """Its full extents (m, x y z)."""
    mass: float = 1.0
    """Its mass (kg)."""
    friction: float = 0.6
    """Its friction coefficient on the ground."""
    yaw: float = 0.0
    """Its turn about the vertical (rad)."""

    def __post_init__(self) -> None:
        if min(self.size) <= 0:
            raise ValueError(f"box size must be positive on every axis, got {self.size}")
        _check_body(self.mass, self.friction)

    def footprint(self) -> OrientedBox:
        """The space the box takes at the start (robots are placed clear of it)."""
        return OrientedBox(self.center, tuple(x / 2.0 for x in self.size), self.yaw)


@dataclass(frozen=True)
class CylinderProp:
    """A movable upright cylinder: centre, radius and height (m), mass (kg), friction."""

    center: tuple[float, float, float]
    """The cylinder's centre, at mid-height (m, x y z)."""
    radius: float
    """Its radius (m)."""
    height: float
    """Its height (m)."""
    mass: float = 1.0
    """Its mass (kg)."""
    friction: float = 0.6
    """Its friction coefficient on the ground."""

    def __post_init__(self) -> None:
        if self.radius <= 0 or self.height <= 0:
            raise ValueError("radius and height must be > 0")
        _check_body(self.mass, self.friction)

    def footprint(self) -> Cylinder:
        """The space the cylinder takes at the start (robots are placed clear of it)."""
        return Cylinder(self.center, self.radius, self.height)


@dataclass(frozen=True)
class ModelProp:
    """A movable model: an OBJ file (its convex hull collides; give `mass`) or a URDF file (masses
    from the file; `mass` must be left out), placed at `position`, turned by `yaw` (rad), scaled."""

    file: str
    """An OBJ file (its convex hull collides) or a URDF file, relative to the file that names it."""
    position: tuple[float, float, float] = (0.0, 0.0, 0.0)
    """Where its origin is placed (m, x y z)."""
    yaw: float = 0.0
    """Its turn about the vertical (rad)."""
    scale: float = 1.0
    """The factor on the file's lengths."""
    mass: float | None = None
    """An OBJ model's mass (kg); a URDF file's masses are its own, so leave it out."""
    friction: float = 0.6
    """Its friction coefficient on the ground."""

    def __post_init__(self) -> None:
        suffix = Path(self.file).suffix.lower()
        if suffix not in (".obj", ".urdf"):
            raise ValueError(f"model file must be .obj or .urdf, got {self.file!r}")
        if not Path(self.file).is_file():
            raise ValueError(f"model file {self.file!r} does not exist")
        if self.scale <= 0:
            raise ValueError("scale must be > 0")
        if suffix == ".obj" and self.mass is None:
            raise ValueError("an OBJ model needs `mass` (kg)")
        if suffix == ".urdf" and self.mass is not None:
            raise ValueError("a URDF model's masses come from its file: leave `mass` out")
        _check_body(self.mass, self.friction)

    def footprint(self) -> OrientedBox | None:
        """An OBJ model's bounding box at the start (robots are placed clear of it); None for a
        URDF model, whose shape pybullet alone knows."""
        if not self.file.lower().endswith(".obj"):
            return None
        vertices = _obj_vertices(self.file) * self.scale
        lo = vertices.min(axis=0)
        hi = vertices.max(axis=0)
        mid = 0.5 * (lo + hi)
        c = np.cos(self.yaw)
        s = np.sin(self.yaw)
        center = (self.position[0] + c * mid[0] - s * mid[1], self.position[1] + s * mid[0] + c * mid[1],
                  self.position[2] + mid[2])
        half = np.maximum(0.5 * (hi - lo), 1e-6)
        return OrientedBox(tuple(map(float, center)), tuple(map(float, half)), self.yaw)


def _obj_vertices(path: str) -> np.ndarray:
    """The `v x y z` lines of an OBJ file as an (n, 3) array."""
    rows = []
    with open(path) as f:
        for line in f:
            if line.startswith("v "):
                rows.append([float(x) for x in line.split()[1:4]])
    if not rows:
        raise ValueError(f"model file {path!r} has no vertices")
    return np.array(rows)


PROPS: dict[str, type] = {"box": BoxProp, "cylinder": CylinderProp, "model": ModelProp}
"""Prop kinds by the `type` a world file gives them."""


@dataclass(frozen=True)
class Terrain:
    """The ground's shape instead of a flat plane: a heightfield, `heights` (rows along y, columns
    along x, m) or a `file` of them (.csv or .npy), `cell` metres apart and centred on `center`
    (x, y); or an OBJ `mesh` file. Friction is the ground's."""

    heights: tuple[tuple[float, ...], ...] | None = None
    """The heightfield's heights (m): rows along y, columns along x."""
    file: str | None = None
    """A .csv or .npy file of the heights instead, relative to the file that names it."""
    cell: float = 0.5
    """The spacing of the heights (m)."""
    center: tuple[float, float] = (0.0, 0.0)
    """Where the heightfield's centre lies (m, x y)."""
    mesh: str | None = None
    """An OBJ file as the ground instead of a heightfield."""
    friction: float = 0.8
    """The ground's friction coefficient."""

    def __post_init__(self) -> None:
        given = [k for k in ("heights", "file", "mesh") if getattr(self, k) is not None]
        if len(given) != 1:
            raise ValueError(f"give exactly one of heights, file and mesh, got {', '.join(given) or 'none'}")
        if self.cell <= 0:
            raise ValueError(f"cell must be > 0 m, got {self.cell}")
        if self.mesh is not None and not (self.mesh.lower().endswith(".obj") and Path(self.mesh).is_file()):
            raise ValueError(f"terrain mesh must be an existing .obj file, got {self.mesh!r}")
        if self.file is not None:
            self.grid()  # read errors now, at load time
        elif self.heights is not None and len({len(r) for r in self.heights}) != 1:
            raise ValueError("heights: every row must have the same number of values")

    def extent(self) -> tuple[float, float, float, float]:
        """(x low, x high, y low, y high) a heightfield covers (metres)."""
        rows, cols = self.grid().shape
        hx = 0.5 * (cols - 1) * self.cell
        hy = 0.5 * (rows - 1) * self.cell
        return self.center[0] - hx, self.center[0] + hx, self.center[1] - hy, self.center[1] + hy

    def grid(self) -> np.ndarray:
        """The heights as a (rows, columns) array; at least 2 x 2."""
        if self.heights is not None:
            grid = np.array(self.heights, dtype=float)
        else:
            npy = self.file.lower().endswith(".npy")
            try:
                grid = np.load(self.file, allow_pickle=False) if npy else np.loadtxt(self.file, delimiter=",", ndmin=2)
            except (OSError, ValueError) as exc:
                why = ("it is not a NumPy .npy array of numbers (pickled or damaged data is never loaded)" if npy
                       else f"expected comma-separated numbers ({str(exc).splitlines()[0][:120]})")
                raise ValueError(f"cannot read heights from {self.file!r}: {why}") from None
            if grid.dtype.kind not in "iuf":
                raise ValueError(f"cannot read heights from {self.file!r}: expected numbers, got an array of {grid.dtype}")
        if grid.ndim != 2 or min(grid.shape) < 2 or not np.all(np.isfinite(grid)):
            raise ValueError(f"heights must be a finite grid of at least 2 x 2 values, got shape {grid.shape}")
        return grid
