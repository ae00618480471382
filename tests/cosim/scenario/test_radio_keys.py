"""Reading `network.radio`: one description for both engines, old keys moved with a warning that
names the new one, and one clear error for every key neither engine knows."""

from __future__ import annotations

import logging

import pytest

import cosim
from cosim.errors import ScenarioError
from cosim.scenario.schema import dump
from netstack.fast.config import FastRadioConfig
from netstack.fast.medium import Csma
from netstack.fast.pathloss import LogDistance
from tests.conftest import base_scenario


def _load(radio: dict, backend: str = "fast"):
    return cosim.from_dict(base_scenario(network={"backend": backend, "radio": radio}), source="test.yaml")


def test_the_fast_radios_old_keys_still_work_with_a_warning_naming_the_new_key(caplog):
    old = {"tx_power_dbm": 16.0, "rx_threshold_dbm": -76.0, "noise_floor_dbm": -93.6, "bit_rate_bps": 1.0e6,
           "overhead_bytes": 36, "max_payload_bytes": 2296, "latency": "0 s", "loss_probability": 0.1,
           "contention": {"model": "csma", "retry_limit": 4}, "pathloss": {"model": "log_distance"}}
    with caplog.at_level(logging.WARNING):
        radio = _load(old).network.radio
    assert radio.fast_config() == FastRadioConfig(
        tx_power_dbm=16.0, rx_threshold_dbm=-76.0, noise_floor_dbm=-93.6, bit_rate_bps=1e6, overhead_bytes=36,
        max_payload_bytes=2296, latency_ns=0, loss_probability=0.1, contention=Csma(), retry_limit=4,
        pathloss=LogDistance())  # the same numbers, to the bit
    text = caplog.text
    for line in ("network.radio.rx_threshold_dbm is an old key; write network.radio.rx_sensitivity_dbm",
                 "network.radio.bit_rate_bps is an old key; write network.radio.data_rate_mbps",
                 "network.radio.noise_floor_dbm is an old key; write network.radio.noise_figure_db",
                 "network.radio.latency is an old key; write network.radio.fast.latency",
                 "network.radio.contention is an old key; write network.radio.fast.contention"):
        assert f"test.yaml: {line}" in text


def test_ns3s_old_keys_still_work(caplog):
    old = {"standard": "802.11b", "rate_manager": "constant", "data_mode": "DsssRate2Mbps", "pcap": False,
           "rx_sensitivity_dbm": -76.0, "preamble_min_rssi_dbm": -78.0}
    with caplog.at_level(logging.WARNING):
        ns3 = _load(old, "ns3").network.radio.ns3_config()
    assert (ns3.data_mode, ns3.preamble_min_rssi_dbm, ns3.rate_manager) == ("DsssRate2Mbps", -76.0, "constant")
    assert "network.radio.data_mode is an old key; write network.radio.data_rate_mbps" in caplog.text
    assert "network.radio.rate_manager is an old key; write network.radio.ns3.rate_manager" in caplog.text


def test_an_old_key_set_on_a_new_file_wins_over_the_new_key(caplog):
    """Sweeps and --set lines written for the old keys still act on migrated scenario files."""
    radio = _load({"standard": "802.11b", "fast": {"loss_probability": 0.0}, "loss_probability": 0.4}).network.radio
    assert radio.fast.loss_probability == 0.4


def test_the_backend_alone_switches_the_engine():
    radio = {"standard": "802.11g", "data_rate_mbps": 12, "tx_power_dbm": 18.0, "fast": {"latency": "5 us"},
             "ns3": {"rate_manager": "constant", "pcap": False}}
    fast, ns3 = _load(radio, "fast"), _load(radio, "ns3")
    assert fast.network.radio == ns3.network.radio  # one description, whichever engine computes it
    assert fast.network.radio.fast_config().latency_ns == 5_000
    assert ns3.network.radio.ns3_config().data_mode == "ErpOfdmRate12Mbps"


def test_a_partial_contention_section_starts_from_the_standards_timing():
    radio = _load({"standard": "802.11a", "fast": {"contention": {"model": "csma", "cw_max": 255}}}).network.radio
    csma = radio.fast_config().contention
    assert (csma.slot_ns, csma.sifs_ns, csma.cw_min, csma.cw_max) == (9_000, 16_000, 15, 255)


def test_the_resolved_radio_reloads_to_the_same_description():
    radio = _load({"standard": "802.15.4", "queue": {"frames": 50}, "fast": {"contention": {"model": "csma"}}}).network.radio
    again = _load(dump(radio)).network.radio
    assert again == radio


