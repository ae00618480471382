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

from typing import TYPE_CHECKING

from cosim.mavlink.personality import MISSION_MODES

if TYPE_CHECKING:
    from cosim.mavlink.vehicle_endpoint import SimVehicleEndpoint

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


def _ardupilot(v: SimVehicleEndpoint) -> bool:
    return v.p.name.startswith("ardupilot")


def refusal(v: SimVehicleEndpoint) -> str | None:
    """Why the vehicle will not arm now, in its autopilot's words; None if it will."""
    if not v.body.healthy():
        return "PreArm: vehicle not healthy (motors or sensors failed)"
    if not v.position_ready and v.mode in NEEDS_POSITION:
        return "Arm: Need Position Estimate" if _ardupilot(v) else "Preflight Fail: no valid global position"
    if (v.mode in MISSION_MODES and not v.p.armable_in_mission) or (_ardupilot(v) and v.mode in NOT_ARMABLE):
        return f"Arm: {ARDUCOPTER_NAMES.get(v.mode, v.mode.upper())} mode not armable"
    if not _ardupilot(v) and v.mode in PX4_NOT_ARMABLE:
        return f"Arming denied: {v.mode.upper()} mode prevents arming"
    return None


def say_armed(v: SimVehicleEndpoint, armed: bool) -> None:
    """ArduPilot announces every arm and disarm."""
    if _ardupilot(v):
        v.say("Arming motors" if armed else "Disarming motors")


class IdleDisarm:
    """As the firmware does: a copter armed on the ground that does not take off is disarmed, and a
    failed one (a crash, motors out) at once, so that it never acknowledges what it cannot fly."""

    def __init__(self) -> None:
        self.since: float | None = None  # armed on the ground since (simulated s)

    def step(self, v: SimVehicleEndpoint) -> None:
        if v.armed and not v.body.healthy():
            v.say("Crash: Disarming")
            v.force_disarm()
            return
        if not (v.armed and v.body.on_ground and v.p.idle_disarm_s is not None):
            self.since = None
            return
        if self.since is None:
            self.since = v.now
        elif v.now - self.since >= v.p.idle_disarm_s:
            self.since = None
            v.say("Disarming motors" if _ardupilot(v) else "Disarmed by auto preflight disarming")
            v.force_disarm()
