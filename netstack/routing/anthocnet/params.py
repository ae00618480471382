"""AntHocNet's parameters, checked on construction (durations in nanoseconds, `*_ns`)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class AntHocNetParams:
    """AntHocNet's parameters: the papers' values by default (sources in each line: [P] the PPSN 2004
    paper's sections, [T] Ducatelle's 2007 thesis; docs/routing.md says how they were checked)."""

    alpha: float = 0.7
    """Smoothing of the MAC time estimate T_mac ([P] section 3.1)."""
    gamma: float = 0.7
    """Pheromone update: new = gamma * old + (1 - gamma) * tau ([P] section 3.1)."""
    t_hop_ns: int = 3_000_000
    """T_hop, the time one hop takes without load ([P] section 3.1): 3 ms ([T])."""
    beta_ants: float = 1.0
    """Exponent of pheromone when forward ants choose a next hop ([P] section 3.3)."""
    beta_data: float = 2.0
    """Exponent of pheromone when data packets choose a next hop ([P] section 3.2)."""
    acceptance: float = 0.9
    """a1: a copy of an ant generation goes on only if best/own >= a1 for hops and for time ([T]; [P]
    section 3.1 used own <= 1.5 * best, a1 = 0.67)."""
    max_hops: int = 100
    """Forward ants and data packets die after this many hops."""
    hello_interval_ns: int = 1_000_000_000
    """Hello messages, one per second ([P] section 3.3)."""
    allowed_hello_loss: int = 2
    """A neighbour is lost after this many hello intervals without hearing it ([P] section 3.3)."""
    setup_retry_ns: int = 500_000_000
    """A reactive path setup without an answer is restarted after this long... (ours: about as often as
    ns-3's AODV retries its expanding-ring route requests, 0.24 to 0.72 s)"""
    setup_tries: int = 10
    """...at most this many times in all (5 s); then the buffered data are dropped (ours)."""
    proactive_every: int = 5
    """One proactive forward ant per this many data packets of a session ([P] section 3.3; 5 is ours)."""
    proactive_broadcast_p: float = 0.1
    """Probability that a proactive ant is broadcast at a node, to explore ([P] section 3.3; 0.1 is ours)."""
    proactive_max_broadcasts: int = 2
    """A proactive ant broadcast this many times is no longer broadcast ([P] section 3.3)."""
    repair_max_broadcasts: int = 2
    """A repair ant may be broadcast this many times ([P] section 3.4)."""
    repair_wait_factor: float = 5.0
    """Local repair waits this many times the lost path's estimated delay ([P] section 3.4)."""
    jitter_ns: int = 5_000_000
    """Broadcast ants and hellos wait a uniform random delay in [0, jitter) (ours)."""
    buffer_packets: int = 64
    """Data packets buffered per destination while a path is set up or repaired (ours)."""

    def __post_init__(self) -> None:
        for name in ("alpha", "gamma", "acceptance", "proactive_broadcast_p"):
            v = getattr(self, name)
            if not 0.0 <= v <= 1.0:
                raise ValueError(f"{name} must be within [0, 1], got {v}")
        if self.beta_ants < 1 or self.beta_data < 1:
            raise ValueError("beta_ants and beta_data must be >= 1")
        if not 1 <= self.max_hops <= 255:
            raise ValueError(f"max_hops must be within 1..255, got {self.max_hops}")
        if self.t_hop_ns <= 0 or self.hello_interval_ns <= 0 or self.setup_retry_ns <= 0:
            raise ValueError("t_hop, hello_interval and setup_retry must be positive durations")
        if min(self.allowed_hello_loss, self.setup_tries, self.proactive_every, self.buffer_packets) < 1:
            raise ValueError("allowed_hello_loss, setup_tries, proactive_every and buffer_packets must be >= 1")
        if self.repair_wait_factor <= 0 or self.jitter_ns < 0:
            raise ValueError("repair_wait_factor must be > 0 and jitter >= 0")
