"""The fast radio's parameters (`network.radio` with `network.backend: fast`)."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from netstack.backend import BROADCAST, NS_PER_S
from netstack.fast.medium import MEDIUM_MODELS
from netstack.fast.pathloss import PATHLOSS_MODELS, LogDistance, check_power
from netstack.fast.shadowing import check_shadowing


@dataclass(frozen=True)
class BroadcastPhy:
    """How broadcasts go when not at the data frames' rate (802.11 sends them at a basic rate: ns-3
    at its first mode, 1 Mbit/s DSSS on 2.4 GHz, 6 Mbit/s OFDM on 5 GHz)."""

    bit_rate_bps: float
    extra_preamble_ns: int = 0
    """Its preamble less the data frames' (DSSS's 192 us against OFDM's 20 us)."""
    symbol_ns: int = 0
    extra_bits: int = 0
    signal_extension_ns: int = 0


@dataclass(frozen=True)
class FastRadioConfig:
    """Parameters of the fast radio model (times in ns, powers in dBm, rates in bit/s)."""

    tx_power_dbm: float = 0.0
    rx_threshold_dbm: float = -85.0
    noise_floor_dbm: float = -100.0
    bit_rate_bps: float = 250_000.0
    latency_ns: int = 100_000
    overhead_bytes: int = 0
    max_payload_bytes: int = 1500
    loss_probability: float = 0.0
    pathloss: Any = field(default_factory=LogDistance, metadata={"registry": PATHLOSS_MODELS, "tag": "model"})
    obstacle_loss_db: float = 0.0
    """Loss for each of the world's obstacles the line of sight crosses (0: obstacles are transparent)."""
    obstacles_block: bool = False
    """True: a line of sight through any obstacle carries nothing."""
    contention: Any = field(default=None, metadata={"registry": MEDIUM_MODELS, "tag": "model"})
    """None: a per-link model, frames never collide. `csma`: a shared medium (netstack.fast.medium)."""
    preamble_ns: int = 0
    """PHY preamble and header before every frame (the contention model adds its own `preamble`)."""
    symbol_ns: int = 0
    """OFDM: frames last whole symbols of this length (0: the bits at the bit rate)."""
    extra_bits: int = 0
    """OFDM: service and tail bits added to every frame."""
    signal_extension_ns: int = 0
    """Idle time after every frame (802.11g and n at 2.4 GHz: 6 us)."""
    broadcast: BroadcastPhy | None = None
    """None: broadcasts go like every other frame."""
    retry_limit: int = 7
    """With contention: retransmissions of an unacknowledged unicast after its first try."""
    queue_frames: int = 500
    queue_lifetime_ns: int = 500_000_000
    preamble_detection: bool = True
    """With contention: a receiver locks onto a frame only with `preamble_threshold_db` of SINR at its start."""
    preamble_threshold_db: float = 4.0
    ack_ns: int | None = None
    """With contention: an acknowledgement's airtime (None: the preamble and ack_bytes at the bit rate)."""
    eifs_ack_ns: int | None = None
    """With contention: the acknowledgement time EIFS counts (None: `ack_ns`'s)."""

    def __post_init__(self) -> None:
        check_power("tx_power_dbm", self.tx_power_dbm, -50.0, 60.0)
        check_power("rx_threshold_dbm", self.rx_threshold_dbm, -200.0, 30.0)
        check_power("noise_floor_dbm", self.noise_floor_dbm, -200.0, 30.0)
        if not 0.0 <= self.loss_probability <= 1.0:
            raise ValueError(f"loss_probability must be within [0, 1], got {self.loss_probability}")
        if self.bit_rate_bps <= 0:
            raise ValueError(f"bit_rate_bps must be > 0, got {self.bit_rate_bps}")
        if self.latency_ns < 0:
            raise ValueError("latency must be >= 0")
        if self.overhead_bytes < 0 or self.max_payload_bytes <= 0:
            raise ValueError("overhead_bytes must be >= 0 and max_payload_bytes > 0")
        check_shadowing(self.obstacle_loss_db, self.obstacles_block, self.pathloss.ignores_threshold())
        if min(self.preamble_ns, self.symbol_ns, self.extra_bits, self.signal_extension_ns) < 0:
            raise ValueError("preamble, symbol, extra_bits and signal_extension must be >= 0")
        if self.preamble_ns and self.contention is not None:
            raise ValueError("the contention model adds its own preamble: give it as contention.preamble")
        if not 0 <= self.retry_limit <= 255 or self.queue_frames <= 0 or self.queue_lifetime_ns <= 0:
            raise ValueError("retry_limit must be within 0..255, queue_frames and queue_lifetime > 0")

    def ack_airtime_ns(self) -> int:
        """With contention: how long an acknowledgement occupies the medium."""
        return self.ack_ns if self.ack_ns is not None else self.contention.ack_airtime_ns(self.frame_airtime_ns)

    def eifs_extra_ns(self) -> int:
        """With contention: what EIFS adds to DIFS, SIFS and an acknowledgement (0 without EIFS)."""
        mac = self.contention
        if not mac.eifs:
            return 0
        return mac.sifs_ns + (self.eifs_ack_ns if self.eifs_ack_ns is not None else self.ack_airtime_ns())

    @property
    def shadowed(self) -> bool:
        """Whether obstacles affect links."""
        return self.obstacles_block or self.obstacle_loss_db > 0

    def check_frame(self, src: int, dst: int, size: int, n_nodes: int) -> None:
        """A frame this radio can send: known nodes, payload within the limit."""
        if size > self.max_payload_bytes:
            raise ValueError(f"payload of {size} bytes exceeds the radio's limit of {self.max_payload_bytes} bytes")
        if not 0 <= src < n_nodes:
            raise ValueError(f"unknown source node {src}")
        if dst != BROADCAST and not 0 <= dst < n_nodes:
            raise ValueError(f"unknown destination node {dst}")

    def max_range_m(self) -> float:
        return float(self.pathloss.max_range_m(self.tx_power_dbm, self.rx_threshold_dbm))

    def airtime_ns(self, payload_len: int) -> int:
        """How long a frame with this payload occupies the medium: preamble, header bytes and payload."""
        return self.preamble_ns + self.frame_airtime_ns(payload_len + self.overhead_bytes)

    def airtime_to_ns(self, dst: int, payload_len: int) -> int:
        """`airtime_ns` for a frame to `dst`: broadcasts at the broadcast rate, if the radio has one."""
        b = self.broadcast
        if b is None or dst != BROADCAST:
            return self.airtime_ns(payload_len)
        bits = (payload_len + self.overhead_bytes) * 8 + b.extra_bits
        if b.symbol_ns:
            body = math.ceil(bits / (b.bit_rate_bps * b.symbol_ns / NS_PER_S) - 1e-9) * b.symbol_ns
        else:
            body = math.ceil(bits * NS_PER_S / b.bit_rate_bps)
        return self.preamble_ns + b.extra_preamble_ns + body + b.signal_extension_ns

    def frame_airtime_ns(self, frame_bytes: int) -> int:
        """`frame_bytes` at the bit rate, in whole OFDM symbols if the radio has them, without preamble."""
        bits = frame_bytes * 8 + self.extra_bits
        if self.symbol_ns:
            per_symbol = self.bit_rate_bps * self.symbol_ns / NS_PER_S
            return math.ceil(bits / per_symbol - 1e-9) * self.symbol_ns + self.signal_extension_ns
        return math.ceil(bits * NS_PER_S / self.bit_rate_bps) + self.signal_extension_ns
