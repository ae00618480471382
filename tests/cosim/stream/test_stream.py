"""The live ZeroMQ stream, read by a subscriber in another process (docs/stream_subscriber.py)."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys

import numpy as np
import pyarrow.parquet as pq
import pytest
import zmq

import cosim
from cosim.errors import ScenarioError
from cosim.stream.wire import STATE_TOPIC, decode, encode
from tests.conftest import ROOT, base_scenario


def _tcp_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _run(tmp_path, stream: dict, duration: float = 2.0, count: int = 20, controller: dict | None = None):
    data = base_scenario(duration=duration, output={"trace": {"positions_every": 0.5}, "stream": stream})
    data["groups"][0]["count"] = count
    if controller is not None:
        data["groups"][0]["controller"] = controller
    return cosim.run(cosim.from_dict(data, source="test.yaml"), out_dir=tmp_path / "run")


def test_a_subscriber_in_another_process_sees_every_publication_in_order(tmp_path):
    url = f"tcp://127.0.0.1:{_tcp_port()}"
    sub = subprocess.Popen([sys.executable, str(ROOT / "docs" / "stream_subscriber.py"), url, "--json", "--timeout", "30"],
                           stdout=subprocess.PIPE, text=True)
    try:
        result = _run(tmp_path, {"url": url, "every": 10, "wait_for": 1, "wait_s": 30})
        out, _ = sub.communicate(timeout=30)
    finally:
        sub.kill()
    lines = [json.loads(line) for line in out.splitlines()]
    states = [m for m in lines if m["topic"] == "cosim.v1.state"]
    assert len(states) == 21  # every 10 quanta of 10 ms over 2 s, both ends included
    assert [m["seq"] for m in lines] == list(range(22)) and lines[-1]["topic"] == "cosim.v1.end"
    assert [m["t_ns"] for m in states] == [k * 100_000_000 for k in range(21)]
    assert sum(m["deliveries"] for m in states) == result.metrics["messages_delivered"]
    assert sum(m["sends"] for m in states) == result.metrics["messages_sent"]
    assert {m["alive"] for m in states} == {20}
    assert result.metrics["stream"] == {"url": url, "published": 22, "dropped": 0, "ignored_from_subscribers": 0,
                                        "wall_s": result.metrics["stream"]["wall_s"]}


def test_a_subscriber_that_never_reads_does_not_block_the_run(tmp_path):
    url = f"tcp://127.0.0.1:{_tcp_port()}"
    ctx = zmq.Context.instance()
    idle = ctx.socket(zmq.SUB)
    idle.setsockopt(zmq.RCVHWM, 1)
    idle.setsockopt(zmq.RCVBUF, 4096)
    idle.setsockopt(zmq.SUBSCRIBE, b"")
    idle.connect(url)
    try:
        result = _run(tmp_path, {"url": url, "every": 1, "hwm": 2, "wait_for": 1, "wait_s": 30}, duration=6.0, count=60)
    finally:
        idle.close(linger=0)
    m = result.metrics["stream"]
    assert m["published"] + m["dropped"] == 602  # 601 states (every quantum over 6 s) and the end
    assert m["dropped"] > 0
    assert result.status == "ok"


def test_the_wire_format_round_trips_and_refuses_other_versions():
    pos = np.arange(6, dtype=np.float64).reshape(2, 3)
    frames = encode(STATE_TOPIC, 7, 123, 2, {"pos": pos, "alive": np.array([1, 0], np.uint8)}, [(5, 1, "crash", "wall")], 3)
    topic, header, arrays = decode(frames)
    assert topic == "cosim.v1.state" and header["seq"] == 7 and header["dropped"] == 3
    assert header["events"] == [[5, 1, "crash", "wall"]]
    assert np.array_equal(arrays["pos"], pos) and arrays["alive"].tolist() == [1, 0]
    frames[1] = json.dumps(json.loads(frames[1]) | {"version": 2}).encode()
    with pytest.raises(ValueError, match="stream version 2; this reader knows version 1"):
        decode(frames)


def test_bad_stream_settings_name_the_key():
    with pytest.raises(ScenarioError, match=r"output.stream: url 'tcp://0.0.0.0:5556' listens on every interface"):
        cosim.from_dict(base_scenario(output={"stream": {"url": "tcp://0.0.0.0:5556"}}), source="s.yaml")
    with pytest.raises(ScenarioError, match=r"output.stream: url must be tcp://HOST:PORT or ipc://PATH, got 'udp://x:1'"):
        cosim.from_dict(base_scenario(output={"stream": {"url": "udp://x:1"}}), source="s.yaml")
    with pytest.raises(ScenarioError, match=r"output.stream: url 'tcp://127.0.0.1:70000': a TCP port is within 1..65535"):
        cosim.from_dict(base_scenario(output={"stream": {"url": "tcp://127.0.0.1:70000"}}), source="s.yaml")
    with pytest.raises(ScenarioError, match=r"output.stream: every must be >= 1 quantum, got 0"):
        cosim.from_dict(base_scenario(output={"stream": {"url": "tcp://127.0.0.1:1", "every": 0}}), source="s.yaml")


def test_a_busy_port_fails_the_run_naming_the_key(tmp_path):
    with socket.socket() as held:
        held.bind(("127.0.0.1", 0))
        held.listen()
        url = f"tcp://127.0.0.1:{held.getsockname()[1]}"
        result = _run(tmp_path, {"url": url})
    assert result.status == "failed"
    assert f"output.stream.url: cannot listen on {url}" in result.error


@pytest.mark.parametrize("host", ["0", "0.0", "0x0", "0.0.0.0", "*", "00", "0x00000000"])
def test_every_spelling_of_every_interface_is_refused(host):
    with pytest.raises(ScenarioError, match="listens on every interface"):
        cosim.from_dict(base_scenario(output={"stream": {"url": f"tcp://{host}:5556"}}), source="s.yaml")


def test_named_and_loopback_hosts_are_accepted():
    for host in ("127.0.0.1", "localhost", "10.1.2.3"):
        spec = cosim.from_dict(base_scenario(output={"stream": {"url": f"tcp://{host}:5556"}}), source="s.yaml")
        assert spec.output.stream.url == f"tcp://{host}:5556"  # kept as written: the publisher binds that host


def test_a_flood_of_subscriptions_and_junk_neither_stalls_the_run_nor_hides_the_stream(tmp_path):
    """An XSUB client sends 60,000 distinct subscriptions and as many junk messages while a real
    subscriber listens: the run finishes every publication (reading at most DRAIN_LIMIT of them per
    publication), and the subscriber sees them all."""
    url = f"tcp://127.0.0.1:{_tcp_port()}"
    ctx = zmq.Context()
    flood = ctx.socket(zmq.XSUB)
    flood.setsockopt(zmq.SNDHWM, 0)
    flood.connect(url)
    reader = ctx.socket(zmq.SUB)
    reader.setsockopt(zmq.SUBSCRIBE, STATE_TOPIC)
    reader.connect(url)
    for k in range(60_000):
        flood.send(b"\x01junk-%d" % k)
        flood.send(b"not a subscription %d" % k)
    try:
        result = _run(tmp_path, {"url": url, "every": 10, "wait_for": 1, "wait_s": 30}, duration=2.0)
        seen = 0
        while reader.poll(2000, zmq.POLLIN):
            frames = reader.recv_multipart()
            assert frames[0] == STATE_TOPIC
            seen += 1
    finally:
        flood.close(linger=0)
        reader.close(linger=0)
        ctx.term()
    assert result.status == "ok"
    m = result.metrics["stream"]
    assert m["published"] == 21 + 1 and m["dropped"] == 0  # 21 states (every 100 ms over 2 s) and the end
    assert seen >= 21, m  # junk subscriptions neither start the run nor take effect: every state publication


LONG_SUBSCRIBER = """
import sys, time, zmq
sock = zmq.Context().socket(zmq.XSUB)
sock.setsockopt(zmq.SNDHWM, 0)
sock.connect(sys.argv[1])
sock.send(b"\\x01")  # joins (the run waits for it), then subscribes to 20,000 distinct 1 KB topics
for k in range(20_000):
    sock.send(b"\\x01" + b"%08d" % k * 125)
