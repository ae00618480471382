"""What a served vehicle is at this instant, as its autopilot keeps it and its telemetry reports it:
the body it flies, which autopilot it behaves as, its ids and frames, armed or not, its mode, home,
whether it is landing, the simulated time, and the failsafes it has taken."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from cosim.mavlink.frames import GeoOrigin
from cosim.mavlink.personality import GUIDED_MODES, Personality
from cosim.mavlink.serve.bodies import QuadBody, RoverBody

Target = tuple[float, float, float, float | None]
"""x, y, z (ENU, m) and the yaw (NED, rad; None keeps the heading)."""


@dataclass
class VehicleState:
    """One served vehicle's state. `position_after_s`: a cold start, without a position estimate (no
    GPS fix, EKF not using it) for that long; `kept`: PX4's stored reposition, flown when Hold next
    starts; `failsafes`: those it took by itself, in order (the bridge traces them)."""

    body: QuadBody | RoverBody
    personality: Personality
    sysid: int
    origin: GeoOrigin
    home: np.ndarray
    mode: str
    position_after_s: float = 0.0
    armed: bool = False
    landing: bool = False
    now: float = 0.0
    """Simulated seconds, set by the port before each poll."""
    failsafes: list[str] = field(default_factory=list)
    kept: Target | None = None

    @property
    def position_ready(self) -> bool:
        """The vehicle has a position estimate (its EKF and GPS are ready: `position_after_s` after start)."""
        return self.now >= self.position_after_s

    @property
    def following(self) -> bool:
        """Setpoints act: armed, in GUIDED or OFFBOARD."""
        return self.mode in GUIDED_MODES and self.armed

    @property
    def ardupilot(self) -> bool:
        """An ArduPilot personality (copter or rover), whose words and rules differ from PX4's."""
        return self.personality.name.startswith("ardupilot")
