"""ns-3 sends ACKs at the radio's control rate (`network.radio.control_rate_mbps`): by default the
highest basic rate not above the data rate (802.11b: 1 or 2 Mbit/s, where ns-3's ad hoc MAC on its
own answers 5.5 and 11 Mbit/s frames at their rate), or the rate given; read from the radiotap
header of ns-3's own pcap."""

from __future__ import annotations

import struct
from pathlib import Path

import pytest

import cosim


def _frames(pcap: Path) -> list[tuple[str, float]]:
    """(kind, rate in Mbit/s) of each frame in a radiotap pcap: DATA or ACK."""
    data, out, at = pcap.read_bytes(), [], 24
    while at < len(data):
        size = struct.unpack("<I", data[at + 8:at + 12])[0]
        frame = data[at + 16:at + 16 + size]
        at += 16 + size
        length, present = struct.unpack("<HI", frame[2:8])
        field = 8
        if present & 1:  # TSFT, 8-byte aligned
            field = (field + 7) // 8 * 8 + 8
        if present & 2:  # flags
            field += 1
        rate = frame[field] / 2 if present & 4 else float("nan")
        kind = {0xD4: "ACK", 0x08: "DATA", 0x88: "DATA"}.get(frame[length], "other")
        out.append((kind, rate))
    return out


@pytest.mark.parametrize("standard, data, control, expected", [
    ("802.11b", 11.0, None, 2.0), ("802.11b", 11.0, 5.5, 5.5), ("802.11b", 1.0, None, 1.0),
    ("802.11a", 54.0, None, 24.0), ("802.11a", 54.0, 6.0, 6.0)])
def test_acks_go_at_the_control_rate(tmp_path, standard, data, control, expected):
    radio = {"standard": standard, "data_rate_mbps": data, "pathloss": {"model": "friis"}, "ns3": {"pcap": True}}
    if control is not None:
        radio["control_rate_mbps"] = control
    scenario = {"name": "ack", "seed": 1, "duration": 1.2, "quantum": "10 ms",
                "physics": {"backend": "kinematic", "dt": "10 ms", "collisions": False},
                "network": {"backend": "ns3", "radio": radio},
                "world": {"arena_lower": [-50, -50, 0], "arena_upper": [50, 50, 10]},
                "groups": [{"name": "n", "count": 2, "layout": {"type": "list", "points": [[0, 0, 1], [5, 0, 1]]},
                            "controller": {"class": "tests.controllers.helpers:Unicaster",
                                           "params": {"targets": [1], "count": 2}}}]}
    result = cosim.run(cosim.from_dict(scenario, "ack.yaml"), out_dir=tmp_path / "run")
    assert result.status == "ok", result.error
    frames = _frames(sorted((tmp_path / "run").rglob("*-0-0.pcap"))[0])
    assert [k for k, _ in frames] == ["DATA", "ACK", "DATA", "ACK"]
    assert [r for _, r in frames] == [data, expected, data, expected]
