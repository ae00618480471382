"""Medium-access models for the fast radio (`network.radio.contention`): who may transmit when, and
which overlapping frames survive.

Without one, the fast radio is a per-link model (frames never collide). `csma` is 802.11's
distributed coordination function in the shape ns-3 models it; its defaults are 802.11b at
1 Mbit/s (DSSS, long preamble), so with ns-3's radio defaults the two backends can be compared.
"""

from __future__ import annotations

from dataclasses import dataclass

from netstack.fast.pathloss import check_power


@dataclass(frozen=True)
class Csma:
    """Carrier sense with random backoff, receptions that need a signal-to-interference-plus-noise
    ratio (SINR), unicast acknowledgements and retries.

    - A node senses the medium busy while it transmits, while it receives a frame, or while the
      power of all frames in the air reaches `energy_detect_dbm` (ns-3's CCA sensitivity for Wi-Fi
      signals), from `cca_delay` after a frame starts.
    - A frame that reaches an empty queue on an idle medium, with no backoff left, goes once the
      medium has stayed idle for DIFS from its arrival (ns-3's immediate access). One that finds
      the medium busy waits a random backoff of 0..CW slots, counted down only while the medium
      is idle past DIFS (EIFS after a reception failed). Every transmission is followed by a
      fresh backoff (802.11's post-backoff).
    - With `virtual_carrier_sense`, a node that decodes a unicast frame for another node counts
      the medium busy until its acknowledgement has ended (the NAV).
    - A receiver locks onto a frame that starts while it is idle, reaches the radio's
      `rx_threshold_dbm`, and (with preamble detection, the radio's) has a SINR of its
      `preamble_threshold_db` at its start. The frame is
      received if its SINR stays at or above `sinr_threshold_db` until its end (the worst overlap
      counts); a receiver that starts to transmit loses the frame.
    - A unicast frame received is acknowledged after SIFS by an `ack_bytes` frame at the radio's
      control rate; without the acknowledgement the sender doubles CW (up to `cw_max`) and tries
      again, at most the radio's `retry_limit` times. Broadcasts are sent once.
    - A node queues at most the radio's `queue.frames` and drops those older than its lifetime.

    `sinr_threshold_db` -5 dB is where ns-3's DSSS 1 Mbit/s error model passes about half of
    150-byte frames (its bit error rate falls steeply around it). The model has no RTS/CTS.
    """

    slot_ns: int = 20_000
    """The backoff slot (default: the standard's; 20 us, 802.11b's, for a generic radio)."""
    sifs_ns: int = 10_000
    """The short interframe space before an acknowledgement."""
    aifsn: int = 2
    """Slots after SIFS that make DIFS, the idle time before access (2 for DCF)."""
    cw_min: int = 31
    """The contention window of a frame's first attempt (backoff 0..cw_min slots)."""
    cw_max: int = 1023
    """The largest window that doubling after failed attempts reaches."""
    preamble_ns: int = 192_000
    """Added to every frame's airtime (the radio's bit rate and overhead_bytes give the rest)."""
    ack_bytes: int = 14
    """An acknowledgement's size (14 for 802.11)."""
    energy_detect_dbm: float = -82.0
    """The total power of frames in the air at which a node senses the medium busy."""
    sinr_threshold_db: float = -5.0
    """The SINR a frame needs over its whole length to be received (default: the standard's for the data rate)."""
    eifs: bool = True
    """After a reception failed, wait EIFS instead of DIFS before counting down (802.11)."""
    cca_delay_ns: int = 4_000
    """How long after a frame starts other nodes sense it (ns-3: its 4 us preamble detection)."""
    backoff_first: bool = False
    """True: every frame waits a random backoff, even on an idle medium (802.15.4's CSMA-CA)."""
    virtual_carrier_sense: bool = True
    """A node that decodes a unicast frame for another node defers until its acknowledgement has
    ended (802.11's NAV, from the frame's Duration field); 802.15.4 has none."""

    def __post_init__(self) -> None:
        if self.slot_ns <= 0 or self.sifs_ns < 0 or self.preamble_ns < 0 or not 0 <= self.cca_delay_ns < self.slot_ns:
            raise ValueError("slot must be > 0, sifs and preamble >= 0, cca_delay within [0, slot)")
        if not 1 <= self.aifsn <= 15:
            raise ValueError(f"aifsn must be within 1..15 slots, got {self.aifsn}")
        if self.cw_min < 0 or self.cw_max < self.cw_min:
            raise ValueError(f"cw_min must be >= 0 and cw_max >= cw_min, got {self.cw_min} and {self.cw_max}")
        if self.ack_bytes <= 0:
            raise ValueError("ack_bytes must be > 0")
        check_power("energy_detect_dbm", self.energy_detect_dbm, -200.0, 30.0)
        if not -30.0 <= self.sinr_threshold_db <= 60.0:
            raise ValueError("sinr_threshold_db must be within -30..60 dB")

    @property
    def difs_ns(self) -> int:
        return self.sifs_ns + self.aifsn * self.slot_ns

    def ack_airtime_ns(self, frame_airtime_ns) -> int:
        """An acknowledgement's airtime at the data rate (a generic radio's): the preamble, then
        `ack_bytes` timed by the radio's `frame_airtime_ns(bytes)` (FastRadioConfig's)."""
        return self.preamble_ns + frame_airtime_ns(self.ack_bytes)


MEDIUM_MODELS: dict[str, type] = {"csma": Csma}
