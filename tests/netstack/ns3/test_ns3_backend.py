"""The ns-3 backend through whole scenarios (802.11b unless stated).

Layouts are drawn in each test's docstring; with ns-3's defaults (16.02 dBm, log-distance exponent 3,
preamble detection at -82 dBm) frames are received up to about 51 m.
"""

import json
import subprocess
import sys

import numpy as np
import pyarrow.parquet as pq
import pytest
import yaml

import cosim
from tests.conftest import ROOT
from tests.netstack.ns3.helpers import ns3_scenario


def records(result) -> dict:
    r = pq.read_table(result.directory / "trace" / "records.parquet").to_pydict()
    out: dict = {}
    for node, name, value in zip(r["node"], r["name"], r["value"]):
        out.setdefault((node, name), []).append(value)
    return out


def network(result) -> dict:
    return pq.read_table(result.directory / "trace" / "network.parquet").to_pydict()


def same_table(a: dict, b: dict) -> bool:
    """Column-wise equality that treats NaN as equal to NaN (sends carry no RSSI)."""
    if a.keys() != b.keys():
        return False
    for k in a:
        x, y = np.array(a[k]), np.array(b[k])
        if x.shape != y.shape:
            return False
        if x.dtype.kind == "f" and not np.array_equal(x, y, equal_nan=True):
            return False
        if x.dtype.kind != "f" and not np.array_equal(x, y):
            return False
    return True


@pytest.mark.parametrize("standard", ["802.11b", "802.11a", "802.11g", "802.11n"])
def test_broadcast_reaches_nodes_in_range_with_plausible_rssi_and_snr(run_dict, standard):
    """n0 broadcasts; n1 at 20 m and n2 at 40 m hear it, n3 at 90 m does not.

        n0 --20 m-- n1 --20 m-- n2 ------50 m------ n3
    """
    data = ns3_scenario([[0, 0, 1], [20, 0, 1], [40, 0, 1], [90, 0, 1]],
                        {"class": "controllers.library.probes:Beacon", "params": {"count": 3}}, standard=standard)
    result = run_dict(data)
    assert result.status == "ok", result.error
    rec = records(result)
    expected = {1: 16.0206 - (46.6777 + 30 * np.log10(20)), 2: 16.0206 - (46.6777 + 30 * np.log10(40))}
    for node, rssi in expected.items():
        assert rec[(node, "rx_from_0")] == pytest.approx([rssi] * 3, abs=0.01)
        snr = rec[(node, "snr_from_0")][0]
        assert 5 < snr < 40  # thermal noise plus the receiver's noise figure
    assert (3, "rx_from_0") not in rec
    assert result.metrics["messages_delivered"] == 6


def test_unicast_is_acked_in_range_and_dropped_out_of_range(run_dict):
    """n0 sends one frame to n1 (30 m) and one to n2 (80 m, beyond the preamble threshold).

        n0 --30 m-- n1 ------50 m------ n2
    """
    data = ns3_scenario([[0, 0, 1], [30, 0, 1], [80, 0, 1]], {"class": "controllers.library.probes:Beacon", "params": {"to": 1}})
    result = run_dict(data)
    net = network(result)
    kinds = list(zip(net["kind"], net["src"], net["dst"]))
    assert ("deliver", 0, 1) in kinds and ("ack", 0, 1) in kinds
    data["groups"][0]["controller"]["params"] = {"to": 2}
    result = run_dict(data)
    net = network(result)
    kinds = list(zip(net["kind"], net["src"], net["dst"]))
    assert ("noack", 0, 2) in kinds and not any(k == "deliver" for k, _, _ in kinds)
    assert result.metrics["unicast_not_acked"] == 1


def chain(quantum: str, seed: int = 3) -> dict:
    """n0 -> n1 -> n2 -> n3 -> n4, 40 m apart (only neighbours hear each other)."""
    return ns3_scenario([[40.0 * i, 0, 1] for i in range(5)],
                        {"class": "controllers.library.relay:ChainRelay",
                         "params": {"first": 0, "last": 4, "start": 0.5037, "messages": 3, "interval": 0.7311}},
                        duration=3.0, quantum=quantum, seed=seed)


