"""Radio settings of the ns-3 backend, validated without importing ns-3."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from netstack.fast.pathloss import PATHLOSS_MODELS, LogDistance, check_power
from netstack.fast.shadowing import check_shadowing

WIFI_STANDARDS = ("802.11a", "802.11b", "802.11g", "802.11n")
LRWPAN_SENSITIVITY_DBM = -106.58  # ns-3's LrWpanPhy default receiver sensitivity
WIFI_CHANNELS_5GHZ = (36, 40, 44, 48, 52, 56, 60, 64, 100, 104, 108, 112, 116, 120, 124, 128, 132, 136, 140, 144,
                      149, 153, 157, 161, 165)
STANDARDS = (*WIFI_STANDARDS, "802.15.4")

# Lowest mandatory rate of each standard: the most robust, and what ns-3 examples use for ad hoc.
DEFAULT_DATA_MODE = {"802.11a": "OfdmRate6Mbps", "802.11b": "DsssRate1Mbps", "802.11g": "ErpOfdmRate6Mbps",
                     "802.11n": "HtMcs0"}
_OFDM = ("6", "9", "12", "18", "24", "36", "48", "54")
_DSSS = ("DsssRate1Mbps", "DsssRate2Mbps", "DsssRate5_5Mbps", "DsssRate11Mbps")
DATA_MODES = {
    "802.11b": _DSSS,
    "802.11a": tuple(f"OfdmRate{r}Mbps" for r in _OFDM),
    "802.11g": (*(f"ErpOfdmRate{r}Mbps" for r in _OFDM), *_DSSS),
    "802.11n": tuple(f"HtMcs{i}" for i in range(8)),  # one spatial stream
}
RATE_MANAGERS = {"constant": "ns3::ConstantRateWifiManager", "minstrel": "ns3::MinstrelWifiManager",
                 "ideal": "ns3::IdealWifiManager", "aarf": "ns3::AarfWifiManager"}
# Largest payload per frame: 802.11 MSDU 2304 bytes less 8 of LLC/SNAP; 802.15.4 PSDU 127 bytes
# less 9 of MAC header (short addresses, PAN ID compression) and 2 of FCS.
MAX_PAYLOAD = {"802.11a": 2296, "802.11b": 2296, "802.11g": 2296, "802.11n": 2296, "802.15.4": 116}
FRAME_LIMIT_TEXT = {
    "802.15.4": "802.15.4 frames are 127 bytes: 11 bytes of MAC header and FCS leave 116 for the payload",
}


@dataclass(frozen=True)
class Ns3RadioConfig:
    """Standard, rate, power, propagation and receiver thresholds of every node's radio.

    Defaults are ns-3's: 16.0206 dBm, log-distance exponent 3 (L0 = 46.6777 dB at 1 m), RX
    sensitivity -101 dBm, preamble detection at -82 dBm and 4 dB SNR. Together they give 802.11 a
    range of only about 51 m; see the README.
    """

    standard: Literal["802.11a", "802.11b", "802.11g", "802.11n", "802.15.4"] = "802.11b"
    rate_manager: Literal["constant", "minstrel", "ideal", "aarf"] = "constant"
    data_mode: str | None = None
    tx_power_dbm: float = 16.0206
    pathloss: Any = field(default_factory=LogDistance, metadata={"registry": PATHLOSS_MODELS, "tag": "model"})
    rx_sensitivity_dbm: float | None = None
    """ns-3's RxSensitivity (802.11, default -101 dBm) or LrWpanPhy's sensitivity (802.15.4, -106.58 dBm)."""
    preamble_min_rssi_dbm: float = -82.0
    preamble_threshold_db: float = 4.0
    channel: int | None = None
    pcap: bool = False
    obstacle_loss_db: float = 0.0
    """Loss per obstacle the line of sight crosses, in ns-3's loss chain (cosim_ns3::ObstacleLossModel)."""
    obstacles_block: bool = False
    noise_figure_db: float | None = None
    """802.11: RxNoiseFigure (ns-3's 7 dB); 802.15.4: the noise factor on thermal noise (ns-3's 0 dB)."""
    control_mode: str | None = None
    """802.11a/b/g: the mode ACKs go at (with the lowest mode, the basic rate set); None: ns-3's own choice."""
    preamble_detection: bool = True
    retry_limit: int | None = None
    """802.11: WifiMac's FrameRetryLimit; 802.15.4: macMaxFrameRetries; None: ns-3's default."""
    queue_frames: int | None = None
    queue_lifetime_ns: int | None = None
    """802.11: the MAC queue's MaxDelay (None: ns-3's 500 ms)."""

    def __post_init__(self) -> None:
        lrwpan = self.standard == "802.15.4"
        if self.rx_sensitivity_dbm is None:
            object.__setattr__(self, "rx_sensitivity_dbm", LRWPAN_SENSITIVITY_DBM if lrwpan else -101.0)
        if self.noise_figure_db is None:
            object.__setattr__(self, "noise_figure_db", 0.0 if lrwpan else 7.0)
        if not 0.0 <= self.noise_figure_db <= 30.0:
            raise ValueError(f"noise_figure_db must be within 0..30 dB, got {self.noise_figure_db:g}")
        check_power("tx_power_dbm", self.tx_power_dbm, -50.0, 60.0)
        check_power("rx_sensitivity_dbm", self.rx_sensitivity_dbm, -200.0, 30.0)
        if lrwpan and self.rx_sensitivity_dbm > -85.0:
            raise ValueError("802.15.4 at 2.4 GHz requires a sensitivity of -85 dBm or better (ns-3 aborts above it), "
                             f"got {self.rx_sensitivity_dbm:g}")
        check_power("preamble_min_rssi_dbm", self.preamble_min_rssi_dbm, -200.0, 30.0)
        check_shadowing(self.obstacle_loss_db, self.obstacles_block, self.pathloss.ignores_threshold())
        self._check_combination()

    def _check_combination(self) -> None:
        """Settings ns-3 accepts and then aborts the run on (NS_ASSERT), refused here instead."""
        if self.standard == "802.11n" and self.rate_manager in ("minstrel", "aarf"):
            raise ValueError(f"ns-3's {self.rate_manager} rate manager has no 802.11n (HT) rates and aborts the run; "
                             "use rate_manager: ideal or constant for 802.11n")
        if self.standard == "802.15.4":
            if self.rate_manager != "constant" or self.data_mode is not None:
                raise ValueError("802.15.4 has one rate (250 kbit/s O-QPSK); remove rate_manager and data_mode")
            if self.channel is not None and not 11 <= self.channel <= 26:
                raise ValueError(f"802.15.4 channel must be within 11..26 (2.4 GHz O-QPSK), got {self.channel}")
        elif self.data_mode is not None and self.rate_manager != "constant":
            raise ValueError("data_mode only applies to rate_manager: constant")
        elif self.data_mode is not None and self.data_mode not in DATA_MODES[self.standard]:
            raise ValueError(f"unknown data_mode {self.data_mode!r} for {self.standard}; expected one of: "
                             f"{', '.join(DATA_MODES[self.standard])}")
        if self.is_wifi and self.channel is not None:
            allowed = {"802.11a": WIFI_CHANNELS_5GHZ, "802.11b": range(1, 15)}.get(self.standard, range(1, 14))
            if self.channel not in allowed:
                raise ValueError(f"{self.standard} channel {self.channel} does not exist; use one of "
                                 f"{', '.join(map(str, allowed))} (20 MHz channels; 14 is 802.11b's only)")

    @property
    def shadowed(self) -> bool:
        """Whether obstacles affect links."""
        return self.obstacles_block or self.obstacle_loss_db > 0

    @property
    def is_wifi(self) -> bool:
        return self.standard in WIFI_STANDARDS

    @property
    def max_payload_bytes(self) -> int:
        return MAX_PAYLOAD[self.standard]

    def wifi_data_mode(self) -> str:
        return self.data_mode or DEFAULT_DATA_MODE[self.standard]

    def wifi_channel_settings(self) -> str:
        """ns-3's ChannelSettings string ("" keeps the standard's default channel)."""
        if self.channel is None:
            return ""
        band = "BAND_5GHZ" if self.standard == "802.11a" else "BAND_2_4GHZ"
        return f"{{{self.channel}, 20, {band}, 0}}"
