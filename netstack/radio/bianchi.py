"""Bianchi's model of 802.11 DCF saturation throughput (G. Bianchi, "Performance analysis of the IEEE
802.11 distributed coordination function", IEEE JSAC 18(3), 2000), computed for a radio of
netstack.radio.standards: n stations that always have a frame, all hearing each other, unicast
frames of one size, basic access (no RTS/CTS).

Each station's backoff stage is a Markov chain: a frame starts at stage 0 with a window of W = CWmin
+ 1 slots, each collision doubles the window up to CWmax + 1, and after `attempts` transmissions the
frame is dropped. tau, the probability that a station transmits in a slot, and p, the probability
that a transmission collides, fix each other (p = 1 - (1 - tau)^(n - 1)); the throughput follows
from the mean length of an idle slot, a success and a collision. A collision lasts the data frame
and then EIFS (stations that heard it failed to decode it, as without preamble detection) or DIFS.
"""

from __future__ import annotations

from dataclasses import dataclass

from netstack.radio.standards import Standard


@dataclass(frozen=True)
class Saturation:
    """The model's answer for one point: payload throughput (Mbit/s), tau and p."""

    throughput_mbps: float
    tau: float
    p: float


def transmit_probability(p: float, w: int, cw_max: int, attempts: int) -> float:
    """tau given p: transmissions per slot spent, over the stages a frame passes (stage i is reached
    with probability p^i and spends its window's mean backoff plus the slot it transmits in)."""
    reached, slots, sent = 1.0, 0.0, 0.0
    for stage in range(attempts):
        window = min(w << stage, cw_max + 1)
        sent += reached
        slots += reached * (window + 1) / 2.0
        reached *= p
    return sent / slots


def solve(n: int, w: int, cw_max: int, attempts: int) -> tuple[float, float]:
    """(tau, p) where p = 1 - (1 - tau)^(n - 1), by bisection on p (the difference is monotone)."""
    if n == 1:
        return transmit_probability(0.0, w, cw_max, attempts), 0.0
    low, high = 0.0, 1.0
    for _ in range(200):
        p = (low + high) / 2.0
        tau = transmit_probability(p, w, cw_max, attempts)
        if 1.0 - (1.0 - tau) ** (n - 1) > p:
            low = p
        else:
            high = p
    p = (low + high) / 2.0
    return transmit_probability(p, w, cw_max, attempts), p


def saturation(std: Standard, n: int, payload_bytes: int, data_mbps: float, control_mbps: float,
               eifs: bool = True, attempts: int | None = None) -> Saturation:
    """Saturation throughput of `n` stations sending `payload_bytes` frames at `data_mbps`, each
    acknowledged at `control_mbps` (IEEE 802.11: `attempts` is dot11ShortRetryLimit, the standard's
    by default)."""
    if n < 1 or payload_bytes < 1:
        raise ValueError(f"the model needs n >= 1 and a payload, got n={n}, {payload_bytes} bytes")
    tau, p = solve(n, std.cw_min + 1, std.cw_max, attempts or std.retry_limit)
    slot, sifs = std.slot_ns, std.sifs_ns
    difs = sifs + std.aifsn * slot
    data = std.airtime_ns(payload_bytes + std.mac_overhead_bytes, data_mbps)
    ack = std.control_airtime_ns(std.ack_bytes, control_mbps)
    success = data + sifs + ack + difs
    after_collision = sifs + (std.eifs_ack_ns or ack) + difs if eifs else difs
    collision = data + after_collision
    busy = 1.0 - (1.0 - tau) ** n
    one = n * tau * (1.0 - tau) ** (n - 1)
    mean_slot_ns = (1.0 - busy) * slot + one * success + (busy - one) * collision
    return Saturation(one * payload_bytes * 8 / mean_slot_ns * 1e3, tau, p)
