"""One radio description for both network engines (`network.radio`).

A scenario describes the radio hardware once: the standard, data rate, transmit power, path loss,
receiver sensitivity and noise figure, and how walls attenuate. `network.backend` picks the engine
that computes it: ns-3 configures that standard (`ns3_config`), the fast radio models the same
standard (`fast_config`: its airtime, MAC overhead, DCF timing, contention and sensitivity). Knobs
one engine alone has sit under a sub-key named for it (`fast`, `ns3`) and are inert on the other.

A `generic` radio is the fast radio's free-form model (any bit rate, overhead and frame size); ns-3
models standards only and refuses it.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass, field
from typing import Any, Literal

from netstack.fast.config import BroadcastPhy, FastRadioConfig
from netstack.fast.medium import Csma
from netstack.fast.pathloss import PATHLOSS_MODELS, LogDistance, check_power
from netstack.ns3.config import Ns3RadioConfig
from netstack.radio.standards import GENERIC_NOISE_FLOOR_NF0_DBM, STANDARDS, Standard

GENERIC = "generic"
StandardName = Literal["802.11a", "802.11b", "802.11g", "802.11n", "802.15.4", "generic"]
GENERIC_DEFAULTS = {"data_rate_mbps": 0.25, "tx_power_dbm": 0.0, "rx_sensitivity_dbm": -85.0, "noise_figure_db": 14.0,
                    "overhead_bytes": 0, "max_payload_bytes": 1500}
"""A generic radio's defaults: a CC2420-class 250 kbit/s radio, noise floor -100 dBm over 1 MHz."""
GENERIC_LATENCY_NS = 100_000


@dataclass(frozen=True)
class NoContention:
    """Frames never collide: a per-link model (`fast.contention: {model: none}`)."""


CONTENTION_MODELS: dict[str, type] = {"csma": Csma, "none": NoContention}


@dataclass(frozen=True)
class FastOptions:
    """The fast engine's own knobs (`network.radio.fast`); inert when ns-3 runs."""

    latency_ns: int | None = None
    """Fixed delay after each frame ends (None: 0 for a standard, 100 us for a generic radio)."""
    loss_probability: float = 0.0
    """An independent loss draw per receiver, on top of the radio model."""
    contention: Any = field(default=None, metadata={"registry": CONTENTION_MODELS, "tag": "model"})
    """None: the standard's medium access (802.11's DCF, 802.15.4's CSMA-CA), none for a generic radio."""


@dataclass(frozen=True)
class Ns3Options:
    """ns-3's own knobs (`network.radio.ns3`); inert when the fast engine runs."""

    rate_manager: Literal["constant", "minstrel", "ideal", "aarf"] = "constant"
    """ns-3's rate control: `constant` (the radio's data rate), `minstrel`, `ideal` or `aarf`."""
    pcap: bool = False
    """Write a pcap file of each node's frames into the run directory."""


@dataclass(frozen=True)
class QueueSpec:
    """Each node's transmit queue (`network.radio.queue`): frames beyond `frames` are dropped, and
    so are frames older than `lifetime` (None: 500 ms for 802.11, as ns-3's; 802.15.4's MAC on
    ns-3 keeps frames until sent, so only the fast engine, at 500 ms)."""

    frames: int = 500
    """The most frames a node's queue holds; more are dropped."""
    lifetime_ns: int | None = None
    """Frames older than this are dropped (null: the standard's, 500 ms)."""

    def __post_init__(self) -> None:
        if not 1 <= self.frames <= 1_000_000:
            raise ValueError(f"queue.frames must be within 1..1000000, got {self.frames}")
        if self.lifetime_ns is not None and self.lifetime_ns <= 0:
            raise ValueError(f"queue.lifetime must be > 0, got {self.lifetime_ns} ns")


