"""Routing metrics from a hand-written packets table with known answers."""

import math

import pytest

from cosim.output.routing_metrics import routing_metrics

MS = 1_000_000


def table(rows):
    cols = ("t_ns", "node", "kind", "src", "dst", "port", "seq", "hops", "size", "detail")
    return {c: [r[i] for r in rows] for i, c in enumerate(cols)}


def test_delivery_delay_jitter_overhead_and_discovery():
    rows = [
        # session 0 -> 2: four packets, the third lost; delays 30, 10, -, 14 ms
        (0, 0, "send", 0, 2, 9, 0, 0, 64, ""), (30 * MS, 2, "recv", 0, 2, 9, 0, 2, 64, ""),
        (100 * MS, 0, "send", 0, 2, 9, 1, 0, 64, ""), (110 * MS, 2, "recv", 0, 2, 9, 1, 2, 64, ""),
        (200 * MS, 0, "send", 0, 2, 9, 2, 0, 64, ""), (205 * MS, 1, "drop", 0, 2, 9, 2, 0, 64, "no_route"),
        (300 * MS, 0, "send", 0, 2, 9, 3, 0, 64, ""), (314 * MS, 2, "recv", 0, 2, 9, 3, 2, 64, ""),
        # session 1 -> 0: one packet, delay 20 ms
        (50 * MS, 1, "send", 1, 0, 9, 0, 0, 64, ""), (70 * MS, 0, "recv", 1, 0, 9, 0, 1, 64, ""),
        # frames: 3 control (hello 4 B, fant 20 B, bant 26 B) and data frames that are not overhead
        (1 * MS, 0, "frame", 0, -1, -1, -1, 0, 4, "hello"), (2 * MS, 0, "frame", 0, -1, -1, -1, 0, 20, "fant"),
        (3 * MS, 2, "frame", 2, 1, -1, -1, 0, 26, "bant"), (4 * MS, 0, "frame", 0, 1, -1, -1, 0, 76, "data"),
        # a broadcast packet is not part of the delivery ratio
        (400 * MS, 0, "send", 0, -1, 9, 4, 0, 64, ""),
    ]
    m = routing_metrics(table(rows), 3, extra_control=(1, 50), received_per_node=[1, 2, 3])
    assert m["data_sent"] == 5 and m["data_delivered"] == 4
    assert m["delivery_ratio"] == pytest.approx(0.8)
    delays = [0.030, 0.010, 0.014, 0.020]
    assert m["delay_mean_s"] == pytest.approx(sum(delays) / 4)
    assert m["delay_median_s"] == pytest.approx(0.017)
    # consecutive delivered packets of session 0 -> 2: |10 - 30| and |14 - 10| ms
    assert m["jitter_s"] == pytest.approx((0.020 + 0.004) / 2)
    assert m["control_frames"] == 4 and m["control_bytes"] == 4 + 20 + 26 + 50
    assert m["control_frames_per_delivered"] == pytest.approx(1.0)
    # discovery: first send to first delivery per session: 30 ms and 20 ms
    assert m["route_discovery_median_s"] == pytest.approx(0.025)
    assert m["sessions"] == 2 and m["dropped"] == 1
    assert m["received_per_node"] == [1, 2, 3]


def test_no_traffic_gives_nan_not_an_error():
    m = routing_metrics(table([]), 2)
    assert m["data_sent"] == 0 and math.isnan(m["delivery_ratio"]) and math.isnan(m["delay_median_s"])
