"""Bianchi's model of 802.11 DCF saturation throughput (G. Bianchi, "Performance analysis of the IEEE
802.11 distributed coordination function", IEEE JSAC 18(3), 2000), computed for a radio of
netstack.radio.standards: n stations that always have a frame, all hearing each other, unicast
frames of one size, basic access (no RTS/CTS).

Each station's backoff stage is the paper's Markov chain: a frame starts at stage 0 with a window of
W = CWmin + 1 slots and each collision doubles it, up to CWmax + 1 at stage m; as in the paper, a
frame is retried until it succeeds (the fraction that real DCF drops at its retry limit, p^limit,
is left out). tau, the probability that a station transmits in a slot, and p, the probability that
a transmission collides, fix each other (p = 1 - (1 - tau)^(n - 1)). Throughput follows from the
mean length of an idle slot, a success and a collision. As in the model ns-3's wifi-bianchi example
checks against, a success period also counts the sender's back-to-back frames (after a success it
draws 0 with probability 1/W and sends again after DIFS, before any other station can) and the idle
slot the others then spend before their counters move. A collision lasts the data frame and then
EIFS (stations that heard it failed to decode it, as without preamble detection) or DIFS.
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


def transmit_probability(p: float, w: int, cw_max: int) -> float:
    """tau given p: transmissions per slot spent, over the stages a frame passes (stage i is reached
    with probability p^i and spends its window's mean backoff plus the slot it transmits in; from
    stage m on the window stays CWmax + 1, for 1 / (1 - p) visits on average)."""
    if p >= 1.0:
        return 0.0
    reached = 1.0
    slots = 0.0
    window = w
    while window < cw_max + 1:
        slots += reached * (window + 1) / 2.0
        reached *= p
        window *= 2
    slots += reached / (1.0 - p) * (cw_max + 2) / 2.0
    return 1.0 / (1.0 - p) / slots


def solve(n: int, w: int, cw_max: int) -> tuple[float, float]:
    """(tau, p) where p = 1 - (1 - tau)^(n - 1), by bisection on p (the difference is monotone)."""
    if n == 1:
        return transmit_probability(0.0, w, cw_max), 0.0
    low = 0.0
    high = 1.0
    for _ in range(200):
        p = (low + high) / 2.0
        tau = transmit_probability(p, w, cw_max)
        if 1.0 - (1.0 - tau) ** (n - 1) > p:
            low = p
        else:
            high = p
    p = (low + high) / 2.0
    return transmit_probability(p, w, cw_max), p


def saturation(std: Standard, n: int, payload_bytes: int, data_mbps: float, control_mbps: float,
               eifs: bool = True) -> Saturation:
    """Saturation throughput of `n` stations sending `payload_bytes` frames at `data_mbps`, each
    acknowledged at `control_mbps`."""
    if n < 1 or payload_bytes < 1:
        raise ValueError(f"the model needs n >= 1 and a payload, got n={n}, {payload_bytes} bytes")
    w = std.cw_min + 1
    tau, p = solve(n, w, std.cw_max)
    slot = std.slot_ns
    sifs = std.sifs_ns
    difs = sifs + std.aifsn * slot
    data = std.airtime_ns(payload_bytes + std.mac_overhead_bytes, data_mbps)
    ack = std.control_airtime_ns(std.ack_bytes, control_mbps)
    frames_per_success = 1.0 / (1.0 - 1.0 / w)
    success = (data + sifs + ack + difs) * frames_per_success + slot
    after_collision = sifs + (std.eifs_ack_ns or ack) + difs if eifs else difs
    collision = data + after_collision
    busy = 1.0 - (1.0 - tau) ** n
    one = n * tau * (1.0 - tau) ** (n - 1)
    mean_slot_ns = (1.0 - busy) * slot + one * success + (busy - one) * collision
    return Saturation(one * frames_per_success * payload_bytes * 8 / mean_slot_ns * 1e3, tau, p)
