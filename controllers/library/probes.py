"""Small controllers that exercise the network: a periodic sender and a listener that records what it hears."""

from __future__ import annotations

from dataclasses import dataclass

from controllers import Controller, Message


class Beacon(Controller):
    """Node `sender` (-1: every node, all at the same instants) sends `payload` to `to` (-1: broadcast)
    every `interval` s from `start`; every node records `rx_from_<src>` (RSSI) and `snr_from_<src>`
    for what it receives."""

    @dataclass(frozen=True)
    class Params:
        sender: int = 0
        to: int = -1
        start: float = 0.1
        interval: float = 0.5
        count: int = 1
        payload: str = "beacon"

    period = None

    def setup(self) -> None:
        if self.params.sender in (-1, self.id) and self.params.to != self.id:
            for k in range(self.params.count):
                self.after(self.params.start + k * self.params.interval, self._send)

    def _send(self) -> None:
        data = self.params.payload.encode()
        if self.params.to < 0:
            self.net.broadcast(data)
        else:
            self.net.send(self.params.to, data)

    def on_message(self, msg: Message) -> None:
        self.record(f"rx_from_{msg.src}", msg.rssi_dbm)
        self.record(f"snr_from_{msg.src}", msg.snr_db)


class PeriodicBroadcast(Controller):
    """Broadcast `size` bytes every `interval` seconds (seeded random phase); nothing else."""

    @dataclass(frozen=True)
    class Params:
        interval: float = 1.0
        size: int = 100

        def __post_init__(self) -> None:
            if self.interval <= 0 or self.size <= 0:
                raise ValueError("interval and size must be positive")

    period = None

    def setup(self) -> None:
        payload = bytes(i % 251 for i in range(self.params.size))
        self.every(self.params.interval, lambda: self.net.broadcast(payload))


class Cruise(Controller):
    """Fly at a constant body-frame velocity (m/s) from time 0; nothing else."""

    @dataclass(frozen=True)
    class Params:
        vx: float = 1.0
        vy: float = 0.0
        vz: float = 0.0

    period = None

    def setup(self) -> None:
        self.robot.set_velocity(self.params.vx, self.params.vy, self.params.vz)


class RadioBeacon(Controller):
    """Several radios: broadcast `size` bytes on each of `interfaces` every `interval` s (first at
    `start`, all robots at once; null: each at its own seeded random phase); with `relay_from`, re-broadcast
    what arrives on that radio on `relay_to` at once. Records `rx_<interface>_from_<src>` (RSSI)
    for every message received."""

    @dataclass(frozen=True)
    class Params:
        interfaces: tuple[str, ...] = ("radio",)
        interval: float = 1.0
        start: float | None = None
        size: int = 20
        relay_from: str | None = None
        relay_to: str = "radio"

        def __post_init__(self) -> None:
            if self.interval <= 0 or self.size <= 0 or not (self.start is None or 0 <= self.start < self.interval):
                raise ValueError("interval and size must be positive, start within [0, interval) or null")

    period = None

    def setup(self) -> None:
        if self.params.interfaces:
            self.every(self.params.interval, self._beacon, self.params.start)

    def _beacon(self) -> None:
        payload = bytes([self.id % 256]) * self.params.size
        for name in self.params.interfaces:
            self.net.broadcast(payload, interface=name)

    def on_message(self, msg: Message) -> None:
        self.record(f"rx_{msg.interface}_from_{msg.src}", msg.rssi_dbm)
        if msg.interface == self.params.relay_from:
            self.net.broadcast(msg.payload, interface=self.params.relay_to)
