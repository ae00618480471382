"""Several radios per robot: each interface on its own backend and range, chosen when sending,
reported on arrival and in the trace; frames relayed across interfaces keep exact times."""

from __future__ import annotations

import re

import numpy as np
import pyarrow.parquet as pq
import pytest

import cosim
from cosim.errors import ScenarioError

BEACON = "controllers.library.probes:RadioBeacon"


def scenario(uplink: dict, drones: dict, ground: dict, duration: float = 2.0, radio: dict | None = None) -> dict:
    """Two drones 100 m apart with a short radio (20 m) and an uplink; one ground robot 10 m from
    drone 0 with the short radio only."""
    return {
        "name": "two_radios", "seed": 4, "duration": duration, "quantum": "10 ms",
        "physics": {"backend": "kinematic", "dt": "10 ms"},
        "network": {"backend": "fast", "radio": radio or {"pathloss": {"model": "unit_disk", "range_m": 20.0}},
                    "interfaces": [{"name": "uplink", "groups": ["drones"], **uplink}]},
        "world": {"arena_lower": [-50, -50, 0], "arena_upper": [150, 50, 20]},
        "groups": [
            {"name": "drones", "count": 2, "layout": {"type": "list", "points": [[0, 0, 1], [100, 0, 1]]},
             "robot": {"max_speed": 0.0}, "controller": {"class": BEACON, "params": drones}},
            {"name": "ground", "count": 1, "layout": {"type": "list", "points": [[10, 0, 1]]},
             "robot": {"max_speed": 0.0}, "controller": {"class": BEACON, "params": ground}},
        ],
    }


FAST_UPLINK = {"backend": "fast", "radio": {"pathloss": {"model": "unit_disk", "range_m": 200.0}, "bit_rate_bps": 1e6}}


def _run(tmp_path, data, name="run"):
    result = cosim.run(cosim.from_dict(data, source="s.yaml"), out_dir=tmp_path / name)
    assert result.status == "ok", result.error
    net = pq.read_table(result.directory / "trace" / "network.parquet").to_pandas()
    records = result.directory / "trace" / "records.parquet"
    recs = pq.read_table(records).to_pandas() if records.exists() else None
    return result, net, recs


def test_each_radio_has_its_own_range_and_members_and_messages_say_which(tmp_path):
    data = scenario(FAST_UPLINK, {"interfaces": ["radio", "uplink"], "interval": 0.5}, {"interfaces": ["radio"], "interval": 0.5})
    result, net, recs = _run(tmp_path, data)
    heard = {(r.node, r.name) for r in recs.itertuples()}
    assert heard == {(1, "rx_uplink_from_0"), (0, "rx_uplink_from_1"), (2, "rx_radio_from_0"), (0, "rx_radio_from_2")}
    deliveries = net[net.kind == "deliver"]
    assert set(zip(deliveries.src, deliveries.dst, deliveries.iface.astype(str))) == {
        (0, 1, "uplink"), (1, 0, "uplink"), (0, 2, "radio"), (2, 0, "radio")}
    sends = net[net.kind == "send"]
    assert sorted(sends.iface.astype(str).value_counts().items()) == [("radio", 3 * 4), ("uplink", 2 * 4)]
    assert sends.tx_id.is_unique
    again = cosim.run(cosim.from_dict(data, source="s.yaml"), out_dir=tmp_path / "again")
    assert again.metrics["trace_sha256"] == result.metrics["trace_sha256"]


def test_a_relay_across_radios_forwards_at_the_exact_receive_time(tmp_path):
    """Drone 1 hears drone 0 on the uplink and re-broadcasts on its short radio at once: the frame
    reaches nobody (no one is within 20 m of drone 1) but its send time is the uplink's receive time."""
    data = scenario(FAST_UPLINK, {"interfaces": ["uplink"], "interval": 0.5, "start": 0.123, "relay_from": "uplink"},
                    {"interfaces": []}, duration=1.0)
    data["groups"][0]["layout"]["points"] = [[0, 0, 1], [100, 0, 1]]
    _, net, _ = _run(tmp_path, data)
    up = net[(net.kind == "deliver") & (net.iface == "uplink") & (net.dst == 1)].t_ns.to_numpy()
    relayed = net[(net.kind == "send") & (net.iface == "radio") & (net.src == 1)].t_ns.to_numpy()
    assert len(up) == 2 and np.array_equal(up, relayed)
    assert up[0] == 123_000_000 + 160_000 + 100_000  # 20 bytes at 1 Mbit/s, then the fast radio's 100 us latency


