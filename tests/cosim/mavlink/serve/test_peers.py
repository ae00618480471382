"""Who a served vehicle streams to: bounded, expiring peers; junk and unsigned senders never join;
a flood of senders cannot push out a ground station that keeps talking."""

import logging
import socket

import numpy as np
import pytest
from pymavlink.dialects.v20 import common as mav

from cosim.mavlink.datagrams import Codec
from cosim.mavlink.serve.bodies import QuadBody
from cosim.mavlink.serve.peers import Peers
from cosim.mavlink.serve.vehicle_endpoint import SimVehicleEndpoint
from cosim.mavlink.serve.vehicle_port import VehiclePort
from physics.bodies.quadrotor import AIRFRAMES, QuadrotorBank

KEY = "correct horse battery staple"


def test_peers_are_bounded_refresh_and_expire():
    peers = Peers(limit=2, idle_s=10.0)
    peers.add_fixed(("127.0.0.1", 9))
    assert peers.heard(("127.0.0.1", 1), 0.0) and peers.heard(("127.0.0.1", 2), 1.0)
    assert not peers.heard(("127.0.0.1", 3), 2.0) and peers.stats.refused == 1
    assert peers.heard(("127.0.0.1", 1), 8.0)  # a known one is refreshed while full
    assert peers.expire(11.5) == [("127.0.0.1", 2)] and peers.stats.expired == 1
    assert peers.heard(("127.0.0.1", 3), 12.0)
    assert peers.addresses() == [("127.0.0.1", 9), ("127.0.0.1", 1), ("127.0.0.1", 3)]
    assert peers.heard(("127.0.0.1", 9), 13.0) and len(peers) == 3  # a fixed one takes no slot
    with pytest.raises(ValueError, match="peer limit"):
        Peers(limit=0)



def test_a_restarted_ground_station_takes_the_slot_of_a_sender_gone_quiet():
    peers = Peers()  # the served vehicle's defaults: 16 slots, 30 s idle, 3 s stale
    idle = [("127.0.0.1", 1000 + k) for k in range(16)]
    for k, addr in enumerate(idle):  # sixteen valid senders that each spoke and fell silent
        assert peers.heard(addr, 0.1 * k)
    assert not peers.heard(("127.0.0.1", 1), 2.0)  # all sixteen spoke within 3 s: the slots stay theirs
    assert peers.heard(("127.0.0.1", 2), 5.0)  # the restarted station, long before the 30 s expiry
    assert idle[0] not in peers and peers.stats.displaced == 1 and len(peers) == 16
    assert peers.heard(("127.0.0.1", 2), 6.0)  # it stays while it beats
    for t in range(7, 40):
        peers.heard(("127.0.0.1", 2), float(t))
        for k in range(2, 40):  # newcomers keep taking the quiet senders' slots, never the live one's
            peers.heard(("127.0.0.1", 3000 + k), float(t))
        assert ("127.0.0.1", 2) in peers
    with pytest.raises(ValueError, match="stale time"):
        Peers(idle_s=2.0, stale_s=3.0)

class Station:
    """A UDP socket speaking MAVLink 2 (signed with `key` if given)."""

    def __init__(self, key=None, component: int = 190) -> None:
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.sock.bind(("127.0.0.1", 0))
        self.sock.setblocking(False)
        self.addr = self.sock.getsockname()
        self.codec = Codec(255, component, key)

    def beat(self, port: int) -> None:
        hb = mav.MAVLink_heartbeat_message(mav.MAV_TYPE_GCS, mav.MAV_AUTOPILOT_INVALID, 0, 0, 0, 3)
        self.sock.sendto(self.codec.pack(hb), ("127.0.0.1", port))

    def received(self) -> int:
        n = 0
        while True:
            try:
                n += len(self.codec.parse(self.sock.recv(65536)))
            except BlockingIOError:
                return n


def served(key=None, **kw):
    bank = QuadrotorBank([AIRFRAMES["crazyflie"]], np.array([[0.0, 0.0, 0.0]]))
    port = VehiclePort(0, signing_key=key, **kw)
    SimVehicleEndpoint(QuadBody(bank, 0), port, signing_key=key)
    return port


