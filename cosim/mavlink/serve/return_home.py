"""Return to launch for a served vehicle (RTL and SmartRTL modes, and the failsafe's `return`): a
copter climbs to its return altitude if lower, flies home at that altitude at the return speed,
waits over home for the loiter time, then lands; a rover drives home and holds there."""

from __future__ import annotations

import math
from dataclasses import dataclass

from cosim.mavlink.serve.bodies import QuadBody, RoverBody
from cosim.mavlink.serve.shaping import Limits

ARRIVE_M = 0.5
"""Within this horizontal distance of home (m), and slower than SETTLED_M_S, the return is over."""
SETTLED_M_S = 0.3


@dataclass(frozen=True)
class ReturnLeg:
    """How a return flies: `alt` m above home at least, home within `limits` (None: the vehicle's
    own), then `loiter_s` over home before the landing."""

    alt: float
    limits: Limits | None
    loiter_s: float = 0.0


class ReturnHome:
    """One return in progress. `step(now)` once per poll moves it on; it says "land" when a copter
    has waited over home, "arrived" when a rover is home, None while under way."""

    def __init__(self, body: QuadBody | RoverBody, home: tuple[float, float, float], leg: ReturnLeg, now: float) -> None:
        self.body = body
        self.home = home
        self.leg = leg
        x, y, z = body.position()
        self.cruise_z = max(z, home[2] + leg.alt) if body.vehicle == "copter" else z
        self.phase = "climb" if body.vehicle == "copter" and z < self.cruise_z - 0.3 else "fly"
        self.over_home_at = math.inf
        if self.phase == "climb":
            body.goto(x, y, self.cruise_z, None, leg.limits)
        else:
            self._fly_home()

    def _fly_home(self) -> None:
        self.body.goto(self.home[0], self.home[1], self.cruise_z, None, self.leg.limits)

    def step(self, now: float) -> str | None:
        x, y, z = self.body.position()
        if self.phase == "climb":
            if z >= self.cruise_z - 0.3:
                self.phase = "fly"
                self._fly_home()
            return None
        if self.phase == "fly":
            vx, vy, _ = self.body.velocity()
            if math.hypot(x - self.home[0], y - self.home[1]) > ARRIVE_M or math.hypot(vx, vy) > SETTLED_M_S:
                return None
            if self.body.vehicle != "copter":
                return "arrived"
            self.phase = "loiter"
            self.over_home_at = now
        return "land" if now - self.over_home_at >= self.leg.loiter_s else None
