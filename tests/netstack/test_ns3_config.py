"""ns-3 radio settings, checked without importing ns-3."""

import pytest

from netstack.fast.pathloss import Friis
from netstack.ns3.backend import effective_range_m, loss_model
from netstack.ns3.config import Ns3RadioConfig


def test_default_range_is_the_51_m_the_readme_warns_about():
    assert effective_range_m(Ns3RadioConfig()) == pytest.approx(51.4, abs=0.1)
    assert effective_range_m(Ns3RadioConfig(standard="802.15.4", tx_power_dbm=0.0)) == pytest.approx(99.0, abs=1.0)
    base = effective_range_m(Ns3RadioConfig())
    assert effective_range_m(Ns3RadioConfig(preamble_min_rssi_dbm=-92.0)) == pytest.approx(base * 10 ** (10 / 30))  # 10 dB more


def test_defaults_per_standard():
    assert Ns3RadioConfig(standard="802.11a").wifi_data_mode() == "OfdmRate6Mbps"
    assert Ns3RadioConfig(standard="802.11n").wifi_data_mode() == "HtMcs0"
    assert Ns3RadioConfig(standard="802.11a", channel=36).wifi_channel_settings() == "{36, 20, BAND_5GHZ, 0}"
    assert Ns3RadioConfig(standard="802.15.4").max_payload_bytes == 116


def test_path_loss_models_map_to_ns3_type_ids():
    assert loss_model(Friis(5.0e9)) == ("ns3::FriisPropagationLossModel", ["Frequency"], ["5000000000.0"])
