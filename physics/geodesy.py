"""Geodetic positions about one origin: a local tangent plane (x east, y north, z up), accurate to
centimetres over a few kilometres. Shared by the GPS sensor and the MAVLink bridge."""

from __future__ import annotations

import math
from dataclasses import dataclass

EARTH_RADIUS_M = 6_378_137.0


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