time.sleep(30)
"""


def _rss_mb() -> float:
    return int(open("/proc/self/statm").read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 1e6


def test_long_subscriptions_cannot_grow_the_runs_memory(tmp_path):
    """libzmq keeps every subscription a subscriber makes, a node per byte, for as long as it stays
    connected: 20,000 distinct 1 KB subscriptions grew the run by about 960 MB. A subscriber that
    sends more than MAX_UPSTREAM_BYTES is now disconnected, and all it subscribed to forgotten."""
    url = f"tcp://127.0.0.1:{_tcp_port()}"
    _run(tmp_path / "warm", {"url": url}, duration=0.2)  # allocations of a first run, before measuring
    sub = subprocess.Popen([sys.executable, "-c", LONG_SUBSCRIBER, url])
    try:
        before = _rss_mb()
        result = _run(tmp_path, {"url": url, "every": 1, "wait_for": 1, "wait_s": 30}, duration=3.0)
        grown = _rss_mb() - before
    finally:
        sub.kill()
        sub.wait()
    assert result.status == "ok" and result.metrics["stream"]["published"] == 301 + 1
    assert grown < 100, f"the run grew by {grown:.0f} MB"


FLOODER = """
import sys, time, zmq
sock = zmq.Context().socket(zmq.XSUB)
sock.setsockopt(zmq.SNDHWM, 0)
sock.connect(sys.argv[1])
sock.send(b"\\x01")  # joins (the run waits for it), then sends junk without pause
end = time.monotonic() + float(sys.argv[2])
k = 0
while time.monotonic() < end:
    for _ in range(1000):
        sock.send(b"junk %d" % k)
        k += 1
