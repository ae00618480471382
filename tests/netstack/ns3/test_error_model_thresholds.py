"""Each 802.11 rate's SINR threshold in the fast model is where ns-3's default error model passes
half of 150-byte frames (TableBasedErrorRateModel; for DSSS it defers to DSSS's own curves)."""

from __future__ import annotations

import pytest

from netstack.radio.standards import STANDARDS

FRAME_BITS = 150 * 8
RATES = [(name, rate) for name in ("802.11b", "802.11a", "802.11g", "802.11n") for rate in STANDARDS[name].rates]


@pytest.fixture(scope="module")
def success_rate():
    import cppyy

    from netstack.ns3.loader import load

    ns, _ = load()
    cppyy.include("ns3/table-based-error-rate-model.h")  # the backend loads the headers it names, not this one
    model = ns.CreateObject[ns.TableBasedErrorRateModel]()

    def rate(mode_name: str, sinr_db: float) -> float:
        mode = ns.WifiMode(mode_name)
        vector = ns.WifiTxVector()
        vector.SetMode(mode)
        vector.SetChannelWidth(20)
        return model.GetChunkSuccessRate(mode, vector, 10.0 ** (sinr_db / 10.0), FRAME_BITS)

    return rate


@pytest.mark.parametrize("name, rate", RATES, ids=[f"{n}-{r.mbps:g}" for n, r in RATES])
def test_the_threshold_is_ns3s_half_way_point(success_rate, name, rate):
    below, above = success_rate(rate.ns3_mode, rate.sinr_db - 0.3), success_rate(rate.ns3_mode, rate.sinr_db + 0.3)
    assert below < 0.5 < above, (name, rate, below, above)
