"""Small kilolib programs for the tests."""

from __future__ import annotations

from dataclasses import dataclass

from controllers.kilolib import RGB, KiloParams, KiloProgram, distance_measurement_t, message_crc, message_t


@dataclass(frozen=True)
class MotorParams(KiloParams):
    left: int = 0
    right: int = 0


class Motors(KiloProgram):
    """Runs its motors as the parameters say from the start; records kilo_ticks at every loop and
    changes colour at tick 10."""

    Params = MotorParams

    def setup(self) -> None:
        self.spinup_motors()
        self.set_motors(self.params.left, self.params.right)
        self.set_color(RGB(0, 0, 0))

    def loop(self) -> None:
        self.record("ticks", self.kilo_ticks)
        if self.kilo_ticks == 10:
            self.set_color(RGB(3, 1, 2))


class Sender(KiloProgram):
    """Sends a message, and counts what went."""

    def setup(self) -> None:
        self.message = message_t()
        self.message.data[0] = 42
        self.message.crc = message_crc(self.message)

    def message_tx(self) -> message_t:
        return self.message

    def message_tx_success(self) -> None:
        self.record("sent", 1.0)


class Ranger(KiloProgram):
    """Records each message's estimated distance (mm) and its first data byte."""

    def message_rx(self, m: message_t, d: distance_measurement_t) -> None:
        self.record("estimate", self.estimate_distance(d))
        self.record("data0", m.data[0])
