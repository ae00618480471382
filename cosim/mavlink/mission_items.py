"""Mission items as a served vehicle keeps them: read from MISSION_ITEM_INT (or the older float
MISSION_ITEM), checked against what the vehicle can fly, and written back for a download.

Supported commands: NAV_WAYPOINT, NAV_LOITER_TIME, NAV_TAKEOFF, NAV_LAND, NAV_RETURN_TO_LAUNCH,
NAV_DELAY (a wait in place, as MAVSDK sends a loiter time), DO_CHANGE_SPEED and DO_JUMP. Position
frames: global above sea level and relative to home (float and int forms); items without a position
in any frame. Anything else is refused at upload with the reason, so no item is accepted and then
skipped.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from pymavlink.dialects.v20 import common as mav

NAV_COMMANDS = {mav.MAV_CMD_NAV_WAYPOINT, mav.MAV_CMD_NAV_LOITER_TIME, mav.MAV_CMD_NAV_TAKEOFF, mav.MAV_CMD_NAV_LAND,
                mav.MAV_CMD_NAV_RETURN_TO_LAUNCH, mav.MAV_CMD_NAV_DELAY}
"""Items the vehicle flies (to a position, or home) or waits through (NAV_DELAY)."""
MAX_ALTITUDE_M = 20_000.0
"""The highest (or lowest) altitude an item may give, in any frame: a target beyond the vehicle's
reach by far is a mistake, refused at upload (cosim.mavlink.serve.limits bounds targets once flown)."""
DO_COMMANDS = {mav.MAV_CMD_DO_CHANGE_SPEED, mav.MAV_CMD_DO_JUMP}
"""Items that change how the mission goes on, at once."""
COPTER_ONLY = {mav.MAV_CMD_NAV_TAKEOFF, mav.MAV_CMD_NAV_LAND}
AMSL_FRAMES = {mav.MAV_FRAME_GLOBAL, mav.MAV_FRAME_GLOBAL_INT}
RELATIVE_FRAMES = {mav.MAV_FRAME_GLOBAL_RELATIVE_ALT, mav.MAV_FRAME_GLOBAL_RELATIVE_ALT_INT}
TERRAIN_FRAMES = {mav.MAV_FRAME_GLOBAL_TERRAIN_ALT, mav.MAV_FRAME_GLOBAL_TERRAIN_ALT_INT}
NO_POSITION = {mav.MAV_CMD_NAV_RETURN_TO_LAUNCH, mav.MAV_CMD_NAV_DELAY} | DO_COMMANDS
"""Items whose position fields mean nothing (any frame is accepted for them)."""


@dataclass(frozen=True)
class MissionItem:
    """One item: `lat`/`lon` in degrees, `alt` in metres (above sea level or above home, by `frame`)."""

    seq: int
    frame: int
    command: int
    params: tuple[float, float, float, float]
    lat: float
    lon: float
    alt: float
    autocontinue: bool = True

    @property
    def relative(self) -> bool:
        return self.frame in RELATIVE_FRAMES

    @property
    def has_horizontal(self) -> bool:
        """False where the item's latitude and longitude are both zero: here (land where you are)."""
        return not (self.lat == 0.0 and self.lon == 0.0)

    def to_int(self, target_system: int, target_component: int, mission_type: int = mav.MAV_MISSION_TYPE_MISSION,
               current: bool = False, plain_frames: bool = False):
        """MISSION_ITEM_INT; `plain_frames`: with the frames of MISSION_ITEM (0, 3) as ArduPilot sends them
        (AP_Mission::mission_cmd_to_mavlink_int), else with their _INT forms (5, 6) as PX4 does."""
        frame = self.frame
        if plain_frames:
            frame = {mav.MAV_FRAME_GLOBAL_INT: mav.MAV_FRAME_GLOBAL,
                     mav.MAV_FRAME_GLOBAL_RELATIVE_ALT_INT: mav.MAV_FRAME_GLOBAL_RELATIVE_ALT}.get(frame, frame)
        elif frame == mav.MAV_FRAME_GLOBAL:
            frame = mav.MAV_FRAME_GLOBAL_INT
        elif frame == mav.MAV_FRAME_GLOBAL_RELATIVE_ALT:
            frame = mav.MAV_FRAME_GLOBAL_RELATIVE_ALT_INT
        return mav.MAVLink_mission_item_int_message(target_system, target_component, self.seq, frame, self.command,
                                                    int(current), int(self.autocontinue), *self.params,
                                                    round(self.lat * 1e7), round(self.lon * 1e7), self.alt, mission_type)

    def to_float(self, target_system: int, target_component: int, mission_type: int = mav.MAV_MISSION_TYPE_MISSION,
                 current: bool = False):
        return mav.MAVLink_mission_item_message(target_system, target_component, self.seq, self.frame, self.command,
                                                int(current), int(self.autocontinue), *self.params, self.lat,
                                                self.lon, self.alt, mission_type)


