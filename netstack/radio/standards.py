"""Radio standards as both network engines see them: rates, timing, frame overhead, noise.

ns-3 configures a standard from its name (netstack.ns3). The fast radio models the same standard
from the numbers here: a frame's airtime (PHY preamble, MAC header and FCS, the bits at the data
rate, OFDM symbols), 802.11's DCF timing (slot, SIFS, contention window, retries, ACK size) and the
SINR a frame needs at each rate. Numbers are the standard's as ns-3 3.44 implements them (for
802.11g and 802.11n at 2.4 GHz: the long 20 us slot and the 6 us signal extension). Each rate's
SINR threshold is where ns-3's default error model (TableBasedErrorRateModel, DSSS's own curves
for 802.11b) passes half of 150-byte frames (docs/radio.md says how close the two come).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

THERMAL_DBM_PER_HZ = -174.0
"""Thermal noise density at 290 K."""


@dataclass(frozen=True)
class Rate:
    """One data rate: Mbit/s, ns-3's mode name, and the SINR (dB) at which the fast model decodes it."""

    mbps: float
    ns3_mode: str
    sinr_db: float


@dataclass(frozen=True)
class Standard:
    """What a standard fixes about a radio (times in ns)."""

    name: str
    rates: tuple[Rate, ...]
    noise_floor_nf0_dbm: float
    """Thermal noise over the receiver's bandwidth, before the noise figure."""
    noise_figure_db: float
    tx_power_dbm: float
    sensitivity_dbm: float
    mac_overhead_bytes: int
    preamble_ns: int
    max_payload_bytes: int
    slot_ns: int
    sifs_ns: int
    aifsn: int
    cw_min: int
    cw_max: int
    retry_limit: int
    ack_bytes: int
    symbol_ns: int = 0
    """OFDM: the airtime is whole symbols of this length (0: bits at the rate)."""
    extra_bits: int = 0
    """OFDM: service and tail bits around the frame."""
    signal_extension_ns: int = 0
    cca_delay_ns: int = 4_000
    energy_detect_dbm: float = -82.0
    broadcast_mbps: float | None = None
    """Broadcasts' rate (ns-3 sends them at its first mode); None: the data rate."""
    broadcast_dsss: bool = False
    """Broadcasts go as 802.11b DSSS (192 us long preamble) on an OFDM radio at 2.4 GHz."""
    preamble_threshold_db: float = 4.0
    """SNR a receiver needs to detect a frame's start (ns-3's 802.11 preamble detection)."""
    sensitivity_margin_db: float = 0.0
    """How far below its configured sensitivity ns-3 still receives (802.15.4: 1.4 dB, measured)."""
    basic_mbps: tuple[float, ...] = ()
    """The basic rate set control frames go at: the highest not above the data rate (IEEE 802.11-2016
    10.6.6.5). 802.11b: 1 and 2 Mbit/s; OFDM: 6, 12, 24 (the mandatory rates); (): the data rate."""
    control_rates: tuple[float, ...] = ()
    """Rates a control frame may be given (`control_rate_mbps`); (): the data rates."""
    mandatory_mbps: tuple[float, ...] = ()
    """The PHY's mandatory rates, which ns-3's ad hoc MAC puts in the basic rate set (all four of
    802.11b's; OFDM's 6, 12, 24): where the control rate is the highest of them not above the data
    rate, ns-3 picks it by itself."""
    control_preamble_ns: int | None = None
    """A control frame's preamble (802.11n sends them non-HT: 20 us); None: `preamble_ns`."""
    eifs_ack_ns: int | None = None
    """The ACK time in EIFS (IEEE 802.11-2016 Table 10-5, as ns-3 sets it: 304 us at 2.4 GHz, 44 us
    at 5 GHz); None: an ACK at the control rate (802.15.4, which has no EIFS of its own)."""

    def rate(self, mbps: float) -> Rate:
        for r in self.rates:
            if math.isclose(r.mbps, mbps, rel_tol=1e-9):
                return r
        raise ValueError(f"{self.name} has no {mbps:g} Mbit/s rate; its rates are "
                         f"{', '.join(f'{r.mbps:g}' for r in self.rates)} Mbit/s")

    def airtime_ns(self, frame_bytes: int, mbps: float) -> int:
        """Airtime of a PPDU carrying `frame_bytes` of MAC frame at `mbps`, preamble included."""
        bits = 8 * frame_bytes + self.extra_bits
        if self.symbol_ns:
            per_symbol = mbps * self.symbol_ns / 1000.0
            body = math.ceil(bits / per_symbol - 1e-9) * self.symbol_ns
        else:
            body = math.ceil(bits * 1000.0 / mbps - 1e-9)
        return self.preamble_ns + body + self.signal_extension_ns

    def default_control_mbps(self, data_mbps: float) -> float:
        """The highest basic rate not above the data rate (the data rate without a basic set)."""
        fitting = [r for r in self.basic_mbps if r <= data_mbps + 1e-9]
        return max(fitting) if fitting else data_mbps

    def ns3_control_mbps(self, data_mbps: float) -> float:
        """The control rate ns-3's ad hoc MAC picks by itself: the highest mandatory rate not above the data rate."""
        fitting = [r for r in self.mandatory_mbps if r <= data_mbps + 1e-9]
        return max(fitting) if fitting else data_mbps

    def control_airtime_ns(self, frame_bytes: int, mbps: float) -> int:
        """Airtime of a control frame (an ACK) of `frame_bytes` at `mbps`, its own preamble included."""
        preamble = self.preamble_ns if self.control_preamble_ns is None else self.control_preamble_ns
        return self.airtime_ns(frame_bytes, mbps) - self.preamble_ns + preamble