def test_five_hop_chain_delay_is_independent_of_the_quantum_and_sums_its_hops(run_dict):
    fine, coarse = run_dict(chain("1 ms")), run_dict(chain("100 ms"))
    d_fine, d_coarse = records(fine)[(4, "delay_s")], records(coarse)[(4, "delay_s")]
    assert len(d_fine) == 3 and d_fine == d_coarse
    net = network(fine)
    # per hop: from the send at node i to the delivery at node i+1; the next send is at that instant
    sends = [(t, s) for t, k, s in zip(net["t_ns"], net["kind"], net["src"]) if k == "send"]
    delivers = [(t, d) for t, k, d in zip(net["t_ns"], net["kind"], net["dst"]) if k == "deliver"]
    assert len(sends) == len(delivers) == 12
    for m in range(3):
        hops = [delivers[4 * m + h][0] - sends[4 * m + h][0] for h in range(4)]
        for h in range(3):
            assert sends[4 * m + h + 1][0] == delivers[4 * m + h][0]  # forwarded at the exact receive time
        assert sum(hops) / 1e9 == pytest.approx(d_fine[m], abs=1e-12)


def crowd(seed: int) -> dict:
    """Five nodes within 15 m unicast to n0 at the same instants: the first attempts collide and the
    retries' random backoff (ns-3's streams) decides who gets through when."""
    points = [[3.0 * i, 2.0 * (i % 2), 1] for i in range(6)]
    params = {"sender": -1, "to": 0, "count": 4, "interval": 0.25}
    return ns3_scenario(points, {"class": "controllers.library.probes:Beacon", "params": params}, duration=1.5, seed=seed)


def test_broadcast_chain_delay_equals_the_sum_of_single_hops_measured_separately(run_dict):
    """Broadcast hops carry no ACKs, so in the chain each hop costs what one hop alone costs:

        alone:  n0 --40 m--> n1                     (measured separately)
        chain:  n0 --> n1 --> n2 --> n3 --> n4       (40 m apart), quantum 1 ms and 100 ms
    """
    def relay(count: int, quantum: str) -> dict:
        params = {"first": 0, "last": count - 1, "start": 0.5037, "messages": 3, "interval": 0.7311, "broadcast": True}
        ctrl = {"class": "controllers.library.relay:ChainRelay", "params": params}
        return ns3_scenario([[40.0 * i, 0, 1] for i in range(count)], ctrl,
                            duration=3.0, quantum=quantum)

    single = records(run_dict(relay(2, "10 ms")))[(1, "delay_s")]
    assert len(single) == 3 and len(set(single)) == 1
    for quantum in ("1 ms", "100 ms"):
        chained = records(run_dict(relay(5, quantum)))[(4, "delay_s")]
        assert chained == pytest.approx([4 * single[0]] * 3, abs=1e-12)


def test_runs_repeat_bit_identically_in_one_process(run_dict):
    a, b, c = run_dict(crowd(8)), run_dict(crowd(8)), run_dict(crowd(9))
    assert a.status == b.status == c.status == "ok"
    assert a.trace_digest == b.trace_digest
    assert same_table(network(a), network(b))
    assert a.trace_digest != c.trace_digest  # ns-3's backoff draws follow the master seed
    assert network(a)["kind"].count("deliver") > 0


