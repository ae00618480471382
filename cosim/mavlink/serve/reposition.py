"""Global position targets (SET_POSITION_TARGET_GLOBAL_INT, DO_REPOSITION), and
MAV_CMD_DO_REPOSITION and its CHANGE_MODE flag (param2 bit 0), as the autopilots' sources read them:

- ArduPilot (handle_command_int_do_reposition): outside GUIDED it refuses a reposition without the
  flag; with it, it enters GUIDED and flies to the target;
- PX4 (commander, navigator): with the flag it enters Hold (AUTO_LOITER) and flies to the target;
  without it the target is flown in Hold only: in another mode it is kept, and flown when the
  vehicle next enters Hold (Loiter takes the navigator's stored reposition when it starts), be it
  by a mode change or at the end of a take-off.
"""

from __future__ import annotations

import math

from cosim.mavlink.serve.autopilot import Autopilot
from cosim.mavlink.serve.limits import geodetic_problem, target_problem
from cosim.mavlink.serve.vehicle_state import Target


def reposition(ap: Autopilot, target: Target, change_mode: bool) -> bool:
    """Fly to `target`, change mode, or keep it, as the vehicle's autopilot does; False if refused."""
    v = ap.state
    modes = v.personality.modes
    if "guided" in modes:  # ArduPilot
        if v.mode != "guided":
            if not change_mode:
                return ap.deny("Reposition: not in GUIDED (no change-mode flag)")
            if not ap.set_mode(modes["guided"]):
                return False
        ap.follow_position(*target)
        return True
    if change_mode and v.mode != "hold" and not ap.set_mode(modes["hold"]):
        return False
    if v.mode == "hold":
        ap.follow_position(*target, auto=True)
    else:
        v.kept = target
    return True


def goto_global(ap: Autopilot, lat: float, lon: float, alt: float, yaw_deg: float | None, relative: bool = False,
                change_mode: bool | None = None) -> bool:
    """A global target (degrees; m above sea level, or above home if `relative`): a setpoint's
    (change_mode None), or DO_REPOSITION's; refused with the reason if out of bounds."""
    v = ap.state
    if not v.armed:
        return ap.deny("Reposition: vehicle not armed")
    problem = geodetic_problem(lat, lon)
    if problem is not None:
        return ap.deny(f"Reposition: {problem}")
    here = v.body.position()
    x, y, z = v.origin.from_geodetic(0.0 if math.isnan(lat) else lat, 0.0 if math.isnan(lon) else lon,
                                        0.0 if math.isnan(alt) else alt)
    if relative:
        z = v.home[2] + alt
    if math.isnan(lat) or math.isnan(lon):  # PX4: NaN keeps the current horizontal position
        x = float(here[0])
        y = float(here[1])
    if math.isnan(alt):  # and NaN the current altitude
        z = float(here[2])
    problem = target_problem(x, y, z - v.home[2])
    if problem is not None:
        return ap.deny(f"Reposition: {problem}")
    yaw = None if yaw_deg is None or math.isnan(yaw_deg) else math.radians(yaw_deg)
    if change_mode is not None:
        return reposition(ap, (x, y, z, yaw), change_mode)
    ap.follow_position(x, y, z, yaw)
    return True
