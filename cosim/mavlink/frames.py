"""Frame conversions between the simulation (ENU: x east, y north, z up; heading counter-clockwise
from east) and MAVLink (NED: north, east, down; yaw clockwise from north), and geodetic positions
about one shared origin (a local tangent plane: centimetres over a few kilometres)."""

from __future__ import annotations

import math

from physics.geodesy import GeoOrigin  # noqa: F401  (re-exported: the bridge's geodetic origin)


def enu_to_ned(x: float, y: float, z: float) -> tuple[float, float, float]:
    return y, x, -z


def ned_to_enu(n: float, e: float, d: float) -> tuple[float, float, float]:
    return e, n, -d


def heading_to_yaw(heading: float) -> float:
    """ENU heading (rad, CCW from east) to NED yaw (rad, CW from north), wrapped to (-pi, pi]."""
    return math.remainder(math.pi / 2.0 - heading, 2.0 * math.pi)


def yaw_to_heading(yaw: float) -> float:
    return math.remainder(math.pi / 2.0 - yaw, 2.0 * math.pi)
