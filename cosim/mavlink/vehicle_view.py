"""What a ground station written as a controller knows of one vehicle (cosim.mavlink.ground_control):
its system id, robot and autopilot, the latest message of each type, its acknowledgements, and the
missions it was offered and holds."""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from typing import Any

from pymavlink.dialects.v20 import common as mav

from cosim.mavlink.mission_items import MissionItem
from cosim.mavlink.personality import ARDUPILOT, ARDUPILOT_ROVER, PX4, Personality
from physics.geodesy import GeoOrigin


@dataclass
class VehicleView:
    """What the ground station knows of one vehicle: its system id, robot, autopilot, the latest message
    of each type, and the result of each command acknowledged (MAV_RESULT by command id)."""

    sysid: int
    node: int
    personality: Personality
    origin: GeoOrigin
    """The arena's geodetic origin (the scenario's `mavlink.origin`)."""
    latest: dict[str, Any] = field(default_factory=dict)
    acks: dict[int, int] = field(default_factory=dict)
    mission: list[MissionItem] = field(default_factory=list)
    """The mission being uploaded or last uploaded, numbered as the vehicle holds it."""
    mission_result: int | None = None
    """The vehicle's MISSION_ACK type for it (MAV_MISSION_ACCEPTED, 0, or why not; None until it came)."""
    held: list[MissionItem] = field(default_factory=list)
    """The mission downloaded back from the vehicle so far (verify_mission), numbered as it holds it."""
    held_count: int | None = None
    mission_verified: bool | None = None
    """Whether the mission it holds is the one uploaded (None until a download finished)."""
    commands: deque[tuple[int, tuple[float, ...], bool]] = field(default_factory=deque)
    """Commands waiting their turn; the first is in flight while `sends` > 0."""
    sends: int = 0

    @property
    def armed(self) -> bool:
        """Whether its last heartbeat says armed."""
        hb = self.latest.get("HEARTBEAT")
        return hb is not None and bool(hb.base_mode & mav.MAV_MODE_FLAG_SAFETY_ARMED)

    @property
    def mode(self) -> str | None:
        """Its flight mode by name, from its last heartbeat (None before one, or for a mode we do not name)."""
        hb = self.latest.get("HEARTBEAT")
        return None if hb is None else self.personality.mode_name(hb.custom_mode)

    @property
    def position(self) -> tuple[float, float, float] | None:
        """Where it last said it was (arena frame, m), or None before a GLOBAL_POSITION_INT with a position
        (ArduCopter sends latitude and longitude 0 until its estimator has an origin)."""
        g = self.latest.get("GLOBAL_POSITION_INT")
        if g is None or (g.lat == 0 and g.lon == 0):
            return None
        return self.origin.from_geodetic(g.lat / 1e7, g.lon / 1e7, g.alt / 1000.0)


def personality_of(heartbeat: Any) -> Personality:
    """The autopilot a vehicle's heartbeat names (PX4, or ArduPilot's copter or rover)."""
    if heartbeat.autopilot == mav.MAV_AUTOPILOT_PX4:
        return PX4
    return ARDUPILOT_ROVER if heartbeat.type == mav.MAV_TYPE_GROUND_ROVER else ARDUPILOT
