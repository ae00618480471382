"""Bianchi's saturation model (netstack.radio.bianchi), and both 802.11 engines against it on small
points of benchmarks/bianchi.py's workload (the whole sweep and its table are in docs/radio.md)."""

from __future__ import annotations

import pytest

from benchmarks.bianchi import measure
from netstack.radio.bianchi import saturation, solve, transmit_probability
from netstack.radio.standards import STANDARDS


def test_one_station_never_collides_and_waits_half_its_window():
    tau, p = solve(1, 32, 1023, 7)
    assert p == 0.0 and tau == pytest.approx(2 / 33)
    std = STANDARDS["802.11b"]
    one = saturation(std, 1, 1500, 11.0, 2.0).throughput_mbps
    # a frame every DATA + SIFS + ACK + DIFS + 15.5 slots: 1,312.7 + 10 + 248 + 50 + 310 us
    assert one == pytest.approx(1500 * 8 / (192 + 1536 * 8 / 11 + 10 + 248 + 50 + 15.5 * 20), rel=1e-6)


def test_the_fixed_point_holds_and_more_stations_collide_more():
    w, cw_max, attempts = 16, 1023, 7
    last = None
    for n in (2, 5, 20, 50):
        tau, p = solve(n, w, cw_max, attempts)
        assert p == pytest.approx(1 - (1 - tau) ** (n - 1), abs=1e-9)
        assert tau == pytest.approx(transmit_probability(p, w, cw_max, attempts))
        if last is not None:
            assert p > last[1] and tau < last[0]
        last = tau, p


def test_eifs_after_collisions_costs_throughput_and_rates_order_it():
    std = STANDARDS["802.11a"]
    difs = [saturation(std, n, 1500, 54.0, 24.0, eifs=False).throughput_mbps for n in (5, 20, 50)]
    eifs = [saturation(std, n, 1500, 54.0, 24.0, eifs=True).throughput_mbps for n in (5, 20, 50)]
    assert difs[0] > difs[1] > difs[2] and all(e < d for e, d in zip(eifs, difs))
    assert saturation(std, 10, 1500, 6.0, 6.0).throughput_mbps < saturation(std, 10, 1500, 54.0, 24.0).throughput_mbps


@pytest.mark.parametrize("standard, mbps, n", [("802.11b", 11.0, 10), ("802.11a", 54.0, 10)])
@pytest.mark.parametrize("backend", ["fast", "ns3"])
def test_both_engines_are_within_3_percent_of_the_model(tmp_path, standard, mbps, n, backend):
    row = measure(standard, mbps, n, backend, 1.5, tmp_path)  # 1.5 s: ~780 frames at 11 Mbit/s, ~3,500 at 54
    assert abs(row["error"]) <= 0.03, row