_GENERIC_ONLY = ("overhead_bytes", "max_payload_bytes")
QUEUE_LIFETIME_NS = 500_000_000
"""A queued frame's lifetime unless `queue.lifetime` says otherwise (ns-3's WifiMacQueue MaxDelay)."""
MAC_KEYS = ("control_rate_mbps", "preamble_detection", "preamble_threshold_db", "retry_limit", "queue")
"""The description's medium-access keys: the fast engine's per-link model (no contention) has no MAC."""


@dataclass(frozen=True)
class RadioSpec:
    """Every node's radio, as both engines read it (powers in dBm, rates in Mbit/s). Defaults are the
    standard's (None below): ns-3's for 802.11 (16.02 dBm, -82 dBm preamble detection, 7 dB noise
    figure) and 802.15.4 (0 dBm, -106.58 dBm), a CC2420-class radio for `generic`."""

    standard: StandardName = GENERIC
    """The radio standard: `802.11a`, `802.11b`, `802.11g`, `802.11n`, `802.15.4`, or `generic` (the fast
    engine's free-form radio)."""
    data_rate_mbps: float | None = None
    """The data frames' rate: one of the standard's (default: its lowest); a generic radio takes any (default 0.25)."""
    tx_power_dbm: float | None = None
    """The transmit power (default: the standard's, 16.02 dBm for 802.11 as ns-3's)."""
    pathloss: Any = field(default_factory=LogDistance, metadata={"registry": PATHLOSS_MODELS, "tag": "model"})
    """The propagation loss model and its settings (default: log-distance, exponent 3)."""
    rx_sensitivity_dbm: float | None = None
    """The weakest frame a receiver detects (ns-3: its preamble detection for 802.11; ignored by unit_disk)."""
    noise_figure_db: float | None = None
    """Noise floor = thermal noise over the standard's bandwidth + this; SNR = RSSI - noise floor."""
    channel: int | None = None
    """The standard's channel number (default: its first; 802.15.4: 11)."""
    obstacle_loss_db: float = 0.0
    """Loss for each of the world's obstacles the line of sight crosses."""
    obstacles_block: bool = False
    """An obstacle on the line of sight cuts the link entirely."""
    overhead_bytes: int | None = None
    """Generic radios only: header bytes added to each payload for the airtime."""
    max_payload_bytes: int | None = None
    """Generic radios only: the largest payload."""
    control_rate_mbps: float | None = None
    """ACKs' rate: the highest of the standard's basic rates not above the data rate by default
    (802.11b: 1 or 2 Mbit/s; OFDM: 6, 12 or 24), or another of its rates not above the data rate."""
    preamble_detection: bool = True
    """802.11: a receiver locks onto a frame only if its SNR reaches `preamble_threshold_db` at its
    start (ns-3's ThresholdPreambleDetectionModel); false: onto any frame above the sensitivity."""
    preamble_threshold_db: float | None = None
    """The SNR preamble detection needs (default the standard's: 4 dB for 802.11)."""
    retry_limit: int | None = None
    """The standard's own limit on an unacknowledged unicast: 802.11's dot11ShortRetryLimit counts
    transmission attempts (default 7, 1..255); 802.15.4's macMaxFrameRetries counts retries after
    the first (default 3, 0..7); a generic radio's counts retries (default 7)."""
    queue: QueueSpec = field(default_factory=QueueSpec)
    """Each node's transmit queue."""
    fast: FastOptions = field(default_factory=FastOptions)
    """The fast engine's own settings (inert on ns-3)."""
    ns3: Ns3Options = field(default_factory=Ns3Options)
    """ns-3's own settings (inert on the fast engine)."""

    def __post_init__(self) -> None:
        std = STANDARDS.get(self.standard)
        if std is None:
            defaults = GENERIC_DEFAULTS
            if self.channel is not None:
                raise ValueError("channel: a generic radio has no channels; give a standard or remove channel")
        else:
            defaults = {"data_rate_mbps": std.rates[0].mbps, "tx_power_dbm": std.tx_power_dbm,
                        "rx_sensitivity_dbm": std.sensitivity_dbm, "noise_figure_db": std.noise_figure_db}
            for key in _GENERIC_ONLY:
                if getattr(self, key) is not None:
                    raise ValueError(f"{key}: {self.standard} fixes its frames ({std.mac_overhead_bytes} bytes of MAC "
                                     f"header and FCS, at most {std.max_payload_bytes} bytes of payload); remove "
                                     f"{key} or use standard: generic")
        for key, value in defaults.items():
            if getattr(self, key) is None:
                object.__setattr__(self, key, value)
        if std is not None:
            std.rate(self.data_rate_mbps)  # raises for a rate the standard does not have
        elif not 1e-6 <= self.data_rate_mbps <= 1e5:
            raise ValueError(f"data_rate_mbps must be within 1e-06..1e+05 Mbit/s (1 bit/s to 100 Gbit/s), got "
                             f"{self.data_rate_mbps:g}")
        else:
            for key in _GENERIC_ONLY:
                if not 0 <= getattr(self, key) <= 0xFFFF:
                    raise ValueError(f"{key} must be within 0..65535 bytes, got {getattr(self, key):,}")
        self._resolve_mac(std)
        low, high = (0.0, 30.0) if std is not None else (-60.0, 60.0)
        if not low <= self.noise_figure_db <= high:
            raise ValueError(f"noise_figure_db must be within {low:g}..{high:g} dB, got {self.noise_figure_db:g}")
        check_power("rx_sensitivity_dbm", self.rx_sensitivity_dbm, -200.0, 30.0)
        if self.standard == "802.15.4" and self.rx_sensitivity_dbm > -85.0:
            raise ValueError(f"rx_sensitivity_dbm: 802.15.4 at 2.4 GHz requires -85 dBm or better (ns-3 aborts above "
                             f"it), got {self.rx_sensitivity_dbm:g}; for less range lower tx_power_dbm")
        fast = self.fast
        if fast.latency_ns is None:
            fast = dataclasses.replace(fast, latency_ns=GENERIC_LATENCY_NS if std is None else 0)
        if fast.contention is None:
            fast = dataclasses.replace(fast, contention=NoContention() if std is None else self.standard_csma())
        object.__setattr__(self, "fast", fast)
        self.fast_config()  # each engine's own checks, at load time
        if std is not None:
            self.ns3_config()

    def _resolve_mac(self, std: Standard | None) -> None:
        """The medium-access keys of the description: the standard's defaults, refusals that name the key."""
        low, high, field_name = {"802.15.4": (0, 7, "802.15.4's macMaxFrameRetries"),
                                 GENERIC: (0, 255, "retries after the first try")}.get(
            self.standard, (1, 255, "802.11's dot11ShortRetryLimit: transmission attempts"))
        if self.retry_limit is None:
            object.__setattr__(self, "retry_limit", std.retry_limit if std is not None else 7)
        elif not low <= self.retry_limit <= high:
            raise ValueError(f"retry_limit must be within {low}..{high} ({field_name}), got {self.retry_limit}")
        threshold = self.preamble_threshold_db
        if threshold is not None and not -30.0 <= threshold <= 60.0:
            raise ValueError(f"preamble_threshold_db must be within -30..60 dB, got {threshold:g}")
        own = threshold is None or std is None or threshold == std.preamble_threshold_db
        if self.standard == "802.15.4" and not (own and self.preamble_detection):
            raise ValueError("preamble_detection and preamble_threshold_db are 802.11's; ns-3's 802.15.4 receiver "
                             "has no such model (the fast engine imitates it at -1 dB); remove them")
        if threshold is None:
            object.__setattr__(self, "preamble_threshold_db", std.preamble_threshold_db if std is not None else 4.0)
        self._resolve_control_rate(std)

    def _resolve_control_rate(self, std: Standard | None) -> None:
        if std is None:
            if self.control_rate_mbps is not None:
                raise ValueError("control_rate_mbps: a generic radio's acknowledgements go at its data rate; remove it")
            return
        default = std.default_control_mbps(self.data_rate_mbps)
        rate = self.control_rate_mbps
        if rate is None or math.isclose(rate, default, rel_tol=1e-9):
            object.__setattr__(self, "control_rate_mbps", default)
            return
        if not std.control_rates:
            raise ValueError(f"control_rate_mbps: {self.standard} sends control frames at {default:g} Mbit/s with "
                             f"this data rate (ns-3 chooses it itself); remove control_rate_mbps or give {default:g}")
        if not any(math.isclose(rate, r, rel_tol=1e-9) for r in std.control_rates) or rate > self.data_rate_mbps:
            fitting = [f"{r:g}" for r in std.control_rates if r <= self.data_rate_mbps + 1e-9]
            raise ValueError(f"control_rate_mbps: {self.standard} has no {rate:g} Mbit/s control rate at a data rate "
                             f"of {self.data_rate_mbps:g} Mbit/s; expected one of {', '.join(fitting)} Mbit/s "
                             f"(default {default:g})")

    @property
    def spec(self) -> Standard | None:
        """The standard's numbers (None for a generic radio)."""
        return STANDARDS.get(self.standard)

    @property
    def shadowed(self) -> bool:
        return self.obstacles_block or self.obstacle_loss_db > 0

    @property
    def is_wifi(self) -> bool:
        return self.standard.startswith("802.11")

    @property
    def noise_floor_dbm(self) -> float:
        std = self.spec
        return (std.noise_floor_nf0_dbm if std else GENERIC_NOISE_FLOOR_NF0_DBM) + self.noise_figure_db

    def receive_threshold_dbm(self) -> float:
        """The weakest frame the fast engine receives: the sensitivity, less the margin by which ns-3
        receives below it for the standard (802.15.4)."""
        std = self.spec
        return self.rx_sensitivity_dbm - (std.sensitivity_margin_db if std is not None else 0.0)

    def max_range_m(self) -> float:
        """Where the received power falls to the receive threshold (a unit disk's radius)."""
        return float(self.pathloss.max_range_m(self.tx_power_dbm, self.receive_threshold_dbm()))

    # -- the engines' parameters ---------------------------------------------------------------
    def fast_config(self) -> FastRadioConfig:
        """The fast radio's parameters for this radio."""
        std = self.spec
        opts = self.fast
        contention = None if isinstance(opts.contention, NoContention) else opts.contention
        common = {"tx_power_dbm": self.tx_power_dbm, "rx_threshold_dbm": self.receive_threshold_dbm(),
                  "noise_floor_dbm": self.noise_floor_dbm, "bit_rate_bps": round(self.data_rate_mbps * 1e6, 6),
                  "loss_probability": opts.loss_probability, "pathloss": self.pathloss, "latency_ns": opts.latency_ns,
                  "obstacle_loss_db": self.obstacle_loss_db, "obstacles_block": self.obstacles_block,
                  "contention": contention, "retry_limit": self._retries(), "queue_frames": self.queue.frames,
                  "queue_lifetime_ns": self.queue.lifetime_ns or QUEUE_LIFETIME_NS,
                  "preamble_detection": self.preamble_detection, "preamble_threshold_db": self.preamble_threshold_db}
        if std is None:
            return FastRadioConfig(**common, overhead_bytes=self.overhead_bytes, max_payload_bytes=self.max_payload_bytes)
        return FastRadioConfig(**common, overhead_bytes=std.mac_overhead_bytes, max_payload_bytes=std.max_payload_bytes,
                               preamble_ns=0 if contention is not None else std.preamble_ns, symbol_ns=std.symbol_ns,
                               extra_bits=std.extra_bits, signal_extension_ns=std.signal_extension_ns,
                               broadcast=self._broadcast_phy(std), **self._ack_times(std, contention))

    def _retries(self) -> int:
        """Retransmissions after the first try: 802.11's dot11ShortRetryLimit counts every attempt."""
        return self.retry_limit - 1 if self.is_wifi else self.retry_limit

    def _ack_times(self, std: Standard, contention: Csma | None) -> dict[str, int | None]:
        """802.11's acknowledgement at the control rate, and EIFS's from the standard's table."""
        if contention is None or std.eifs_ack_ns is None:
            return {}
        return {"ack_ns": std.control_airtime_ns(contention.ack_bytes, self.control_rate_mbps),
                "eifs_ack_ns": std.eifs_ack_ns}

    def _broadcast_phy(self, std: Standard) -> BroadcastPhy | None:
        """802.11 broadcasts at ns-3's first mode: 1 Mbit/s DSSS at 2.4 GHz, 6 Mbit/s OFDM at 5 GHz."""
        if std.broadcast_dsss:
            return BroadcastPhy(1e6, extra_preamble_ns=STANDARDS["802.11b"].preamble_ns - std.preamble_ns)
        if std.broadcast_mbps is None or std.broadcast_mbps == self.data_rate_mbps:
            return None
        return BroadcastPhy(std.broadcast_mbps * 1e6, symbol_ns=std.symbol_ns, extra_bits=std.extra_bits,
                            signal_extension_ns=std.signal_extension_ns)

    def standard_csma(self, **overrides: Any) -> Csma:
        """The standard's medium access as the fast contention model (802.11's DCF; 802.15.4's
        CSMA-CA in its shape: a backoff before every frame), with `overrides` on top."""
        std = self.spec
        if std is None:
            return Csma(**overrides)
        values = {"slot_ns": std.slot_ns, "sifs_ns": std.sifs_ns, "aifsn": std.aifsn, "cw_min": std.cw_min,
                  "cw_max": std.cw_max, "preamble_ns": std.preamble_ns,
                  "ack_bytes": std.ack_bytes, "energy_detect_dbm": std.energy_detect_dbm,
                  "sinr_threshold_db": std.rate(self.data_rate_mbps).sinr_db, "cca_delay_ns": std.cca_delay_ns,
                  "backoff_first": self.standard == "802.15.4", "virtual_carrier_sense": self.standard != "802.15.4"}
        return Csma(**{**values, **overrides})

    def ns3_config(self) -> Ns3RadioConfig:
        """ns-3's settings for this radio; a generic radio has none."""
        std = self.spec
        if std is None:
            raise ValueError("ns-3 models radio standards, and standard: generic is none of them; set "
                             "network.radio.standard to 802.11a, 802.11b, 802.11g, 802.11n or 802.15.4")
        threshold = -150.0 if self.pathloss.ignores_threshold() else self.rx_sensitivity_dbm
        opts = self.ns3
        wifi = self.is_wifi
        return Ns3RadioConfig(
            standard=self.standard, rate_manager=opts.rate_manager,
            data_mode=std.rate(self.data_rate_mbps).ns3_mode if wifi and opts.rate_manager == "constant" else None,
            tx_power_dbm=self.tx_power_dbm, pathloss=self.pathloss,
            rx_sensitivity_dbm=min(threshold, -101.0) if wifi else threshold,
            preamble_min_rssi_dbm=threshold, preamble_threshold_db=self.preamble_threshold_db, channel=self.channel,
            pcap=opts.pcap, obstacle_loss_db=self.obstacle_loss_db, obstacles_block=self.obstacles_block,
            noise_figure_db=self.noise_figure_db, control_mode=self._control_mode(std),
            preamble_detection=self.preamble_detection, retry_limit=self.retry_limit, queue_frames=self.queue.frames,
            queue_lifetime_ns=self.queue.lifetime_ns)

    def _control_mode(self, std: Standard) -> str | None:
        """ns-3's mode for control frames; None where ns-3 picks the same rate by itself (OFDM's defaults,
        802.11b at 1 and 2 Mbit/s, 802.11n, 802.15.4), which spares it a hook on every reception."""
        if not std.control_rates or math.isclose(self.control_rate_mbps, std.ns3_control_mbps(self.data_rate_mbps)):
            return None
        return std.rate(self.control_rate_mbps).ns3_mode