def test_an_ns3_radio_beside_a_fast_one_keeps_both_on_time(tmp_path):
    """Drone 0 beacons on an ns-3 802.11b uplink; drone 1, 100 m away, relays each frame at once on
    the fast radio (200 m), which the ground robot hears; the ground robot beacons on the fast radio."""
    ns3 = {"backend": "ns3", "radio": {"standard": "802.11b", "tx_power_dbm": 30.0}}  # about 150 m
    data = scenario(ns3, {"interfaces": ["uplink"], "interval": 0.5, "start": 0.05},
                    {"interfaces": ["radio"], "interval": 0.25}, duration=1.0,
                    radio={"pathloss": {"model": "unit_disk", "range_m": 200.0}})
    drones = data["groups"][0]
    relay = {**drones, "name": "relay", "count": 1, "layout": {"type": "list", "points": [[100, 0, 1]]},
             "controller": {"class": BEACON, "params": {"interfaces": [], "relay_from": "uplink"}}}
    data["groups"] = [{**drones, "count": 1, "layout": {"type": "list", "points": [[0, 0, 1]]}}, relay, data["groups"][1]]
    data["network"]["interfaces"][0]["groups"] = ["drones", "relay"]
    _, net, recs = _run(tmp_path, data)
    up = net[(net.kind == "deliver") & (net.iface == "uplink")]
    assert list(zip(up.src, up.dst)) == [(0, 1), (0, 1)]
    assert (up.t_ns.to_numpy() % 500_000_000 > 50_000_000).all()  # after the beacon: ns-3's backoff and airtime
    relayed = net[(net.kind == "send") & (net.iface == "radio") & (net.src == 1)]
    assert relayed.t_ns.tolist() == up.t_ns.tolist()  # relayed at the exact uplink receive time
    assert {"rx_radio_from_1", "rx_uplink_from_0"} <= set(recs.name)
    assert set(recs[recs.node == 2].name) == {"rx_radio_from_1"}
    assert set(recs[recs.node == 0].name) == {"rx_radio_from_1", "rx_radio_from_2"}


def test_sending_on_a_radio_the_robot_lacks_or_that_does_not_exist_fails_the_run_with_its_name(tmp_path):
    lacking = scenario(FAST_UPLINK, {"interfaces": []}, {"interfaces": ["uplink"], "interval": 0.5})
    result = cosim.run(cosim.from_dict(lacking, source="s.yaml"), out_dir=tmp_path / "lacking")
    assert result.status == "failed" and "node 2 has no interface 'uplink'" in result.error
    unknown = scenario(FAST_UPLINK, {"interfaces": ["wifi"]}, {"interfaces": []})
    result = cosim.run(cosim.from_dict(unknown, source="s.yaml"), out_dir=tmp_path / "unknown")
    assert result.status == "failed" and "no interface 'wifi'; this scenario has radio, uplink" in result.error


@pytest.mark.parametrize("interfaces, message", [
    ([{"name": "uplink", "groups": ["boats"]}], "network.interfaces[0].groups: no group 'boats'; the groups are drones, ground"),
    ([{"name": "up"}, {"name": "up"}], "network.interfaces[1].name: interface name 'up' is used twice"),
    ([{"name": "radio"}], "network.interfaces[0]: an interface name is an identifier other than 'radio'"),
    ([{"name": "a", "backend": "ns3", "radio": {"standard": "802.11b"}},
      {"name": "b", "backend": "ns3", "radio": {"standard": "802.11b"}}],
     "network.interfaces[1].backend: one ns-3 radio per scenario"),
    ([{"name": "a", "backend": "ns3"}],
     "network.interfaces[0].radio.standard: ns-3 models a radio standard and this radio names none; give one of "
     "802.11b, 802.11a, 802.11g, 802.11n, 802.15.4 (ns-3 no longer assumes 802.11b)"),
    ([{"name": "up", "backend": "ns3", "radio": {"contention": {"model": "csma"}}}],
     "network.interfaces[0].radio.contention: ns-3 models medium access itself"),
    ([{"name": "up", "radio": {"obstacle_loss_db": -1}}],
     "network.interfaces[0].radio: obstacle_loss_db must be >= 0 dB per obstacle crossed, got -1"),
])
def test_bad_interfaces_name_the_key(interfaces, message):
    data = scenario(FAST_UPLINK, {}, {})
    data["network"]["interfaces"] = interfaces
    with pytest.raises(ScenarioError, match=re.escape(message)):
        cosim.from_dict(data, source="s.yaml")


def test_a_routing_protocol_sends_on_the_radio_it_chooses_and_applications_see_where_packets_came_in(tmp_path):
    """`direct` over the uplink: 100 m is out of the first radio's 20 m but within the uplink's 200 m."""
    data = scenario(FAST_UPLINK, {"interfaces": []}, {"interfaces": []}, duration=3.0)
    data["network"]["routing"] = {"protocol": "direct", "interface": "uplink"}
    data["groups"][0]["controller"] = {"class": "controllers.library.station:Station"}
    data["groups"][1]["controller"] = {"class": "controllers.library.station:Station"}
    data["traffic"] = [{"pairs": [[0, 1]], "rate": 2.0, "size": 32, "start": 1.0}]
    result, net, _ = _run(tmp_path, data)
    routing = result.metrics["routing"]
    assert routing["data_sent"] == 5 and routing["data_delivered"] == 4  # the last is still in the air at the end
    data_frames = net[(net.kind == "send") & (net.src == 0)]
    assert set(data_frames.iface.astype(str)) == {"uplink"}
    data["network"]["routing"]["interface"] = None  # the first radio does not reach
    first, _, _ = _run(tmp_path, data, "first")
    assert first.metrics["routing"]["data_delivered"] == 0
    data["network"]["routing"]["interface"] = "lte"
    message = "network.routing.interface: no interface 'lte'; this scenario has radio, uplink"
    with pytest.raises(ScenarioError, match=re.escape(message)):
        cosim.from_dict(data, source="s.yaml")