@dataclass
class MissionProgress:
    """What a vehicle reported of the mission we gave it (item numbers are ours, without ArduPilot's
    home item): the current item, the items reached in order, and whether it is over."""

    total: int
    offset: int = 0  # ArduPilot's home item: the vehicle's numbers are ours + offset
    current: int = -1
    reached: list[int] = field(default_factory=list)
    complete: bool = False

    def heard(self, m) -> None:
        """MISSION_CURRENT or MISSION_ITEM_REACHED."""
        seq = m.seq - self.offset
        if m.get_type() == "MISSION_ITEM_REACHED":
            if not self.reached or self.reached[-1] != seq:
                self.reached.append(seq)
            self.complete = self.complete or seq == self.total - 1
        else:
            self.current = seq
            self.complete = self.complete or m.mission_state == mav.MISSION_STATE_COMPLETE


def from_message(m) -> MissionItem:
    """A MISSION_ITEM_INT or MISSION_ITEM as an item (the int form's 1e7-scaled degrees undone)."""
    scale = 1e-7 if m.get_type() == "MISSION_ITEM_INT" else 1.0
    return MissionItem(m.seq, m.frame, m.command, (m.param1, m.param2, m.param3, m.param4), m.x * scale, m.y * scale,
                       m.z, bool(m.autocontinue))


def problem(item: MissionItem, count: int, vehicle: str) -> tuple[int, str] | None:
    """Why `item` (of a mission of `count` items) cannot be flown by a `vehicle` ("copter" or "rover"),
    as (MAV_MISSION_RESULT, reason), or None if it can."""
    name = mav.enums["MAV_CMD"][item.command].name[8:] if item.command in mav.enums["MAV_CMD"] else str(item.command)
    if item.command not in NAV_COMMANDS | DO_COMMANDS:
        return mav.MAV_MISSION_UNSUPPORTED, f"{name} is not supported"
    if vehicle != "copter" and item.command in COPTER_ONLY:
        return mav.MAV_MISSION_UNSUPPORTED, f"{name}: a {vehicle} does not fly"
    if item.command not in NO_POSITION:
        if not all(math.isfinite(v) for v in (item.lat, item.lon, item.alt)):
            return mav.MAV_MISSION_INVALID, f"item {item.seq}: non-finite position"
        if item.frame in TERRAIN_FRAMES:
            return mav.MAV_MISSION_UNSUPPORTED_FRAME, f"item {item.seq}: terrain frames need terrain data"
        if item.frame not in AMSL_FRAMES | RELATIVE_FRAMES:
            return mav.MAV_MISSION_UNSUPPORTED_FRAME, f"item {item.seq}: frame {item.frame} is not a global frame"
        if not (-90.0 <= item.lat <= 90.0 and -180.0 <= item.lon <= 180.0):
            return mav.MAV_MISSION_INVALID, f"item {item.seq}: latitude or longitude out of range"
        if abs(item.alt) > MAX_ALTITUDE_M:
            return mav.MAV_MISSION_INVALID, f"item {item.seq}: altitude {item.alt:g} m (max {MAX_ALTITUDE_M:g})"
    if item.command == mav.MAV_CMD_DO_JUMP:
        target = item.params[0]
        repeat = item.params[1]
        if not (math.isfinite(target) and 0 <= target < count and target != item.seq):
            return mav.MAV_MISSION_INVALID_PARAM1, f"item {item.seq}: DO_JUMP to {target} (mission of {count})"
        if not (math.isfinite(repeat) and (repeat >= 0 or repeat == -1)):
            return mav.MAV_MISSION_INVALID_PARAM2, f"item {item.seq}: DO_JUMP repeat {repeat}"
    if item.command == mav.MAV_CMD_NAV_DELAY and not (math.isfinite(item.params[0]) and item.params[0] >= 0):
        return mav.MAV_MISSION_INVALID_PARAM1, f"item {item.seq}: NAV_DELAY needs a delay in seconds (no time of day)"
    if item.command == mav.MAV_CMD_DO_CHANGE_SPEED and not (math.isfinite(item.params[1]) and
                                                             (item.params[1] > 0 or item.params[1] == -1)):
        return mav.MAV_MISSION_INVALID_PARAM2, f"item {item.seq}: DO_CHANGE_SPEED to {item.params[1]} m/s"
    if not all(math.isfinite(v) or math.isnan(v) for v in item.params):
        return mav.MAV_MISSION_INVALID, f"item {item.seq}: infinite parameter"
    return None