"""


def test_a_sender_that_never_stops_does_not_hold_the_run(tmp_path):
    """Another process sends non-subscription messages without pause for 30 s: the run still
    finishes while it is sending (before, the publisher read until the sender paused)."""
    url = f"tcp://127.0.0.1:{_tcp_port()}"
    flooder = subprocess.Popen([sys.executable, "-c", FLOODER, url, "30"])
    try:
        result = _run(tmp_path, {"url": url, "every": 1, "wait_for": 1, "wait_s": 30}, duration=0.3)
        still_sending = flooder.poll() is None
    finally:
        flooder.kill()
        flooder.wait()
    assert result.status == "ok" and still_sending
    assert result.metrics["stream"]["published"] == 31 + 1
    assert result.metrics["stream"]["ignored_from_subscribers"] >= 1000  # read, counted and dropped


DISTINCT_SUBSCRIBER = """
import sys, time, zmq
sock = zmq.Context().socket(zmq.XSUB)
sock.setsockopt(zmq.SNDHWM, 0)
sock.connect(sys.argv[1])
sock.send(b"\\x01")  # joins (the run waits for it), then subscribes to N distinct 56-byte topics
for k in range(int(sys.argv[2])):
    sock.send(b"\\x01" + b"%08d" % k * 7)
time.sleep(60)
"""


def _flooded_run(tmp_path, count: int, duration: float, controller: dict | None = None):
    url = f"tcp://127.0.0.1:{_tcp_port()}"
    _run(tmp_path / "warm", {"url": url}, duration=0.2)  # allocations of a first run, before measuring
    sub = subprocess.Popen([sys.executable, "-c", DISTINCT_SUBSCRIBER, url, str(count)])
    try:
        before = _rss_mb()
        result = _run(tmp_path, {"url": url, "every": 1, "wait_for": 1, "wait_s": 30}, duration=duration,
                      controller=controller)
        return result, _rss_mb() - before
    finally:
        sub.kill()
        sub.wait()


def test_distinct_subscriptions_cost_the_forwarder_not_the_run(tmp_path):
    """libzmq keeps every distinct subscription (about 2.6 KB for 56 bytes) while its sender stays:
    100,000 of them grew the run by 260 MB. The public socket now lives in a forwarder process."""
    result, grown = _flooded_run(tmp_path, 100_000, 3.0)
    m = result.metrics["stream"]
    assert result.status == "ok" and m["published"] == 301 + 1 and m["ignored_from_subscribers"] > 0
    assert grown < 50, f"the run grew by {grown:.0f} MB"


def test_a_flood_past_the_forwarders_memory_ends_the_stream_not_the_run(tmp_path, caplog):
    """600,000 distinct subscriptions need more than the forwarder's 1 GiB: it dies, the run goes on
    and says so. A controller holds the run at 0.5 s until the forwarder is gone (a busy machine
    once finished the run before the flood had arrived)."""
    hold = {"class": "tests.cosim.stream.holder:HoldUntilForwarderDies"}
    result, grown = _flooded_run(tmp_path, 600_000, 2.0, controller=hold)
    records = pq.read_table(result.directory / "trace" / "records.parquet").to_pydict()
    assert records["name"] == ["forwarders_seen"] and records["value"] == [1.0]  # it held on the forwarder
    m = result.metrics["stream"]
    assert result.status == "ok" and m["published"] is None and "forwarder stopped" in m["forwarder"]
    assert grown < 50, f"the run grew by {grown:.0f} MB"
    assert any("its stream ended early" in r.message for r in caplog.records)


def test_the_forwarder_checks_the_endpoint_it_bound():
    """A name that resolves to the unspecified address passes the spelling check; the forwarder
    refuses what libzmq reports it bound."""
    from cosim.stream.forwarder import TOPICS, bound_everywhere
    from cosim.stream.wire import END_TOPIC

    assert bound_everywhere("tcp://0.0.0.0:5556") and bound_everywhere("tcp://[::]:5556")
    assert not bound_everywhere("tcp://127.0.0.1:5556") and not bound_everywhere("ipc:///tmp/x")
    assert TOPICS == (STATE_TOPIC, END_TOPIC)  # the forwarder's own spelling of the wire's topics
