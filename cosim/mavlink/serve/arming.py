"""Arming and disarming a served vehicle as its autopilot does: the checks it runs before it arms,
refused in its words (STATUSTEXT), and the disarm of a copter left armed on the ground.

ArduCopter's words are from its source (ArduCopter/AP_Arming_Copter.cpp, libraries/AP_Arming):
a refused arm command is "Arm: <reason>"; a mode that does not allow arming is "Arm: <Mode> mode
not armable" (AUTO with the default AUTO_OPTIONS, RTL, Land, Brake); without a position estimate a
mode that needs one is "Arm: Need Position Estimate"; arming and disarming say "Arming motors" and
"Disarming motors" (the disarm after DISARM_DELAY on the ground included). PX4's: "Disarmed by auto
preflight disarming" after COM_DISARM_PRFLT; Land and Return prevent arming, as its mode
documentation says. The words of its position and mode refusals are ours, not yet checked against
its source (docs/mavlink.md lists them).
"""

from __future__ import annotations

from collections.abc import Callable

from cosim.mavlink.personality import MISSION_MODES
from cosim.mavlink.serve.vehicle_state import VehicleState

ARDUCOPTER_NAMES = {"auto": "Auto", "rtl": "RTL", "land": "Land", "brake": "Brake", "guided": "Guided",
                    "hold": "Loiter", "althold": "Altitude Hold", "stabilize": "Stabilize", "smart_rtl": "Smart RTL"}
"""ArduCopter's Mode::name() for our mode names (Rover's AUTO, RTL... are spelt the same way)."""
NOT_ARMABLE = {"rtl", "land", "brake", "smart_rtl"}
"""ArduPilot modes whose allows_arming() is false (AUTO too, unless AUTO_OPTIONS allows it)."""
PX4_NOT_ARMABLE = {"land", "rtl"}
"""PX4's Land and Return modes prevent arming (its flight-mode documentation, v1.15)."""
NEEDS_POSITION = {"auto", "mission", "guided", "offboard", "hold", "loiter", "posctl", "rtl", "smart_rtl", "brake",
                  "takeoff"}
"""Modes that fly to or hold a position, and so need a position estimate to arm in."""


def refusal(v: VehicleState) -> str | None:
    """Why the vehicle will not arm now, in its autopilot's words; None if it will."""
    if not v.body.healthy():
        return "PreArm: vehicle not healthy (motors or sensors failed)"
    sensors = v.body.prearm()
    if sensors is not None:
        return sensors
    if not v.position_ready and v.mode in NEEDS_POSITION:
        return "Arm: Need Position Estimate" if v.ardupilot else "Preflight Fail: no valid global position"
    if (v.mode in MISSION_MODES and not v.personality.armable_in_mission) or (v.ardupilot and v.mode in NOT_ARMABLE):
        return f"Arm: {ARDUCOPTER_NAMES.get(v.mode, v.mode.upper())} mode not armable"
    if not v.ardupilot and v.mode in PX4_NOT_ARMABLE:
        return f"Arming denied: {v.mode.upper()} mode prevents arming"
    return None


def armed_words(v: VehicleState, armed: bool) -> str | None:
    """What the autopilot announces on arming or disarming (ArduPilot: every time; PX4: nothing)."""
    if not v.ardupilot:
        return None
    return "Arming motors" if armed else "Disarming motors"


class IdleDisarm:
    """As the firmware does: a copter armed on the ground that does not take off is disarmed, and a
    failed one (a crash, motors out) at once, so that it never acknowledges what it cannot fly."""

    def __init__(self) -> None:
        self.since: float | None = None  # armed on the ground since (simulated s)

    def step(self, v: VehicleState, say: Callable[[str], None], disarm: Callable[[], None]) -> None:
        """Disarm (through `disarm`, announced through `say`) when the vehicle must be."""
        if v.armed and not v.body.healthy():
            say("Crash: Disarming")
            disarm()
            return
        if not (v.armed and v.body.on_ground and v.personality.idle_disarm_s is not None):
            self.since = None
            return
        if self.since is None:
            self.since = v.now
        elif v.now - self.since >= v.personality.idle_disarm_s:
            self.since = None
            say("Disarming motors" if v.ardupilot else "Disarmed by auto preflight disarming")
            disarm()
