"""The one radio description both engines read (netstack.radio): defaults per standard, what each
engine gets from it, and refusals that name the key."""

from __future__ import annotations

import pytest

from netstack.fast.config import FastRadioConfig
from netstack.fast.medium import Csma
from netstack.fast.pathloss import UnitDisk
from netstack.radio import FastOptions, NoContention, RadioSpec
from netstack.radio.spec import QueueSpec
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
    config = RadioSpec(standard="802.15.4").fast_config()
    csma = config.contention
    assert csma.backoff_first and (csma.slot_ns, csma.cw_min, csma.cw_max, config.retry_limit) == (320_000, 7, 31, 3)


@pytest.mark.parametrize("standard, data, control, ack_us, eifs_ack_us", [
    ("802.11b", 11.0, 2.0, 248, 304), ("802.11b", 5.5, 2.0, 248, 304), ("802.11b", 1.0, 1.0, 304, 304),
    ("802.11a", 54.0, 24.0, 28, 44), ("802.11a", 18.0, 12.0, 32, 44), ("802.11a", 9.0, 6.0, 44, 44),
    ("802.11g", 54.0, 24.0, 34, 304), ("802.11n", 65.0, 24.0, 34, 304)])
def test_acknowledgements_go_at_the_highest_basic_rate_not_above_the_data_rate(standard, data, control, ack_us,
                                                                                eifs_ack_us):
    """IEEE 802.11-2016 10.6.6.5: 802.11b's basic rates are 1 and 2 Mbit/s, OFDM's 6, 12 and 24; EIFS
    counts the ACK of Table 10-5 (304 us at 2.4 GHz, 44 us at 5 GHz) whatever the data rate."""
    radio = RadioSpec(standard=standard, data_rate_mbps=data)
    config = radio.fast_config()
    assert radio.control_rate_mbps == control
    assert (config.ack_airtime_ns(), config.eifs_ack_ns) == (ack_us * 1000, eifs_ack_us * 1000)
    assert config.eifs_extra_ns() == config.contention.sifs_ns + eifs_ack_us * 1000


def test_the_description_s_medium_access_keys_reach_both_engines():
    radio = RadioSpec(standard="802.11b", data_rate_mbps=11.0, control_rate_mbps=5.5, retry_limit=4,
                      preamble_detection=False, preamble_threshold_db=3.0, queue=QueueSpec(20, 100_000_000))
    fast, ns3 = radio.fast_config(), radio.ns3_config()
    assert (fast.retry_limit, fast.queue_frames, fast.queue_lifetime_ns) == (3, 20, 100_000_000)  # retries after the first
    assert (fast.preamble_detection, fast.preamble_threshold_db, fast.ack_ns) == (False, 3.0, 192_000 + 20_364)
    assert (ns3.control_mode, ns3.retry_limit, ns3.queue_frames, ns3.queue_lifetime_ns) == ("DsssRate5_5Mbps", 4, 20,
                                                                                           100_000_000)
    assert (ns3.preamble_detection, ns3.preamble_threshold_db) == (False, 3.0)


@pytest.mark.parametrize("kwargs, message", [
    ({"standard": "802.11b", "data_rate_mbps": 11.0, "control_rate_mbps": 6.0},
     "control_rate_mbps: 802.11b has no 6 Mbit/s control rate at a data rate of 11 Mbit/s; expected one of 1, 2, 5.5, 11"),
    ({"standard": "802.11a", "data_rate_mbps": 12.0, "control_rate_mbps": 24.0},
     "control_rate_mbps: 802.11a has no 24 Mbit/s control rate at a data rate of 12 Mbit/s; expected one of 6, 9, 12"),
    ({"standard": "802.11n", "data_rate_mbps": 65.0, "control_rate_mbps": 6.0},
     "control_rate_mbps: 802.11n sends control frames at 24 Mbit/s with this data rate"),
    ({"control_rate_mbps": 1.0}, "control_rate_mbps: a generic radio's acknowledgements go at its data rate"),
    ({"standard": "802.11b", "retry_limit": 256},
     "retry_limit must be within 1..255 (802.11's dot11ShortRetryLimit: transmission attempts), got 256"),
    ({"standard": "802.11b", "retry_limit": 0}, "retry_limit must be within 1..255"),
    ({"standard": "802.15.4", "retry_limit": 8}, "retry_limit must be within 0..7 (802.15.4's macMaxFrameRetries), got 8"),
    ({"standard": "802.15.4", "preamble_detection": False}, "preamble_detection and preamble_threshold_db are 802.11's"),
    ({"standard": "802.11b", "preamble_threshold_db": 90.0}, "preamble_threshold_db must be within -30..60 dB, got 90"),
])
def test_bad_medium_access_keys_are_refused_naming_the_key(kwargs, message):
    with pytest.raises(ValueError) as err:
        RadioSpec(**kwargs)
    assert str(err.value).startswith(message), str(err.value)


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