def _thermal(bandwidth_hz: float) -> float:
    return THERMAL_DBM_PER_HZ + 10.0 * math.log10(bandwidth_hz)


_DSSS = (Rate(1.0, "DsssRate1Mbps", -5.0), Rate(2.0, "DsssRate2Mbps", -0.7), Rate(5.5, "DsssRate5_5Mbps", 2.0),
         Rate(11.0, "DsssRate11Mbps", 5.0))
_OFDM_SINR = {6: -0.5, 9: 1.1, 12: 2.5, 18: 5.0, 24: 7.9, 36: 11.1, 48: 15.1, 54: 16.4}
_HT = ((6.5, -0.5), (13.0, 2.5), (19.5, 5.0), (26.0, 7.9), (39.0, 11.1), (52.0, 15.1), (58.5, 16.4), (65.0, 17.9))
_WIFI = {"noise_figure_db": 7.0, "tx_power_dbm": 16.0206, "sensitivity_dbm": -82.0, "mac_overhead_bytes": 36,
         "max_payload_bytes": 2296, "aifsn": 2, "cw_max": 1023, "retry_limit": 7, "ack_bytes": 14}
_OFDM = {"symbol_ns": 4_000, "extra_bits": 22}
_OFDM_BASIC = {"basic_mbps": (6.0, 12.0, 24.0), "control_rates": tuple(float(r) for r in _OFDM_SINR),
               "mandatory_mbps": (6.0, 12.0, 24.0)}

STANDARDS: dict[str, Standard] = {
    # ns-3 3.44 integrates 802.11b's noise over a 20 MHz channel too (measured: SNR = RSSI + 93.99 dB)
    "802.11b": Standard("802.11b", _DSSS, _thermal(20e6), preamble_ns=192_000, slot_ns=20_000, sifs_ns=10_000,
                        cw_min=31, broadcast_mbps=1.0, basic_mbps=(1.0, 2.0),
                        control_rates=tuple(r.mbps for r in _DSSS), mandatory_mbps=tuple(r.mbps for r in _DSSS),
                        eifs_ack_ns=304_000, **_WIFI),
    "802.11a": Standard("802.11a", tuple(Rate(float(r), f"OfdmRate{r}Mbps", s) for r, s in _OFDM_SINR.items()),
                        _thermal(20e6), preamble_ns=20_000, slot_ns=9_000, sifs_ns=16_000, cw_min=15, broadcast_mbps=6.0,
                        eifs_ack_ns=44_000, **_OFDM_BASIC, **_OFDM, **_WIFI),
    "802.11g": Standard("802.11g", tuple(Rate(float(r), f"ErpOfdmRate{r}Mbps", s) for r, s in _OFDM_SINR.items()),
                        _thermal(20e6), preamble_ns=20_000, slot_ns=20_000, sifs_ns=10_000, cw_min=15,
                        signal_extension_ns=6_000, broadcast_mbps=1.0, broadcast_dsss=True, eifs_ack_ns=304_000,
                        **_OFDM_BASIC, **_OFDM, **_WIFI),
    "802.11n": Standard("802.11n", tuple(Rate(m, f"HtMcs{k}", s) for k, (m, s) in enumerate(_HT)), _thermal(20e6),
                        preamble_ns=36_000, slot_ns=20_000, sifs_ns=10_000, cw_min=15, signal_extension_ns=6_000,
                        broadcast_mbps=1.0, broadcast_dsss=True, eifs_ack_ns=304_000, control_preamble_ns=20_000,
                        basic_mbps=_OFDM_BASIC["basic_mbps"], **_OFDM, **_WIFI),
    # 2.4 GHz O-QPSK: SHR and PHR (6 bytes) at 250 kbit/s, MAC header and FCS 11 bytes; unslotted
    # CSMA-CA in DCF's shape: a backoff period of 20 symbols as the slot, turnaround as SIFS, BE 3..5.
    # ns-3 receives O-QPSK frames down to about 1.4 dB below the sensitivity it is given (links swept
    # from 30 to 140 m at -95 and -106.58 dBm); at the default that is where 60-byte frames decode
    # half the time, -1 dB SNR.
    "802.15.4": Standard("802.15.4", (Rate(0.25, "", -1.0),), -106.98658509780566, noise_figure_db=0.0,
                         tx_power_dbm=0.0, sensitivity_dbm=-106.58, mac_overhead_bytes=11, preamble_ns=192_000,
                         max_payload_bytes=116, slot_ns=320_000, sifs_ns=192_000, aifsn=1, cw_min=7, cw_max=31,
                         retry_limit=3, ack_bytes=5, cca_delay_ns=128_000, energy_detect_dbm=-96.58,
                         preamble_threshold_db=-1.0, sensitivity_margin_db=1.4),
}
"""The standards both engines model. 802.15.4's noise is what ns-3's LrWpanSpectrumValueHelper
integrates over a channel (noise factor 1)."""

GENERIC_NOISE_FLOOR_NF0_DBM = _thermal(1e6)
"""A generic radio's thermal noise: over 1 MHz (-114 dBm)."""