def test_a_flood_of_senders_cannot_crowd_out_the_ground_station(caplog):
    port = served(max_peers=4, peer_idle_s=5.0)
    gcs = Station()
    gcs.beat(port.port)
    port.poll(0.0)
    junk = [Station() for _ in range(50)]
    for s in junk:  # bytes that are not MAVLink
        s.sock.sendto(b"\xfd\x09garbage" + bytes(range(40)), ("127.0.0.1", port.port))
    with caplog.at_level(logging.WARNING):
        port.poll(0.5)
    assert port.peers == [gcs.addr] and port.stats.malformed >= 50
    assert 1 <= sum("malformed" in r.message for r in caplog.records) <= 6  # rate-limited
    chatty = [Station() for _ in range(50)]
    for s in chatty:  # valid MAVLink from 50 senders: 3 free slots
        s.beat(port.port)
    port.poll(1.0)
    assert len(port.peers) == 4 and port.peers[0] == gcs.addr and port.stats.crowded == 47
    gcs.received()
    for t in np.arange(1.5, 8.0, 0.5):  # the ground station beats on; the others fall silent
        if t % 1.0 == 0:
            gcs.beat(port.port)
        port.poll(float(t))
    assert port.peers == [gcs.addr]  # the silent ones expired after 5 s
    assert gcs.received() > 50  # telemetry kept coming
    port.close()


def test_with_signing_only_signed_senders_become_peers():
    port = served(KEY)
    # three components: signing keeps a timestamp per (link, system, component), which must rise
    unsigned, wrong, signed = Station(), Station("another key", 191), Station(KEY, 192)
    for s in (unsigned, wrong, signed):
        s.beat(port.port)
    port.poll(0.0)
    assert port.peers == [signed.addr]
    assert port.stats.rejected_signature == 2
    port.poll(1.0)
    assert signed.received() > 0 and unsigned.received() == 0
    port.close()


def _serve_vehicle(*args, env=None):
    import os
    import subprocess
    import sys

    cmd = [sys.executable, "-m", "cosim.cli", "serve-vehicle", "--port", "0", "--duration", "3", *args]
    return subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env={**os.environ, **(env or {})})


def test_serve_vehicle_signs_with_the_key_from_the_environment():
    import re
    import time

    proc = _serve_vehicle("--signing-key-env", "COSIM_PEER_KEY", env={"COSIM_PEER_KEY": KEY})
    line = proc.stdout.readline()
    port = int(re.search(r"udp 127\.0\.0\.1:(\d+)", line).group(1))
    signed, unsigned = Station(KEY), Station()
    got_signed = got_unsigned = 0
    end = time.monotonic() + 2.0
    while time.monotonic() < end:
        signed.beat(port)
        unsigned.beat(port)
        time.sleep(0.2)
        got_signed += signed.received()
        got_unsigned += unsigned.received()
    proc.communicate(timeout=10)
    assert proc.returncode == 0
    assert got_signed > 0 and got_unsigned == 0


def test_serve_vehicle_names_a_missing_key_variable():
    proc = _serve_vehicle("--signing-key-env", "COSIM_NO_SUCH_KEY_VAR")
    _, err = proc.communicate(timeout=30)
    assert proc.returncode == 2
    assert "COSIM_NO_SUCH_KEY_VAR" in err and "not set" in err


def test_serve_vehicle_cold_start_has_no_position_until_its_time():
    """`--cold-start 1.5`: heartbeats at once, a position (EKF and GPS) only after 1.5 s."""
    import re
    import time

    from cosim.mavlink.client.adapter import MavlinkLink, MavlinkVehicle
    from cosim.mavlink.client.readiness import await_ready, stage
    from cosim.mavlink.personality import ARDUPILOT

    proc = _serve_vehicle("--cold-start", "1.5")
    port = int(re.search(r"udp 127\.0\.0\.1:(\d+)", proc.stdout.readline()).group(1))
    link = MavlinkLink("127.0.0.1", port)
    v = MavlinkVehicle(link, 1, ARDUPILOT)
    said: list[str] = []
    t0 = time.monotonic()
    try:
        ready = await_ready(v, 10.0, said.append)  # ready at 1.5 s; a busy machine may run the vehicle late
        waited = time.monotonic() - t0
    finally:
        link.close()
        proc.communicate(timeout=10)
    assert ready.ready and 1.3 < waited < 10.0  # never before its cold start
    assert any("no position yet (EKF: no horizontal position" in t for t in said) and stage(v).ready


def test_serve_vehicle_refuses_a_negative_cold_start():
    proc = _serve_vehicle("--cold-start", "-1")
    _, err = proc.communicate(timeout=30)
    assert proc.returncode == 2 and "--cold-start" in err and ">= 0 s, got -1.0" in err
