"""ns-3's AODV, OLSR and DSDV as baselines, and AntHocNet on ns-3, on a static five-node chain.

802.11b at 2 Mbit/s, two-ray ground, range 300 m; nodes 200 m apart, so only neighbours hear
each other and n0 reaches n4 in four hops::

    n0 --200 m-- n1 --200 m-- n2 --200 m-- n3 --200 m-- n4
"""

import pyarrow.parquet as pq
import pytest

import cosim
from cosim.errors import ScenarioError
from tests.conftest import ROOT
from tests.netstack.ns3.helpers import ns3_scenario

RADIO = {"data_mode": "DsssRate2Mbps", "tx_power_dbm": 16.0, "rx_sensitivity_dbm": -76.0, "preamble_min_rssi_dbm": -76.0,
         "pathloss": {"model": "two_ray", "frequency_hz": 2.4e9, "antenna_height_m": 1.5}}


def chain(protocol: str, duration: float = 30.0) -> dict:
    data = ns3_scenario([[200.0 * i, 0.0, 0.0] for i in range(5)], {"class": "controllers.library.station:Station"},
                        duration=duration, quantum="100 ms", **RADIO)
    data["physics"] = {"backend": "kinematic", "dt": "100 ms", "collisions": False}
    data["network"]["routing"] = {"protocol": protocol}
    # traffic from 20 s: DSDV's periodic updates (every 15 s) need that long to spread four hops
    data["traffic"] = [{"pairs": [[0, 4], [4, 2]], "rate": 2.0, "size": 64, "start": 20.0}]
    return data


@pytest.mark.parametrize("protocol", ["aodv", "olsr", "dsdv", "anthocnet"])
def test_each_protocol_carries_traffic_over_four_hops(tmp_path, protocol):
    result = cosim.run(cosim.from_dict(chain(protocol), source="chain.yaml"), out_dir=tmp_path / protocol)
    assert result.status == "ok", result.error
    r = result.metrics["routing"]
    assert r["protocol"] == protocol
    assert r["data_sent"] == 2 * 21  # 2 sessions x (20 s .. 30 s at 2 per second, both ends included)
    assert r["delivery_ratio"] >= 0.85, r
    assert r["control_frames"] > 0 and r["control_bytes"] > 0
    # a 4-hop packet at 2 Mbit/s takes milliseconds, not microseconds and not seconds
    assert 0.001 < r["delay_median_s"] < 0.2


def test_ns3_protocols_need_the_ns3_backend():
    data = chain("aodv")
    data["network"] = {"backend": "fast", "routing": {"protocol": "aodv"}}
    with pytest.raises(ScenarioError, match="aodv runs inside ns-3"):
        cosim.from_dict(data, source="chain.yaml")


def test_the_ppsn_scenario_switches_protocol_with_one_key(tmp_path):
    """configs/ppsn2004_manet.yaml for 40 s (about 100 packets) with AntHocNet and with AODV: the same
    mobility and the same sessions (one seed), only the routing differs; both deliver most packets."""
    results = {}
    for protocol in ("anthocnet", "aodv"):
        scenario = cosim.load(ROOT / "configs" / "ppsn2004_manet.yaml",
                              {"duration": 40.0, "network.routing.protocol": protocol})
        results[protocol] = cosim.run(scenario, out_dir=tmp_path / protocol)
        assert results[protocol].status == "ok", results[protocol].error
    pos = {p: pq.read_table(r.directory / "trace" / "positions.parquet").to_pydict() for p, r in results.items()}
    for column in ("t_ns", "node", "x", "y", "vx", "vy"):
        assert pos["anthocnet"][column] == pos["aodv"][column]
    sent = {p: r.metrics["routing"]["data_sent"] for p, r in results.items()}
    assert sent["anthocnet"] == sent["aodv"] > 0
    for r in results.values():
        assert r.metrics["routing"]["delivery_ratio"] > 0.7


def test_a_dsdv_run_does_not_depend_on_earlier_runs_in_the_process(tmp_path):
    """ns-3 hands out random streams from a process-wide counter: unless every model's stream is
    fixed, a run's trace depends on how many runs came before it in the same process (a sweep worker)."""
    first = cosim.run(cosim.from_dict(chain("dsdv"), source="chain.yaml"), out_dir=tmp_path / "a")
    other = cosim.load(ROOT / "configs" / "wifi_ns3.yaml", {"duration": 2.0})
    assert cosim.run(other, out_dir=tmp_path / "other").status == "ok"
    again = cosim.run(cosim.from_dict(chain("dsdv"), source="chain.yaml"), out_dir=tmp_path / "b")
    assert first.trace_digest == again.trace_digest


