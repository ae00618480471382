"""Frames from rows: links, unicast packets, routes and the quadrotor attitude estimate."""

from __future__ import annotations

import numpy as np

from cosim.view.frame import tilt_axes
from cosim.view.frames import FrameBuilder


def _frame(b: FrameBuilder, t_ns: int, n: int):
    z = np.zeros((n, 3))
    return b.frame(t_ns, z, z, np.zeros(n), np.ones(n, dtype=bool))


def test_links_are_unordered_pairs_and_reset_each_frame():
    for n in (5, 5000):  # the pair-mark path and the sorting path agree
        b = FrameBuilder(n, routed=False)
        b.deliveries(np.array([0, 1, 3, 3]), np.array([1, 0, 2, 4]))
        b.deliveries(np.array([2]), np.array([3]))
        f = _frame(b, 100, n)
        assert f.links.tolist() == [[0, 1], [2, 3], [3, 4]]
        assert f.scalars["alive"] == n
        assert _frame(b, 200, n).links.shape == (0, 2)


def test_unicasts_become_packets_and_rates_are_per_second():
    b = FrameBuilder(4, routed=False)
    _frame(b, 0, 4)
    b.sends((1,), (2,))
    b.sends(np.array([0, 3]), np.array([-1, 0]))  # a broadcast is no packet arrow
    b.deliveries(np.array([1]), np.array([2]))
    f = _frame(b, 500_000_000, 4)
    assert f.packets.tolist() == [[1, 2], [3, 0]] and f.packet_kinds == ("unicast", "unicast")
    assert f.scalars["network/sent_per_s"] == 6.0 and f.scalars["network/delivered_per_s"] == 2.0


def test_a_routed_packet_is_drawn_along_the_hops_it_took():
    b = FrameBuilder(6, routed=True)
    b.packet(0, "frame", 0, 2, 9, 7, "data")  # node 0 sends packet (src 0, port 9, seq 7) to next hop 2
    b.packet(2, "frame", 0, 5, 9, 7, "data")
    b.packet(2, "frame", 2, -1, -1, -1, "hello")  # a broadcast control frame: no arrow
    b.packet(5, "recv", 0, 5, 9, 7, "")
    b.packet(1, "frame", 1, 4, 9, 1, "data")
    b.packet(4, "drop", 1, 3, 9, 1, "no route")
    f = _frame(b, 10, 6)
    assert f.routes == ((0, 2, 5),) and f.route_flows == ((0, 5, 9),)
    assert f.packets.tolist() == [[0, 2], [2, 5], [1, 4]] and f.packet_kinds == ("data", "data", "data")


def test_attitude_is_the_thrust_axis():
    v0 = np.zeros((2, 3))
    v1 = np.array([[0.0, 0.0, 0.0], [0.981, 0.0, 0.0]])  # hover; 9.81 m/s^2 forward over 0.1 s
    up = tilt_axes(v1, v0, 0.1)
    assert np.allclose(up[0], [0, 0, 1])
    assert np.allclose(up[1], [np.sqrt(0.5), 0, np.sqrt(0.5)])
