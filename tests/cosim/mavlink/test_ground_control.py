"""A ground station written as a controller (cosim.mavlink.ground_control): LinkProbe times its
TIMESYNCs to a served vehicle through the simulated radio, as benchmarks/mavlink_radio.py does."""

from __future__ import annotations

import pytest

from benchmarks.mavlink_radio import measure


def test_the_link_probe_times_every_answer_near_and_hears_nothing_far():
    near = measure("fast", 10.0, 6.0)
    assert near["heard"] and near["probes"] >= 10 and near["answered"] == near["probes"] and near["loss"] == 0.0
    assert 0.05 < near["rtt_median_ms"] < 5.0  # two 802.11g frames and their acknowledgements
    far = measure("fast", 80.0, 6.0)  # beyond 802.11g's reach with a path-loss exponent of 3
    assert not far["heard"] and far["probes"] == 0 and far["loss"] == 1.0 and far["rtt_median_ms"] is None


def test_a_link_probe_needs_a_positive_period():
    from cosim.mavlink.ground_control import LinkProbe

    with pytest.raises(ValueError, match="period must be > 0"):
        LinkProbe(LinkProbe.Params(period=0.0))
