"""The one radio description both engines read (netstack.radio): defaults per standard, what each
engine gets from it, and refusals that name the key."""

from __future__ import annotations

import pytest

from netstack.fast.config import FastRadioConfig
from netstack.fast.medium import Csma
from netstack.fast.pathloss import UnitDisk
from netstack.radio import FastOptions, NoContention, RadioSpec
from netstack.radio.standards import STANDARDS


def test_both_engines_read_the_same_hardware():
    radio = RadioSpec(standard="802.11b", tx_power_dbm=20.0, rx_sensitivity_dbm=-88.0, data_rate_mbps=2.0)
    fast, ns3 = radio.fast_config(), radio.ns3_config()
    assert (fast.tx_power_dbm, ns3.tx_power_dbm) == (20.0, 20.0)
    assert (fast.rx_threshold_dbm, ns3.preamble_min_rssi_dbm) == (-88.0, -88.0)  # the weakest frame detected
    assert ns3.rx_sensitivity_dbm == -101.0  # ns-3's energy gate stays below it
    assert (fast.bit_rate_bps, ns3.data_mode) == (2e6, "DsssRate2Mbps")
    assert fast.noise_floor_dbm == pytest.approx(-93.99, abs=0.01) and ns3.noise_figure_db == 7.0  # ns-3: 20 MHz
    assert fast.overhead_bytes == 36 and fast.max_payload_bytes == ns3.max_payload_bytes == 2296
    # the standard's medium access by default: 802.11b's DCF at the rate's SINR
    assert isinstance(fast.contention, Csma)
    assert (fast.contention.slot_ns, fast.contention.cw_min, fast.contention.preamble_ns) == (20_000, 31, 192_000)
    assert fast.contention.sinr_threshold_db == STANDARDS["802.11b"].rate(2.0).sinr_db


@pytest.mark.parametrize("standard, rate, payload, airtime_us", [
    ("802.11b", 1.0, 100, 192 + 1088),       # long preamble, 136 bytes at 1 Mbit/s
    ("802.11a", 6.0, 100, 20 + 47 * 4),      # (16 + 1088 + 6) bits in 24-bit symbols
    ("802.11g", 24.0, 100, 20 + 12 * 4 + 6),  # ERP-OFDM adds the 6 us signal extension
    ("802.11n", 6.5, 100, 36 + 43 * 4 + 6),  # HT-mixed preamble, 26 bits per symbol
    ("802.15.4", 0.25, 20, 192 + 31 * 32),   # SHR + PHR, then 9 + 2 bytes of header and FCS
])
def test_the_fast_model_times_each_standards_frames(standard, rate, payload, airtime_us):
    radio = RadioSpec(standard=standard, data_rate_mbps=rate, fast=FastOptions(contention=NoContention()))
    assert radio.fast_config().airtime_ns(payload) == airtime_us * 1000
    with_contention = RadioSpec(standard=standard, data_rate_mbps=rate).fast_config()
    assert with_contention.contention.preamble_ns + with_contention.airtime_ns(payload) == airtime_us * 1000


def test_a_generic_radio_keeps_the_fast_radios_old_defaults():
    assert RadioSpec().fast_config() == FastRadioConfig()
    assert RadioSpec(fast=FastOptions(contention=Csma())).fast_config() == FastRadioConfig(contention=Csma())


def test_802154_waits_a_backoff_before_every_frame():
    csma = RadioSpec(standard="802.15.4").fast_config().contention
    assert csma.backoff_first and (csma.slot_ns, csma.cw_min, csma.cw_max, csma.retry_limit) == (320_000, 7, 31, 3)


def test_unit_disk_ignores_the_sensitivity_on_both_engines():
    radio = RadioSpec(standard="802.11b", pathloss=UnitDisk(range_m=40.0))
    assert radio.ns3_config().preamble_min_rssi_dbm == -150.0
    assert radio.fast_config().max_range_m() == 40.0


@pytest.mark.parametrize("kwargs, message", [
    ({"standard": "802.11b", "data_rate_mbps": 6.0}, "802.11b has no 6 Mbit/s rate; its rates are 1, 2, 5.5, 11"),
    ({"standard": "802.11a", "overhead_bytes": 20}, "overhead_bytes: 802.11a fixes its frames"),
    ({"standard": "generic", "channel": 3}, "a generic radio has no channels"),
    ({"standard": "802.15.4", "channel": 3}, "802.15.4 channel must be within 11..26"),
    ({"standard": "802.11b", "noise_figure_db": -3.0}, "noise_figure_db must be within 0..30 dB"),
    ({"standard": "802.15.4", "rx_sensitivity_dbm": -80.0}, "802.15.4 at 2.4 GHz requires -85 dBm or better"),
])
def test_impossible_radios_are_refused(kwargs, message):
    with pytest.raises(ValueError, match=message):
        RadioSpec(**kwargs)


def test_ns3_refuses_a_generic_radio():
    with pytest.raises(ValueError, match="ns-3 models radio standards"):
        RadioSpec().ns3_config()