@pytest.mark.parametrize("radio, backend, message", [
    ({"bogus": 1}, "fast",
     "test.yaml: network.radio.bogus: unknown key; expected one of: channel, control_rate_mbps, data_rate_mbps"),
    ({"standard": "802.11b", "fast": {"latncy": "1 ms"}}, "fast",
     "test.yaml: network.radio.fast.latncy: unknown key; expected one of: contention, latency, loss_probability"),
    ({"standard": "802.11b", "ns3": {"pcap": False, "rate": 1}}, "ns3",
     "test.yaml: network.radio.ns3.rate: unknown key; expected one of: pcap, rate_manager"),
    ({"standard": "802.11b", "data_rate_mbps": 54}, "fast",
     "test.yaml: network.radio: 802.11b has no 54 Mbit/s rate; its rates are 1, 2, 5.5, 11 Mbit/s"),
    ({"standard": "802.11a", "data_mode": "DsssRate1Mbps"}, "ns3",
     "test.yaml: network.radio.data_mode: unknown data_mode 'DsssRate1Mbps' for 802.11a; expected one of: OfdmRate6Mbps"),
    ({"standard": "generic"}, "ns3", "test.yaml: network.radio.standard: ns-3 models radio standards and `generic` is none"),
    ({"standard": "802.11b", "queue": {"frames": 0}}, "fast",
     "test.yaml: network.radio.queue: queue.frames must be within 1..1000000, got 0"),
    ({"standard": "802.15.4", "queue": {"lifetime": "1 s"}}, "ns3",
     "test.yaml: network.radio.queue.lifetime: ns-3's 802.15.4 MAC keeps a frame until it is sent or given up"),
    ({"standard": "802.11b", "retry_limit": 300}, "ns3", "test.yaml: network.radio: retry_limit must be within 1..255"),
    ({"standard": "802.11b", "ns3": {"preamble_threshold_db": 3}, "fast": {"contention": {"preamble_threshold_db": -10}}},
     "fast", "test.yaml: network.radio.fast.contention.preamble_threshold_db: -10 disagrees with "
             "network.radio.ns3.preamble_threshold_db: 3; a radio has one preamble_threshold_db"),
    ({"data_rate_mbps": 2}, "ns3", "test.yaml: network.radio.standard: ns-3 models a radio standard and this radio names none"),
])
def test_bad_radio_keys_get_one_clear_error(radio, backend, message):
    with pytest.raises(ScenarioError) as err:
        _load(radio, backend)
    assert message in str(err.value)


def test_engine_sub_keys_the_description_now_has_move_to_it_with_a_warning(caplog):
    old = {"standard": "802.11b", "ns3": {"preamble_threshold_db": 3},
           "fast": {"contention": {"model": "csma", "retry_limit": 4, "queue_frames": 20, "max_queue_delay": "100 ms",
                                   "cw_max": 255}}}
    with caplog.at_level(logging.WARNING):
        radio = _load(old, "ns3").network.radio
    assert (radio.preamble_threshold_db, radio.retry_limit, radio.queue.frames, radio.queue.lifetime_ns) == (
        3.0, 4, 20, 100_000_000)
    assert radio.fast_config().contention.cw_max == 255  # the fast engine's own key stays
    ns3 = radio.ns3_config()
    assert (ns3.preamble_threshold_db, ns3.retry_limit, ns3.queue_frames) == (3.0, 4, 20)
    for old_key, new_key in (("ns3.preamble_threshold_db", "preamble_threshold_db"),
                             ("fast.contention.retry_limit", "retry_limit"),
                             ("fast.contention.queue_frames", "queue.frames"),
                             ("fast.contention.max_queue_delay", "queue.lifetime")):
        assert (f"network.radio.{old_key} is an old key; write network.radio.{new_key} (read by both engines)"
                in caplog.text)


def test_medium_access_keys_on_the_per_link_model_say_they_act_on_ns3_only(caplog):
    radio = {"standard": "802.11b", "retry_limit": 3, "queue": {"frames": 10}, "fast": {"contention": {"model": "none"}}}
    with caplog.at_level(logging.WARNING):
        _load(radio, "fast")
    for key in ("retry_limit", "queue"):
        assert (f"network.radio.{key} acts on ns-3 only: the fast engine's per-link model (fast.contention: none) "
                "has no medium access") in caplog.text
    caplog.clear()
    with caplog.at_level(logging.WARNING):
        _load({"standard": "802.11b", "retry_limit": 3}, "fast")  # with contention, the fast engine uses it
    assert "acts on ns-3 only" not in caplog.text


def test_a_resolved_per_link_radio_reloads_without_a_word(caplog):
    radio = _load({"standard": "802.11b", "fast": {"contention": {"model": "none"}}}).network.radio
    with caplog.at_level(logging.WARNING):
        again = _load(dump(radio)).network.radio
    assert again == radio and "acts on ns-3 only" not in caplog.text