def test_runs_repeat_bit_identically_across_processes(tmp_path):
    data = ns3_scenario([[0, 0, 1], [20, 0, 1], [35, 5, 1], [10, 25, 1]],
                        {"class": "controllers.library.probes:Beacon", "params": {"count": 5, "interval": 0.2}},
                        duration=1.5, seed=21)
    data["groups"][0]["controller"]["params"]["sender"] = 0
    path = tmp_path / "s.yaml"
    path.write_text(yaml.safe_dump(data))
    proc = subprocess.Popen([sys.executable, "-m", "cosim.cli", "run", str(path), "--out", str(tmp_path / "p1"), "--quiet"],
                            cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    here = cosim.run(cosim.load(path), out_dir=tmp_path / "p2")  # this process, which has run ns-3 before
    _, err = proc.communicate(timeout=300)
    assert proc.returncode == 0, err[-2000:]
    assert json.loads((tmp_path / "p1" / "metrics.json").read_text())["trace_sha256"] == here.metrics["trace_sha256"]
    n1 = pq.read_table(tmp_path / "p1" / "trace" / "network.parquet").to_pydict()
    assert same_table(n1, pq.read_table(tmp_path / "p2" / "trace" / "network.parquet").to_pydict())
    assert n1["kind"].count("deliver") == 15


def test_oversize_payload_names_the_limit(run_dict):
    beacon = {"class": "controllers.library.probes:Beacon", "params": {"payload": "x" * 3000}}
    data = ns3_scenario([[0, 0, 1], [10, 0, 1]], beacon)
    result = run_dict(data)
    assert result.status == "failed"
    assert "payload of 3000 bytes is too large: 802.11b frames carry at most 2296 bytes" in result.error


def read_pcap(path):
    """A minimal pcap reader: (link type, [frame bytes])."""
    import struct

    raw = path.read_bytes()
    magic, _, _, _, _, _, linktype = struct.unpack("<IHHiIII", raw[:24])
    assert magic == 0xA1B2C3D4, hex(magic)
    frames, off = [], 24
    while off < len(raw):
        _, _, incl, _ = struct.unpack("<IIII", raw[off:off + 16])
        frames.append(raw[off + 16:off + 16 + incl])
        off += 16 + incl
    return linktype, frames


def test_pcap_files_hold_the_frames_sent(run_dict):
    """n0 broadcasts twice to n1 (25 m); both nodes' captures contain the payload."""
    data = ns3_scenario([[0, 0, 1], [25, 0, 1]],
                        {"class": "controllers.library.probes:Beacon", "params": {"count": 2, "payload": "cosim-pcap-check"}},
                        pcap=True)
    result = run_dict(data)
    for node in (0, 1):
        linktype, frames = read_pcap(result.directory / "pcap" / f"node-{node}-0.pcap")
        assert linktype == 127  # IEEE 802.11 with radiotap
        assert sum(b"cosim-pcap-check" in f for f in frames) == 2


def test_802154_broadcast_unicast_lqi_and_no_ack(run_dict):
    """802.15.4 at 0 dBm: n1 (10 m) and n2 (25 m) hear n0; n3 (300 m) does not.

        n0 --10 m-- n1 --15 m-- n2 -------- 275 m -------- n3
    """
    points = [[0, 0, 0], [10, 0, 0], [25, 0, 0], [300, 0, 0]]
    beacon = {"class": "controllers.library.probes:Beacon", "params": {"count": 2}}
    data = ns3_scenario(points, beacon, standard="802.15.4", tx_power_dbm=0.0)
    result = run_dict(data)
    assert result.status == "ok", result.error
    net = network(result)
    rows = [(d, r, q) for k, d, r, q in zip(net["kind"], net["dst"], net["rssi_dbm"], net["lqi"]) if k == "deliver"]
    assert sorted({d for d, _, _ in rows}) == [1, 2]
    for d, r, q in rows:
        assert r == pytest.approx(0.0 - (46.6777 + 30 * np.log10(points[d][0])), abs=1e-6)
        assert 0 <= q <= 255
    data["groups"][0]["controller"]["params"] = {"to": 2}
    kinds = network(run_dict(data))["kind"]
    assert kinds.count("ack") == 1 and kinds.count("noack") == 0
    data["groups"][0]["controller"]["params"] = {"to": 3}
    result = run_dict(data)
    assert network(result)["kind"].count("noack") == 1 and result.metrics["messages_delivered"] == 0


def test_802154_payload_limit_names_the_frame_size(run_dict):
    data = ns3_scenario([[0, 0, 0], [5, 0, 0]], {"class": "controllers.library.probes:Beacon", "params": {"payload": "y" * 117}},
                        standard="802.15.4")
    result = run_dict(data)
    assert "payload of 117 bytes is too large: 802.15.4 frames are 127 bytes" in result.error
    data["groups"][0]["controller"]["params"] = {"payload": "y" * 116}
    assert run_dict(data).metrics["messages_delivered"] == 1


def test_802154_pcap(run_dict):
    beacon = {"class": "controllers.library.probes:Beacon", "params": {"payload": "mote-frame"}}
    data = ns3_scenario([[0, 0, 0], [5, 0, 0]], beacon,
                        standard="802.15.4", pcap=True)
    result = run_dict(data)
    linktype, frames = read_pcap(result.directory / "pcap" / "node-1-0.pcap")
    assert linktype == 195  # IEEE 802.15.4 with FCS
    assert sum(b"mote-frame" in f for f in frames) == 1
