"""PX4's ground-station link as the PX4 stand-in runs it (cosim.mavlink.sitl.px4_gcs_link): to its
default port until someone writes, then to the first writer only."""

from __future__ import annotations

import socket
import time

from cosim.mavlink.sitl.px4_gcs_link import Px4GcsLink
from cosim.mavlink.sitl.radio_relay import CLAIMS_BEFORE_WARNING, FirmwareRelay


def test_px4s_ground_station_link_sends_to_its_default_port_until_a_datagram_names_its_partner():
    remote, claimant, other = (socket.socket(socket.AF_INET, socket.SOCK_DGRAM) for _ in range(3))
    for s in (remote, claimant, other):
        s.bind(("127.0.0.1", 0))
        s.settimeout(2.0)
    link = Px4GcsLink(0, remote_port=remote.getsockname()[1])
    try:
        link.send(b"before")
        assert remote.recvfrom(100)[0] == b"before"
        claimant.sendto(b"", ("127.0.0.1", link.port))  # empty: no MAVLink, but a partner
        other.sendto(b"", ("127.0.0.1", link.port))  # too late: the first one stays
        time.sleep(0.05)
        link.poll(0.0)
        link.send(b"after")
        assert claimant.recvfrom(100)[0] == b"after"
        assert link.partner == claimant.getsockname() and link.adopted
    finally:
        link.close()
        for s in (remote, claimant, other):
            s.close()


def test_a_relay_whose_px4_never_answers_says_why_it_may_be_and_counts_its_claims(caplog):
    silent = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)  # bound, but never answers (another partner)
    silent.bind(("127.0.0.1", 0))
    relay = FirmwareRelay("127.0.0.1", 0, 0, 1, claim=silent.getsockname())
    try:
        for _ in range(CLAIMS_BEFORE_WARNING):
            relay.pump()
        assert relay.claims == CLAIMS_BEFORE_WARNING and not relay.heard
        assert "has not answered 250 claims" in caplog.text and "QGroundControl" in caplog.text
        assert silent.recvfrom(10)[0] == b""  # the claims carry no MAVLink
    finally:
        relay.close()
        silent.close()
