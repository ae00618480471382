"""Return to launch for a served vehicle (RTL and SmartRTL modes, and the failsafe's `return`): a
copter climbs to its return altitude if lower, flies home at that altitude, then lands; a rover
drives home and holds there."""

from __future__ import annotations

import math

from cosim.mavlink.bodies import QuadBody, RoverBody

ARRIVE_M = 0.5
"""Within this horizontal distance of home (m), and slower than SETTLED_M_S, the return is over."""
SETTLED_M_S = 0.3


class ReturnHome:
    """One return in progress. `step()` once per poll moves it on; it says "land" when a copter is
    above home, "arrived" when a rover is home, None while under way."""

    def __init__(self, body: QuadBody | RoverBody, home: tuple[float, float, float], return_alt_m: float) -> None:
        self.body = body
        self.home = home
        x, y, z = body.position()
        self.cruise_z = max(z, home[2] + return_alt_m) if body.vehicle == "copter" else z
        self.phase = "climb" if body.vehicle == "copter" and z < self.cruise_z - 0.3 else "fly"
        if self.phase == "climb":
            body.goto(x, y, self.cruise_z, None)
        else:
            body.goto(home[0], home[1], self.cruise_z, None)

    def step(self) -> str | None:
        x, y, z = self.body.position()
        if self.phase == "climb":
            if z >= self.cruise_z - 0.3:
                self.phase = "fly"
                self.body.goto(self.home[0], self.home[1], self.cruise_z, None)
            return None
        vx, vy, _ = self.body.velocity()
        if math.hypot(x - self.home[0], y - self.home[1]) > ARRIVE_M or math.hypot(vx, vy) > SETTLED_M_S:
            return None
        return "land" if self.body.vehicle == "copter" else "arrived"
