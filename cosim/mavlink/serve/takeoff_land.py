"""A served copter's take-off and landing as the firmware times them: it leaves the ground only after
its motors have spooled up and its throttle has ramped (ArduCopter's MOT_SPOOL_TIME and
TKOFF_SLEW_TIME, PX4's MPC_TKO_RAMP_T), and it disarms only once its land detector has seen it
down and the motors have spooled down (`Rules.touchdown_disarm_s`)."""

from __future__ import annotations

from cosim.mavlink.flight_params import Rules
from cosim.mavlink.serve.bodies import Descent, QuadBody, RoverBody
from cosim.mavlink.serve.shaping import Limits


class TakeoffLand:
    """The take-off waiting to lift and the landing waiting to disarm, of one vehicle; times are simulated s."""

    def __init__(self, body: QuadBody | RoverBody) -> None:
        self.body = body
        self.climb_to: tuple[float, float, float] | None = None  # where a take-off climbs once it lifts
        self.climb: Limits | None = None
        self.lift_at = 0.0
        self.armed_at = 0.0
        self.down_since: float | None = None  # when the landing copter was first seen on the ground

    def arm(self, now: float) -> None:
        self.armed_at = now

    def take_off(self, x: float, y: float, z: float, now: float, rules: Rules) -> None:
        """Climb to (x, y, z) once the motors are up to speed: `rules.takeoff_delay_s` from now,
        and `rules.spoolup_s` from arming."""
        self.climb_to = (x, y, z)
        self.climb = rules.takeoff
        self.lift_at = max(now + rules.takeoff_delay_s, self.armed_at + rules.spoolup_s)
        self.down_since = None
        self.step(now)

    def cancel(self) -> None:
        self.climb_to = None
        self.down_since = None

    def land(self, rules: Rules, ground_z: float, at: tuple[float, float] | None) -> None:
        """Sink at the land speeds down to the ground at `ground_z` (over `at`, or where it stops)."""
        self.climb_to = None
        self.down_since = None
        r = rules
        self.body.descend(Descent(r.land_speed_high, r.land_speed, r.land_alt_low, r.land_ramp_alt, ground_z, r.landing), at)

    def step(self, now: float) -> None:
        if self.climb_to is not None and now >= self.lift_at:
            self.body.goto(*self.climb_to, None, self.climb)
            self.climb_to = None

    def landed(self, now: float, rules: Rules) -> bool:
        """A landing is over: on the ground, and seen there for `rules.touchdown_disarm_s`."""
        if not (self.body.on_ground and self.body.velocity()[2] >= -1e-6):
            self.down_since = None
            return False
        if self.down_since is None:
            self.down_since = now
        return now - self.down_since >= rules.touchdown_disarm_s
