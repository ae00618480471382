"""kilolib for Python: a Kilobot program is a `KiloProgram` with kilolib's shape, `setup()` once,
`loop()` 32 times a second, `message_rx(m, d)` for each message, `message_tx()` for the next
message to send and `message_tx_success()` when it went, calling kilolib's functions as methods
(`set_motors`, `spinup_motors`, `set_color`, `estimate_distance`, `kilo_ticks`, `kilo_uid`, ...).

Motion follows Kilombo (paper 002): both motors on, the robot moves forward at `forward_speed`;
one on, it pivots at `turn_rate` about the rear leg on that side (legs `leg_radius` from the
centre at `leg_angle_deg` from the front leg; `set_motors(kilo_turn_left, 0)` turns left, as in
the kilolib examples). Motors are on or off: the calibration values (`kilo_straight_left`, ...)
are what programs pass, as on the robot. The body moves on the `point` robot model, updated every
`motion_dt` (the chord of each small arc, taken at its middle heading).

Distances come from the infrared signal: each message's measurement holds the two receiver gains a
Kilobot would read at the true distance (1/d^2, 10-bit, the high gain saturating below 33 mm),
after a Gaussian error of `distance_noise_mm` on the distance; `estimate_distance` turns them back
into millimetres as kilolib does. `set_color` records `color` (kilolib's packed RGB) in the trace.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from controllers import Controller, Message
from controllers.kilolib.arithmetic import estimate_distance, gains
from controllers.kilolib.messages import distance_measurement_t, message_t

TICKS_PER_S = 32


@dataclass(frozen=True)
class KiloParams:
    """A Kilobot's motion, calibration, messaging and sensing (SI units unless named)."""

    forward_speed: float = 0.01
    turn_rate: float = 0.5
    leg_radius: float = 0.015
    leg_angle_deg: float = 125.0
    tx_period: float = 0.5
    distance_noise_mm: float = 0.0
    motion_dt: float = 0.01
    straight_left: int = 70
    straight_right: int = 70
    turn_left: int = 70
    turn_right: int = 70

    def __post_init__(self) -> None:
        if min(self.forward_speed, self.turn_rate, self.leg_radius, self.tx_period, self.motion_dt) <= 0:
            raise ValueError("forward_speed, turn_rate, leg_radius, tx_period and motion_dt must be > 0")
        if not 0.0 < self.leg_angle_deg < 180.0 or self.distance_noise_mm < 0:
            raise ValueError("leg_angle_deg must be within (0, 180), distance_noise_mm >= 0")
        if not all(0 <= v <= 255 for v in (self.straight_left, self.straight_right, self.turn_left, self.turn_right)):
            raise ValueError("motor calibration values are 0..255")


class KiloProgram(Controller):
    """Base class of Kilobot programs (see the module docstring); override kilolib's callbacks."""

    Params = KiloParams
    period = None

    # -- the program's callbacks (kilolib's names) ---------------------------------------------------
    def loop(self) -> None:
        """Called 32 times a second (kilo_ticks advances by one between calls)."""

    def message_rx(self, m: message_t, d: distance_measurement_t) -> None:
        """A message arrived, with its infrared distance measurement."""

    def message_tx(self) -> message_t | None:
        """The message to send now (every `tx_period`), or None."""
        return None

    def message_tx_success(self) -> None:
        """The message from message_tx() went out."""

    # -- kilolib ----------------------------------------------------------------------------------
    @property
    def kilo_uid(self) -> int:
        return self.id

    @property
    def kilo_ticks(self) -> int:
        return int(self.now * TICKS_PER_S + 1e-9)

    @property
    def kilo_straight_left(self) -> int:
        return self.params.straight_left

    @property
    def kilo_straight_right(self) -> int:
        return self.params.straight_right

    @property
    def kilo_turn_left(self) -> int:
        return self.params.turn_left

    @property
    def kilo_turn_right(self) -> int:
        return self.params.turn_right

    def set_motors(self, left: int, right: int) -> None:
        if not (0 <= left <= 255 and 0 <= right <= 255):
            raise ValueError(f"set_motors takes 0..255 per motor, got {left}, {right}")
        self._motors = (left > 0, right > 0)

    def spinup_motors(self) -> None:
        """Full power for 15 ms on the robot; nothing to do here (Kilombo does the same)."""

    def delay(self, ms: int) -> None:
        """Returns at once, as in Kilombo: time with kilo_ticks instead."""

    def set_color(self, rgb: int) -> None:
        if rgb != self._color:
            self._color = rgb
            self.record("color", float(rgb))

    def estimate_distance(self, d: distance_measurement_t) -> int:
        """Millimetres from a measurement (the low gain where the high one saturates)."""
        return estimate_distance(d)

    def rand_soft(self) -> int:
        return int(self.rng.integers(0, 256))

    rand_hard = rand_soft

    # -- the robot underneath ---------------------------------------------------------------------
    def __init__(self, params: KiloParams | None = None) -> None:
        super().__init__(params)
        self._motors = (False, False)
        self._color = -1
        self._moving = True

    def bind(self, node_id, robot, net, rng, services) -> None:  # type: ignore[override]
        """Bound to a robot: its loop, transmissions and motion start on the timeline."""
        super().bind(node_id, robot, net, rng, services)
        self.every(1.0 / TICKS_PER_S, self.loop, float(rng.random()) / TICKS_PER_S)
        self.every(self.params.tx_period, self._transmit, float(rng.random()) * self.params.tx_period)
        self.every(self.params.motion_dt, self._move, 0.0)

    def on_message(self, msg: Message) -> None:
        m = message_t.parse(msg.payload)
        if m is not None:
            self.message_rx(m, self._measure(self.net.range_to(msg.src)))

    def _measure(self, distance_m: float) -> distance_measurement_t:
        mm = distance_m * 1000.0
        if self.params.distance_noise_mm:
            mm += self.params.distance_noise_mm * float(self.rng.standard_normal())
        mm = max(mm, 1.0)
        return distance_measurement_t(*gains(mm))

    def _transmit(self) -> None:
        m = self.message_tx()
        if m is not None:
            self.net.broadcast(m.payload())
            self.message_tx_success()

    def _move(self) -> None:
        p = self.params
        left, right = self._motors
        if left and right:
            self.robot.set_velocity(p.forward_speed, 0.0)
            self._moving = True
            return
        if not (left or right):
            if self._moving:
                self.robot.set_velocity(0.0, 0.0)
                self._moving = False
            return
        w = p.turn_rate if left else -p.turn_rate
        a = math.radians(p.leg_angle_deg)
        px = p.leg_radius * math.cos(a)
        py = p.leg_radius * math.sin(a) * (1.0 if left else -1.0)
        vx = w * py
        vy = -w * px  # the centre's velocity turning about the leg (body frame)
        half = -0.5 * w * p.motion_dt  # the turn applies first: take the chord at the middle heading
        c = math.cos(half)
        s = math.sin(half)
        self.robot.turn(w * p.motion_dt)
        self.robot.set_velocity(c * vx - s * vy, s * vx + c * vy)
        self._moving = True
