"""Autopilot personalities: how PX4, ArduPilot Copter and ArduPilot Rover identify themselves and
encode flight modes."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from pymavlink.dialects.v20 import common as mav

from cosim.mavlink.flight_params import ARDUPILOT_PARAMS, PX4_PARAMS, ParamSpec, Rules, ardupilot_rules, px4_rules


def _px4(main: int, sub: int = 0) -> int:
    return (main << 16) | (sub << 24)


@dataclass(frozen=True)
class Personality:
    """MAVLink identity and mode numbers of one autopilot family."""

    name: str
    autopilot: int
    modes: dict[str, int] = field(default_factory=dict)  # our mode name -> custom_mode
    takeoff_altitude_is_amsl: bool = False  # PX4's MAV_CMD_NAV_TAKEOFF param7 is AMSL; ArduPilot's is relative
    offboard_needs_setpoints: bool = False  # PX4 refuses OFFBOARD unless setpoints already stream
    setpoint_timeout_s: float = 3.0  # a velocity setpoint older than this becomes hold (PX4: COM_OF_LOSS_T, any setpoint)
    auto_disarm_after_land: bool = True
    setpoints_lift_off: bool = True  # PX4's offboard setpoints fly from the ground; ArduPilot's GUIDED
    # targets do not (a landed copter stays down, and a target replaces a take-off still on the ground)
    idle_disarm_s: float | None = 10.0  # armed on the ground this long without taking off: disarmed
    # (PX4's COM_DISARM_PRFLT, ArduCopter's DISARM_DELAY; a rover stays armed)
    vehicle: str = "copter"  # the kind of body it flies or drives: copter or rover
    home_is_item_0: bool = False  # ArduPilot keeps home as mission item 0 and flies from item 1
    streams_unasked: bool = True  # PX4 streams telemetry to a ground station; ArduPilot waits to be asked
    data_stream_requests: bool = False  # ArduPilot honours REQUEST_DATA_STREAM; PX4 dropped it
    timesync_every_s: float | None = None  # ArduPilot sends a TIMESYNC request every 10 s
    dialect_streams: tuple[int, ...] = ()  # messages of its own dialect it can stream (ArduPilot: EKF_STATUS_REPORT)
    armable_in_mission: bool = True  # ArduPilot refuses to arm in AUTO (its AUTO_OPTIONS default)
    parameters: tuple[ParamSpec, ...] = ()  # the settable ones that shape a copter's flight
    rules: Callable[[Mapping[str, float]], Rules] | None = None  # what they mean (None: a rover's, unshaped)
    action_refused: int = mav.MAV_RESULT_FAILED  # the COMMAND_ACK of an arm, mode change, take-off or mission start it
    # refuses (ArduPilot: FAILED, GCS_Common.cpp and GCS_MAVLink_Copter.cpp; PX4: TEMPORARILY_REJECTED, Commander.cpp)

    def mode_name(self, custom_mode: int) -> str | None:
        for name, value in self.modes.items():
            if value == custom_mode:
                return name
        return None


ARDUPILOT_DIALECT = (193, 152, 163, 178, 168)
"""EKF_STATUS_REPORT, MEMINFO, AHRS, AHRS2 and WIND: ArduPilot's own messages it streams."""

PX4 = Personality(
    "px4", mav.MAV_AUTOPILOT_PX4,
    {"manual": _px4(1), "altctl": _px4(2), "posctl": _px4(3), "hold": _px4(4, 3), "takeoff": _px4(4, 2),
     "land": _px4(4, 6), "rtl": _px4(4, 5), "mission": _px4(4, 4), "offboard": _px4(6)},
    takeoff_altitude_is_amsl=True, offboard_needs_setpoints=True, setpoint_timeout_s=1.0,
    parameters=PX4_PARAMS, rules=px4_rules, action_refused=mav.MAV_RESULT_TEMPORARILY_REJECTED,
)

ARDUPILOT = Personality(
    "ardupilot", mav.MAV_AUTOPILOT_ARDUPILOTMEGA,
    {"stabilize": 0, "althold": 2, "auto": 3, "guided": 4, "hold": 5, "rtl": 6, "land": 9, "brake": 17},
    setpoint_timeout_s=3.0, home_is_item_0=True, armable_in_mission=False, streams_unasked=False,
    data_stream_requests=True, timesync_every_s=10.0, dialect_streams=ARDUPILOT_DIALECT, setpoints_lift_off=False,
    parameters=ARDUPILOT_PARAMS, rules=ardupilot_rules,
)

ARDUPILOT_ROVER = Personality(
    "ardupilot_rover", mav.MAV_AUTOPILOT_ARDUPILOTMEGA,
    {"manual": 0, "acro": 1, "steering": 3, "hold": 4, "loiter": 5, "auto": 10, "rtl": 11, "smart_rtl": 12, "guided": 15},
    setpoint_timeout_s=3.0, auto_disarm_after_land=False, idle_disarm_s=None, vehicle="rover", home_is_item_0=True,
    armable_in_mission=False, streams_unasked=False, data_stream_requests=True, timesync_every_s=10.0,
    dialect_streams=ARDUPILOT_DIALECT,
)

PERSONALITIES = {"px4": PX4, "ardupilot": ARDUPILOT, "ardupilot_rover": ARDUPILOT_ROVER}
GUIDED_MODES = {"offboard", "guided"}
"""Modes in which the vehicle follows SET_POSITION_TARGET_LOCAL_NED setpoints."""
HOLDING_MODES = {"hold", "guided", "offboard", "posctl", "altctl", "althold", "brake", "loiter"}
"""Modes entered by holding where the vehicle is: guided ones until a setpoint comes, the pilot's
position and altitude modes with the sticks centred (no RC is simulated)."""
RETURN_MODES = {"rtl", "smart_rtl"}
"""Modes that fly (or drive) home: SmartRTL returns along a straight path, as RTL does."""
REFUSED_MODES = {
    "manual": "needs RC sticks (not simulated)", "stabilize": "needs RC sticks (not simulated)",
    "acro": "needs RC sticks (not simulated)", "steering": "needs RC sticks (not simulated)",
}
"""Modes a served vehicle cannot fly, refused with the reason rather than acknowledged and ignored."""
MISSION_MODES = {"auto", "mission"}
"""Modes that fly the uploaded mission (ArduPilot's AUTO, PX4's MISSION)."""
