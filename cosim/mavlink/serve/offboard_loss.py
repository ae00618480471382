"""PX4's offboard signal loss, as its commander has it (COM_OF_LOSS_T = 1 s, COM_OBL_RC_ACT at its
default, position mode): an armed vehicle in OFFBOARD that has heard no setpoint for COM_OF_LOSS_T
falls back to POSCTL, which holds where it is (the sticks are centred: no RC is simulated). PX4's
mode fallback lasts only while its condition does: setpoints streaming again put the vehicle back
in OFFBOARD, unless the user chose another mode meanwhile."""

from __future__ import annotations

from dataclasses import dataclass

FALLBACK_MODE = "posctl"


@dataclass
class OffboardLoss:
    """Whether the vehicle is in PX4's offboard-loss fallback; `timeout_s` is COM_OF_LOSS_T."""

    timeout_s: float
    fallen_back: bool = False

    def lost(self, mode: str, armed: bool, silent_s: float) -> bool:
        """True once when an armed OFFBOARD vehicle's setpoints have been silent for over timeout_s."""
        if mode == "offboard" and armed and silent_s > self.timeout_s:
            self.fallen_back = True
            return True
        return False

    def regained(self, mode: str, armed: bool) -> bool:
        """A setpoint arrived: True if it ends a fallback still in force (the vehicle flies OFFBOARD again)."""
        back = self.fallen_back and armed and mode == FALLBACK_MODE
        self.fallen_back = False
        return back

    def mode_chosen(self) -> None:
        """The user picked a mode: that is the mode intended now, and a fallback no longer returns."""
        self.fallen_back = False
