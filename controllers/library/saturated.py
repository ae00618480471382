"""`SaturatedSource`: a station that always has a frame for one sink (Bianchi's saturated station,
benchmarks/bianchi.py)."""

from __future__ import annotations

from dataclasses import dataclass

from controllers import Controller


class SaturatedSource(Controller):
    """Every step, `burst` unicasts of `size` bytes to node `sink`: more than its share of the medium,
    so its queue stays full (the radio's `queue.frames` drops the rest as they arrive). The sink
    itself sends nothing."""

    @dataclass(frozen=True)
    class Params:
        sink: int = 0
        size: int = 1500
        burst: int = 3

        def __post_init__(self) -> None:
            if self.sink < 0 or not 1 <= self.size <= 65535 or not 1 <= self.burst <= 10_000:
                raise ValueError(f"sink must be >= 0, size within 1..65535 bytes and burst within 1..10000, got "
                                 f"sink {self.sink}, size {self.size}, burst {self.burst}")

    period = 0.01

    def setup(self) -> None:
        self._frame = bytes(self.params.size)
        self.robot.hover()

    def step(self) -> None:
        if self.id == self.params.sink:
            return
        for _ in range(self.params.burst):
            self.net.send(self.params.sink, self._frame)
