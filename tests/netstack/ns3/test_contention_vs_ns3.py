"""The fast radio's contention model against ns-3's 802.11b, on benchmarks/contention.py's workload
(200 nodes on a grid, 100-byte Poisson frames): broadcasts at a light and a saturating load, and
acknowledged unicast at a busy one; the delivery ratios agree within 0.05."""

from __future__ import annotations

import importlib.util

from tests.conftest import ROOT


def _benchmark():
    spec = importlib.util.spec_from_file_location("contention_benchmark", ROOT / "benchmarks" / "contention.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_delivery_ratio_within_five_hundredths_of_ns3_from_light_load_to_saturation():
    bench = _benchmark()
    # half a second: about 400 frames at the light load and 4,000 at saturation (ns-3 takes 10 s of CPU for those)
    rows = {(which, rate): bench.point("grid", rate, 0.5, which, seed=7) for which in ("ns3", "fast") for rate in (4.0, 40.0)}
    for rate in (4.0, 40.0):
        ns3, fast = rows[("ns3", rate)], rows[("fast", rate)]
        assert ns3["frames"] == fast["frames"] > 0
        assert abs(fast["delivery_ratio"] - ns3["delivery_ratio"]) < 0.05, (rate, ns3, fast)
    for which in ("ns3", "fast"):
        light, heavy = rows[(which, 4.0)], rows[(which, 40.0)]
        assert light["delivery_ratio"] > 0.9 and heavy["delivery_ratio"] < 0.65
        assert heavy["mean_delay_ms"] > 5 * light["mean_delay_ms"]


def test_unicast_with_acks_and_retries_within_five_hundredths_of_ns3():
    bench = _benchmark()
    # a whole second: in half of one the medium is not yet busy enough (delivery 0.98) for retries to matter
    ns3, fast = (bench.point("grid", 20.0, 1.0, which, seed=7, unicast=True) for which in ("ns3", "fast"))
    assert ns3["frames"] == fast["frames"] > 0 and ns3["delivery_ratio"] < 0.97  # a busy medium: retries matter
    assert abs(fast["delivery_ratio"] - ns3["delivery_ratio"]) < 0.05, (ns3, fast)
    assert abs(fast["mean_delay_ms"] - ns3["mean_delay_ms"]) < 0.25 * ns3["mean_delay_ms"]
