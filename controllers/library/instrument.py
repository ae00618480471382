"""Simbeeotic's InstrumentBee: a random walk that reads a compass and broadcasts a small message."""

from __future__ import annotations

from dataclasses import dataclass

from controllers.library.random_walk import RandomWalk


class InstrumentBee(RandomWalk):
    """Random walk at `period`, a compass reading every `sensor_period` s, and (when
    `radio_period` > 0) a broadcast of `message_bytes` bytes every `radio_period` s."""

    @dataclass(frozen=True)
    class Params(RandomWalk.Params):
        sensor_period: float = 1.0
        radio_period: float = 1.0
        message_bytes: int = 4

        def __post_init__(self) -> None:
            super().__post_init__()
            if not 1e-6 <= self.sensor_period <= 1e6:
                raise ValueError(f"sensor_period must be within 1e-6..1e6 seconds, got {self.sensor_period:g}")
            if not (self.radio_period == 0 or 1e-6 <= self.radio_period <= 1e6):
                raise ValueError(f"radio_period must be within 1e-6..1e6 seconds, or 0 (no broadcast), got "
                                 f"{self.radio_period:g}")
            if not 0 < self.message_bytes <= 1500:
                raise ValueError("message_bytes must be in 1..1500")

    def setup(self) -> None:
        super().setup()
        self.heading_reading = 0.0
        self._payload = bytes(i % 255 + 1 for i in range(self.params.message_bytes))
        self.every(self.params.sensor_period, self._read_compass)
        if self.params.radio_period > 0:
            self.every(self.params.radio_period, self._broadcast)

    def _read_compass(self) -> None:
        self.heading_reading = self.robot.compass()

    def _broadcast(self) -> None:
        self.net.broadcast(self._payload)