@pytest.mark.parametrize(("protocol", "key", "value", "expect"), [
    ("olsr", "hello_interval", 0.5, "more"),          # RFC 3626 hellos every 0.5 s instead of 2 s
    ("dsdv", "periodic_update_interval", 5.0, "more"),  # full updates every 5 s instead of 15 s
    ("aodv", "enable_hello", False, "fewer"),          # no hello messages at all
])
def test_baseline_parameters_reach_ns3(tmp_path, protocol, key, value, expect):
    """Each parameter is set on ns-3's protocol: its routing traffic changes the way it must."""
    runs = {}
    for label, params in (("default", {}), ("set", {key: value})):
        data = chain(protocol)
        data["network"]["routing"] = {"protocol": protocol, **params}
        runs[label] = cosim.run(cosim.from_dict(data, source="chain.yaml"), out_dir=tmp_path / label)
        assert runs[label].status == "ok", runs[label].error
    default, changed = (runs[k].metrics["routing"]["control_frames"] for k in ("default", "set"))
    assert (changed > 1.5 * default) if expect == "more" else (changed < 0.7 * default), (default, changed)


@pytest.mark.parametrize(("routing", "message"), [
    ({"protocol": "aodv", "hello_interval": 0}, "network.routing: hello_interval must be a positive duration"),
    ({"protocol": "olsr", "willingness": "eager"},
     "network.routing.willingness: expected one of 'never', 'low', 'default', 'high', 'always', got 'eager'"),
    ({"protocol": "dsdv", "helo": 3}, "network.routing.helo: unknown key; expected one of: enable_buffering, enable_wst"),
    ({"protocol": "dsdv", "weighted_factor": 1.5}, "network.routing: weighted_factor must be within [0, 1], got 1.5"),
])
def test_bad_baseline_parameters_are_refused_naming_the_key(routing, message):
    data = chain("aodv")
    data["network"]["routing"] = routing
    with pytest.raises(ScenarioError) as info:
        cosim.from_dict(data, source="chain.yaml")
    assert str(info.value).startswith(f"chain.yaml: {message}"), str(info.value)


@pytest.mark.parametrize("protocol", ["aodv", "olsr", "dsdv"])
def test_baselines_show_each_hop_and_each_drop_with_its_reason(tmp_path, protocol):
    """On the four-hop chain, with a sixth node out of everyone's reach: delivered packets carry
    their hop count (from the IP TTL), every forwarding node appears in the trace with the packet
    and its hop count, and packets to the unreachable node are dropped with a reason."""
    data = chain(protocol)
    data["groups"][0]["count"] = 6
    data["groups"][0]["layout"]["points"].append([3000.0, 0.0, 0.0])
    data["world"] = {"arena_lower": [-10, -10, 0], "arena_upper": [3010, 10, 10]}
    data["traffic"].append({"pairs": [[0, 5]], "rate": 2.0, "size": 64, "start": 20.0})
    if protocol != "olsr":  # AODV and DSDV hold packets for a route up to 30 s: longer than the traffic runs
        data["network"]["routing"]["max_queue_time"] = 2.0
    result = cosim.run(cosim.from_dict(data, source="chain.yaml"), out_dir=tmp_path / protocol)
    assert result.status == "ok", result.error
    p = pq.read_table(tmp_path / protocol / "trace" / "packets.parquet").to_pydict()
    rows = list(zip(p["kind"], p["node"], p["src"], p["seq"], p["hops"], p["detail"]))
    hops_at = {(src, n) for k, n, src, _, h, d in rows if k == "recv"} and \
        {src: {h for k, n, s, _, h, _ in rows if k == "recv" and s == src} for src in (0, 4)}
    assert hops_at == {0: {4}, 4: {2}}
    forwarders = {n for k, n, s, _, h, d in rows if k == "frame" and d == "data" and s == 0 and h > 1}
    assert forwarders >= {1, 2, 3}
    reasons = {d for k, n, s, _, h, d in rows if k == "drop" and s == 0}
    assert reasons <= {"no_route", "routing", "mac", "arp", "ttl"}
    # the summary's counts: every drop ns-3's IP stack reported, and neighbours as heard one hop away
    # (ends 1, middle 2, the far node 0: at most 8/6), not the origins of delivered datagrams
    assert result.metrics["messages_dropped"] == p["kind"].count("drop") > (0 if protocol != "dsdv" else -1)
    if protocol != "dsdv":  # DSDV broadcasts every 15 s: most samples fall outside the 2 s neighbour timeout
        assert 1.0 <= result.metrics["mean_neighbors"] <= 8 / 6, result.metrics["mean_neighbors"]
    r = result.metrics["routing"]
    assert (r["revisits"], r["duplicate_deliveries"]) == (0, 0)
    if protocol == "dsdv":  # ns-3's DSDV drops what it buffered for an unknown route without a trace
        assert not reasons and r["unaccounted"] >= 15, r
    else:  # OLSR refuses at the source (no route); AODV gives up after its queue time: both say so
        assert reasons and r["unaccounted"] <= 8, r
