"""MAV_CMD_DO_REPOSITION and its CHANGE_MODE flag (param2 bit 0), as the autopilots' sources read them:

- ArduPilot (handle_command_int_do_reposition): outside GUIDED it refuses a reposition without the
  flag; with it, it enters GUIDED and flies to the target;
- PX4 (commander, navigator): with the flag it enters Hold (AUTO_LOITER) and flies to the target;
  without it the target is flown in Hold only: in another mode it is kept, and flown when the
  vehicle next enters Hold (Loiter takes the navigator's stored reposition when it starts), be it
  by a mode change or at the end of a take-off.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from cosim.mavlink.vehicle_endpoint import SimVehicleEndpoint

Target = tuple[float, float, float, float | None]
"""x, y, z (ENU, m) and the yaw (NED, rad; None keeps the heading)."""


class KeptReposition:
    """PX4's stored reposition, for the next start of Hold."""

    def __init__(self) -> None:
        self.target: Target | None = None

    def keep(self, target: Target) -> None:
        self.target = target

    def fly(self, v: SimVehicleEndpoint) -> None:
        """Hold starts: fly to the kept target, if any (once)."""
        if self.target is not None:
            v.follow_position(*self.target)
            self.target = None


def reposition(v: SimVehicleEndpoint, target: Target, change_mode: bool) -> bool:
    """Fly to `target`, change mode, or keep it, as the vehicle's autopilot does; False if refused."""
    if "guided" in v.p.modes:  # ArduPilot
        if v.mode != "guided":
            if not change_mode:
                return v.deny("Reposition: not in GUIDED (no change-mode flag)")
            if not v.set_mode(v.p.modes["guided"]):
                return False
        v.follow_position(*target)
        return True
    if change_mode and v.mode != "hold" and not v.set_mode(v.p.modes["hold"]):
        return False
    if v.mode == "hold":
        v.follow_position(*target)
    else:
        v.kept.keep(target)
    return True
