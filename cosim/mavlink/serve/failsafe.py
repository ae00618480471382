"""The ground-station-loss failsafe of a served vehicle, as ArduPilot (FS_GCS_ENABLE, FS_GCS_TIMEOUT)
and PX4 (NAV_DLL_ACT, COM_DL_LOSS_T) have it: armed, and no ground-station heartbeat for a while,
the vehicle holds, lands or returns home by itself. It watches only once a ground station has
been heard, as both autopilots do, so a script that never sends heartbeats is not cut off."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal

FailsafeAction = Literal["off", "hold", "land", "return"]
ACTIONS = ("off", "hold", "land", "return")


@dataclass(frozen=True)
class GcsFailsafe:
    """`action` when no ground-station HEARTBEAT (type GCS) has arrived for `timeout_s` seconds while
    armed: hold position, land, or return home and land (rovers: drive home and hold); off: keep going."""

    timeout_s: float = 5.0
    action: FailsafeAction = "return"

    def __post_init__(self) -> None:
        if not (math.isfinite(self.timeout_s) and self.timeout_s > 0):
            raise ValueError(f"gcs_failsafe.timeout must be a positive duration, got {self.timeout_s} s")
        if self.action not in ACTIONS:
            raise ValueError(f"gcs_failsafe.action must be one of {', '.join(ACTIONS)}, got {self.action!r}")


class GcsWatch:
    """When the ground station was last heard, and whether its loss has already been acted on."""

    def __init__(self, spec: GcsFailsafe) -> None:
        self.spec = spec
        self.last: float | None = None
        self.tripped = False

    def heard(self, now: float) -> None:
        self.last = now
        self.tripped = False

    def lost(self, now: float, armed: bool) -> bool:
        """True once per loss: armed, a ground station heard before, and silent for timeout_s."""
        if self.spec.action == "off" or self.last is None or not armed or self.tripped:
            return False
        if now - self.last > self.spec.timeout_s:
            self.tripped = True
            return True
        return False
