"""SET_POSITION_TARGET_LOCAL_NED and SET_POSITION_TARGET_GLOBAL_INT on a served vehicle, in every
frame the autopilots take (ArduCopter's reading of them):

- LOCAL_NED: positions about the local origin (the vehicle's home here), velocities north/east/down;
- LOCAL_OFFSET_NED: positions relative to where the vehicle is, north/east/down;
- BODY_NED: positions as LOCAL_NED, velocities along the vehicle's heading (forward/right/down);
- BODY_OFFSET_NED: positions and velocities relative to the vehicle and its heading;
- GLOBAL_INT (above sea level) and GLOBAL_RELATIVE_ALT_INT (above home) for global targets, whose
  velocities are north/east/down.

Terrain frames and any other frame are refused with a STATUSTEXT, as are non-finite values and
targets beyond limits; setpoints only act in GUIDED/OFFBOARD while armed (they still count as a
stream, which PX4 needs before it enters OFFBOARD).
"""

from __future__ import annotations

import math

from pymavlink.dialects.v20 import common as mav

from cosim.mavlink.frames import enu_to_ned, heading_to_yaw, ned_to_enu
from cosim.mavlink.mission_items import TERRAIN_FRAMES
from cosim.mavlink.serve import reposition
from cosim.mavlink.serve.autopilot import Autopilot
from cosim.mavlink.serve.limits import speed_problem, target_problem

IGNORE_POSITION = 0b111
IGNORE_VELOCITY = 0b111000
IGNORE_YAW = 1 << 10
LOCAL_FRAMES = {mav.MAV_FRAME_LOCAL_NED, mav.MAV_FRAME_LOCAL_OFFSET_NED, mav.MAV_FRAME_BODY_NED,
                mav.MAV_FRAME_BODY_OFFSET_NED}
GLOBAL_FRAMES = {mav.MAV_FRAME_GLOBAL_INT: False, mav.MAV_FRAME_GLOBAL_RELATIVE_ALT_INT: True}
"""Global frames taken, and whether their altitude is relative to home."""
OFFSET_FRAMES = {mav.MAV_FRAME_LOCAL_OFFSET_NED, mav.MAV_FRAME_BODY_OFFSET_NED}
BODY_FRAMES = {mav.MAV_FRAME_BODY_NED, mav.MAV_FRAME_BODY_OFFSET_NED}


def _frame_problem(frame: int, taken) -> str | None:
    if frame in TERRAIN_FRAMES:
        return "setpoint refused: terrain frames are not supported"
    if frame not in taken:
        name = mav.enums["MAV_FRAME"][frame].name if frame in mav.enums["MAV_FRAME"] else str(frame)
        return f"setpoint refused: frame {name[10:] or frame} not supported"
    return None


def _yaw(m) -> float | None:
    return None if m.type_mask & IGNORE_YAW else m.yaw


def _yaw_problem(m) -> str | None:
    """An infinite yaw has no direction (NaN is taken: it keeps the current heading)."""
    if not m.type_mask & IGNORE_YAW and math.isinf(m.yaw):
        return f"setpoint refused: yaw {m.yaw} is not an angle"
    return None


def local_target(ap: Autopilot, m) -> None:
    """SET_POSITION_TARGET_LOCAL_NED."""
    ap.setpoint_heard()
    if not ap.state.following:
        return
    mask = m.type_mask
    frame = m.coordinate_frame
    problem = _frame_problem(frame, LOCAL_FRAMES)
    used = ([m.x, m.y, m.z] if not mask & IGNORE_POSITION else []) + ([m.vx, m.vy, m.vz] if not mask & IGNORE_VELOCITY else [])
    if problem is None and not all(math.isfinite(x) for x in used):
        problem = "setpoint refused: non-finite position or velocity"
    problem = problem or _yaw_problem(m)
    if problem is not None:
        ap.deny(problem)
    elif not mask & IGNORE_POSITION:
        n = m.x
        e = m.y
        d = m.z
        if frame in OFFSET_FRAMES:
            n, e, d = _offset(ap, n, e, d, body=frame == mav.MAV_FRAME_BODY_OFFSET_NED)
        x, y, z = ned_to_enu(n, e, d)
        problem = target_problem(x, y, z - ap.state.home[2])
        ap.deny(f"setpoint refused: {problem}") if problem else ap.follow_position(x, y, z, _yaw(m))
    elif not mask & IGNORE_VELOCITY:
        problem = speed_problem(m.vx, m.vy, m.vz)
        if problem:
            ap.deny(f"setpoint refused: {problem}")
        elif frame in BODY_FRAMES:
            ap.follow_velocity(True, m.vx, -m.vy, -m.vz, _yaw(m))  # forward/right/down -> forward/left/up
        else:
            ap.follow_velocity(False, *ned_to_enu(m.vx, m.vy, m.vz), _yaw(m))


def _offset(ap: Autopilot, n: float, e: float, d: float, body: bool) -> tuple[float, float, float]:
    """An offset from where the vehicle is (rotated from forward/right by its yaw if `body`), in NED."""
    if body:
        yaw = heading_to_yaw(ap.state.body.attitude()[2])
        n, e = n * math.cos(yaw) - e * math.sin(yaw), n * math.sin(yaw) + e * math.cos(yaw)
    hn, he, hd = enu_to_ned(*ap.state.body.position())
    return hn + n, he + e, hd + d


def global_target(ap: Autopilot, m) -> None:
    """SET_POSITION_TARGET_GLOBAL_INT: a position (degrees, metres in the frame's sense) or a
    north/east/down velocity."""
    ap.setpoint_heard()
    if not ap.state.following:
        return
    problem = _frame_problem(m.coordinate_frame, GLOBAL_FRAMES) or _yaw_problem(m)
    if problem is not None:
        ap.deny(problem)
    elif not m.type_mask & IGNORE_POSITION:
        if not math.isfinite(m.alt):
            ap.deny("setpoint refused: non-finite altitude")
            return
        yaw_deg = None if m.type_mask & IGNORE_YAW else math.degrees(m.yaw)
        reposition.goto_global(ap, m.lat_int / 1e7, m.lon_int / 1e7, m.alt, yaw_deg, relative=GLOBAL_FRAMES[m.coordinate_frame])
    elif not m.type_mask & IGNORE_VELOCITY:
        problem = None if all(math.isfinite(x) for x in (m.vx, m.vy, m.vz)) else "non-finite velocity"
        problem = problem or speed_problem(m.vx, m.vy, m.vz)
        ap.deny(f"setpoint refused: {problem}") if problem else ap.follow_velocity(False, *ned_to_enu(m.vx, m.vy, m.vz), _yaw(m))
