"""What a served vehicle accepts as a target. Beyond these bounds a value is a mistake or an
attack (a latitude of 1000 degrees, a setpoint on the Moon), refused with the reason rather than
flown; the bounds are far beyond any swarm experiment's."""

from __future__ import annotations

import math

MAX_DISTANCE_M = 100_000.0
"""A target farther than this horizontally from the origin."""
MAX_HEIGHT_M = 10_000.0
"""A target higher or lower than this relative to home."""
MAX_SPEED_M_S = 100.0
"""A velocity setpoint faster than this."""


def target_problem(x: float, y: float, z_above_home: float) -> str | None:
    """Why a position target (m east, m north of the origin; m above home) is refused, or None."""
    if math.hypot(x, y) > MAX_DISTANCE_M:
        return f"target {math.hypot(x, y) / 1000:.0f} km away (max {MAX_DISTANCE_M / 1000:.0f} km)"
    if abs(z_above_home) > MAX_HEIGHT_M:
        return f"target {z_above_home:.0f} m from home's height (max {MAX_HEIGHT_M:.0f} m)"
    return None


def speed_problem(vx: float, vy: float, vz: float) -> str | None:
    speed = math.sqrt(vx * vx + vy * vy + vz * vz)
    return f"speed {speed:.0f} m/s (max {MAX_SPEED_M_S:.0f})" if speed > MAX_SPEED_M_S else None


def geodetic_problem(lat: float, lon: float) -> str | None:
    """Latitude and longitude in degrees (NaN: keep the current one)."""
    if not math.isnan(lat) and abs(lat) > 90.0:
        return f"latitude {lat:g} beyond the poles"
    if not math.isnan(lon) and abs(lon) > 180.0:
        return f"longitude {lon:g} beyond +-180"
    return None
