"""COMMAND_LONG and COMMAND_INT on a served vehicle: each command's parameters checked, then handed
to the vehicle's action, and answered with COMMAND_ACK (a refusal preceded by a STATUSTEXT with the
reason). COMMAND_INT's frame is honoured: positions above sea level or relative to home; terrain
frames are refused, since the simulation keeps no terrain database for the autopilot."""

from __future__ import annotations

import math
from typing import Any

from pymavlink.dialects.v20 import common as mav

from cosim.mavlink.mission_items import AMSL_FRAMES, RELATIVE_FRAMES, TERRAIN_FRAMES
from cosim.mavlink.personality import PX4
from cosim.mavlink.serve import reposition
from cosim.mavlink.serve import telemetry as tm
from cosim.mavlink.serve.autopilot import Autopilot

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


def run(ap: Autopilot, streams: tm.Streams, cmd: int, p: list[float], frame: int | None = None) -> tuple[int, Any]:
    """One command (params 1..7 as p[0..6]; `frame` for COMMAND_INT, None for COMMAND_LONG): its
    MAV_RESULT, and the message it asked for (None if it asked for none), to send after the ack."""
    if cmd in REQUESTS and math.isfinite(p[0]):
        wanted = mav.MAVLINK_MSG_ID_AUTOPILOT_VERSION if cmd != mav.MAV_CMD_REQUEST_MESSAGE else int(p[0])
        reply = tm.requested(ap, streams, wanted)
        return (mav.MAV_RESULT_ACCEPTED if reply is not None else mav.MAV_RESULT_UNSUPPORTED), reply
    result = _act(ap, streams, cmd, p, frame)
    if result is False and cmd in ACTIONS:
        return ap.state.personality.action_refused, None
    if result is True or result is False:
        result = mav.MAV_RESULT_ACCEPTED if result else mav.MAV_RESULT_DENIED
    return result, None


def _act(ap: Autopilot, streams: tm.Streams, cmd: int, p: list[float], frame: int | None) -> bool | int:
    """True (done), False (refused, the reason said) or a MAV_RESULT."""
    bad = [k + 1 for k in USED_PARAMS.get(cmd, ())
           if math.isinf(p[k]) or (math.isnan(p[k]) and k not in NAN_KEEPS.get(cmd, ()))]
    if bad:
        return _malformed(ap, f"param{bad[0]} must be a finite number")
    if frame is not None and cmd in POSITIONED:
        if frame in TERRAIN_FRAMES:
            return _malformed(ap, "Frame: terrain altitudes are not supported")
        if frame not in AMSL_FRAMES | RELATIVE_FRAMES:
            return _malformed(ap, f"Frame: {frame} is not a global frame")
    if cmd == mav.MAV_CMD_SET_MESSAGE_INTERVAL:
        problem = streams.set_interval(p[0], p[1])
        return problem is None or ap.deny(problem)
    handler = HANDLERS.get(cmd)
    if handler is None:
        return mav.MAV_RESULT_UNSUPPORTED
    return handler(ap, p, frame)


def _malformed(ap: Autopilot, reason: str) -> int:
    """A command whose parameters or frame we cannot take: denied, the reason said."""
    ap.deny(reason)
    return mav.MAV_RESULT_DENIED


def _set_mode(ap: Autopilot, p: list[float], frame: int | None) -> bool:
    custom = int(p[1]) << 16 | int(p[2]) << 24 if ap.state.personality is PX4 else int(p[1])
    return ap.set_mode(custom)


def _reposition(ap: Autopilot, p: list[float], frame: int | None) -> bool:
    change_mode = bool(int(p[1]) & mav.MAV_DO_REPOSITION_FLAGS_CHANGE_MODE)
    return reposition.goto_global(ap, p[4], p[5], p[6], p[3], relative=frame in RELATIVE_FRAMES, change_mode=change_mode)


def _mission_start(ap: Autopilot, p: list[float], frame: int | None) -> bool | int:
    """ArduCopter denies a first or last item other than 0, then enters AUTO, armed or not, and arms
    nothing (GCS_MAVLINK_Copter's handle_MAV_CMD_MISSION_START). PX4 makes param1 the current item (-1:
    the current one stays), enters MISSION and arms (Commander's and Navigator's VEHICLE_CMD_MISSION_START),
    so a mission that was flown to its end starts again from 0."""
    personality = ap.state.personality
    if personality is not PX4:
        if p[0] != 0 or p[1] != 0:
            return mav.MAV_RESULT_DENIED
        return ap.set_mode(personality.modes["auto"])
    if not ap.missions.ready:
        ap.deny("Mission start denied! No valid mission")
        return mav.MAV_RESULT_DENIED
    if not (math.isfinite(p[0]) and -1 <= p[0] < ap.missions.count):
        return mav.MAV_RESULT_DENIED
    if p[0] >= 0 and not ap.missions.set_current(int(p[0])):
        return False
    return ap.set_mode(personality.modes["mission"]) and ap.arm(True)


HANDLERS = {
    mav.MAV_CMD_COMPONENT_ARM_DISARM: lambda ap, p, frame: ap.arm(p[0] >= 0.5),
    mav.MAV_CMD_NAV_TAKEOFF: lambda ap, p, frame: ap.takeoff(p[6], None if frame is None else frame in AMSL_FRAMES),
    mav.MAV_CMD_NAV_LAND: lambda ap, p, frame: ap.land(),
    mav.MAV_CMD_DO_SET_MODE: _set_mode,
    mav.MAV_CMD_DO_REPOSITION: _reposition,
    mav.MAV_CMD_MISSION_START: _mission_start,
    mav.MAV_CMD_DO_SET_MISSION_CURRENT: lambda ap, p, frame: ap.missions.set_current(int(p[0])),
}
"""What each supported command does; any other is answered MAV_RESULT_UNSUPPORTED."""
ACTIONS = {mav.MAV_CMD_COMPONENT_ARM_DISARM, mav.MAV_CMD_NAV_TAKEOFF, mav.MAV_CMD_DO_SET_MODE, mav.MAV_CMD_MISSION_START}
"""Commands whose refusal is acknowledged as the autopilot acknowledges it (Personality.action_refused)."""
