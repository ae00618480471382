"""Frame conversions between the simulation (ENU: x east, y north, z up; heading counter-clockwise
from east) and MAVLink (NED: north, east, down; yaw clockwise from north), and geodetic positions
about one shared origin (a local tangent plane: centimetres over a few kilometres)."""

from __future__ import annotations

import math
from dataclasses import dataclass

EARTH_RADIUS_M = 6_378_137.0


def enu_to_ned(x: float, y: float, z: float) -> tuple[float, float, float]:
    return y, x, -z


def ned_to_enu(n: float, e: float, d: float) -> tuple[float, float, float]:
    return e, n, -d


def heading_to_yaw(heading: float) -> float:
    """ENU heading (rad, CCW from east) to NED yaw (rad, CW from north), wrapped to (-pi, pi]."""
    return math.remainder(math.pi / 2.0 - heading, 2.0 * math.pi)


def yaw_to_heading(yaw: float) -> float:
    return math.remainder(math.pi / 2.0 - yaw, 2.0 * math.pi)


@dataclass(frozen=True)
class GeoOrigin:
    """Latitude and longitude (degrees) and altitude above mean sea level (m) of the arena's origin."""

    lat: float = 47.3977
    lon: float = 8.5456
    alt: float = 488.0

    def to_geodetic(self, x: float, y: float, z: float) -> tuple[float, float, float]:
        lat = self.lat + math.degrees(y / EARTH_RADIUS_M)
        lon = self.lon + math.degrees(x / (EARTH_RADIUS_M * math.cos(math.radians(self.lat))))
        return lat, lon, self.alt + z

    def from_geodetic(self, lat: float, lon: float, alt: float) -> tuple[float, float, float]:
        y = math.radians(lat - self.lat) * EARTH_RADIUS_M
        x = math.radians(lon - self.lon) * EARTH_RADIUS_M * math.cos(math.radians(self.lat))
        return x, y, alt - self.alt
