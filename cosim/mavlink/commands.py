"""COMMAND_LONG and COMMAND_INT on a served vehicle: each command's parameters checked, then handed
to the vehicle's action, and answered with COMMAND_ACK (a refusal preceded by a STATUSTEXT with the
reason). COMMAND_INT's frame is honoured: positions above sea level or relative to home; terrain
frames are refused, since the simulation keeps no terrain database for the autopilot."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from pymavlink.dialects.v20 import common as mav

from cosim.mavlink import reposition
from cosim.mavlink import telemetry as tm
from cosim.mavlink.mission_items import AMSL_FRAMES, RELATIVE_FRAMES, TERRAIN_FRAMES
from cosim.mavlink.personality import PX4

if TYPE_CHECKING:
    from cosim.mavlink.vehicle_endpoint import SimVehicleEndpoint

USED_PARAMS = {mav.MAV_CMD_COMPONENT_ARM_DISARM: (0,), mav.MAV_CMD_NAV_TAKEOFF: (3, 6), mav.MAV_CMD_DO_SET_MODE: (0, 1, 2),
               mav.MAV_CMD_DO_REPOSITION: (1, 3, 4, 5, 6), mav.MAV_CMD_REQUEST_MESSAGE: (0,),
               mav.MAV_CMD_SET_MESSAGE_INTERVAL: (0, 1), mav.MAV_CMD_DO_SET_MISSION_CURRENT: (0,)}
"""Command parameters (0-based) each command reads: never infinite, and not NaN unless listed below."""
NAN_KEEPS = {mav.MAV_CMD_NAV_TAKEOFF: (3, 6), mav.MAV_CMD_DO_REPOSITION: (3, 4, 5, 6)}
"""Parameters where NaN means what it means to PX4: the default take-off altitude, the current yaw or position."""
POSITIONED = {mav.MAV_CMD_DO_REPOSITION, mav.MAV_CMD_NAV_TAKEOFF}
"""Commands whose x, y, z are a position, so that COMMAND_INT's frame matters."""
REQUESTS = {mav.MAV_CMD_REQUEST_MESSAGE, mav.MAV_CMD_REQUEST_AUTOPILOT_CAPABILITIES}
"""Commands answered with a message (after the COMMAND_ACK), or UNSUPPORTED for one not provided."""


def run(v: SimVehicleEndpoint, cmd: int, p: list[float], frame: int | None = None) -> None:
    """One command (params 1..7 as p[0..6]; `frame` for COMMAND_INT, None for COMMAND_LONG)."""
    v.stats.commands[cmd] = v.stats.commands.get(cmd, 0) + 1
    if cmd in REQUESTS and math.isfinite(p[0]):
        reply = tm.requested(v, mav.MAVLINK_MSG_ID_AUTOPILOT_VERSION if cmd != mav.MAV_CMD_REQUEST_MESSAGE else int(p[0]))
        v.ack(cmd, mav.MAV_RESULT_ACCEPTED if reply is not None else mav.MAV_RESULT_UNSUPPORTED)
        if reply is not None:  # after the acknowledgement, as the autopilots send it
            v.send(reply)
        return
    result = _act(v, cmd, p, frame)
    if result is True or result is False:
        result = mav.MAV_RESULT_ACCEPTED if result else mav.MAV_RESULT_DENIED
    v.ack(cmd, result)


def _act(v: SimVehicleEndpoint, cmd: int, p: list[float], frame: int | None) -> bool | int:
    """True (done), False (refused, the reason said) or a MAV_RESULT."""
    bad = [k + 1 for k in USED_PARAMS.get(cmd, ())
           if math.isinf(p[k]) or (math.isnan(p[k]) and k not in NAN_KEEPS.get(cmd, ()))]
    if bad:
        return v.deny(f"param{bad[0]} must be a finite number")
    if frame is not None and cmd in POSITIONED:
        if frame in TERRAIN_FRAMES:
            return v.deny("Frame: terrain altitudes are not supported")
        if frame not in AMSL_FRAMES | RELATIVE_FRAMES:
            return v.deny(f"Frame: {frame} is not a global frame")
    handler = HANDLERS.get(cmd)
    if handler is None:
        return mav.MAV_RESULT_UNSUPPORTED
    return handler(v, p, frame)


def _set_mode(v: SimVehicleEndpoint, p: list[float], frame: int | None) -> bool:
    custom = int(p[1]) << 16 | int(p[2]) << 24 if v.p is PX4 else int(p[1])
    return v.set_mode(custom)


def _reposition(v: SimVehicleEndpoint, p: list[float], frame: int | None) -> bool:
    change_mode = bool(int(p[1]) & mav.MAV_DO_REPOSITION_FLAGS_CHANGE_MODE)
    return reposition.goto_global(v, p[4], p[5], p[6], p[3], relative=frame in RELATIVE_FRAMES, change_mode=change_mode)


def _interval(v: SimVehicleEndpoint, p: list[float], frame: int | None) -> bool:
    problem = v.streams.set_interval(p[0], p[1])
    return problem is None or v.deny(problem)


HANDLERS = {
    mav.MAV_CMD_COMPONENT_ARM_DISARM: lambda v, p, frame: v.arm(p[0] >= 0.5),
    mav.MAV_CMD_NAV_TAKEOFF: lambda v, p, frame: v.takeoff(p[6], None if frame is None else frame in AMSL_FRAMES),
    mav.MAV_CMD_NAV_LAND: lambda v, p, frame: v.land(),
    mav.MAV_CMD_DO_SET_MODE: _set_mode,
    mav.MAV_CMD_DO_REPOSITION: _reposition,
    mav.MAV_CMD_SET_MESSAGE_INTERVAL: _interval,
    mav.MAV_CMD_MISSION_START: lambda v, p, frame: v.set_mode(v.p.modes["mission" if v.p is PX4 else "auto"], True),
    mav.MAV_CMD_DO_SET_MISSION_CURRENT: lambda v, p, frame: v.missions.set_current(int(p[0])),
}
"""What each supported command does; any other is answered MAV_RESULT_UNSUPPORTED."""
