"""Lock-stepped firmware's MAVLink carried by the simulated network (`mavlink.sitl[].mavlink_port` with
`mavlink.ground_station`).

The firmware of robot k sends its MAVLink to UDP host:mavlink_port + 10 k (`--serial0
udpclient:127.0.0.1:<port>`). Each frame it sent enters the network at its robot, addressed to the
ground-station robot; each frame the network delivers to its robot is written back to the firmware.
Both happen while the firmware waits for the physics' next answer (the coupling takes its next servo
frame before the timeline moves on), so what it has sent and what it reads next are fixed by the
simulated time alone, and the run repeats from its seed.

PX4 instance k listens instead, on its ground-station link (UDP mavlink_port + k; PX4's startup script
gives 18570 + k), and sends to whoever wrote to it first (cosim.mavlink.sitl.px4_gcs_link). Its relay
writes it empty datagrams, which carry no MAVLink, until its first frame arrives: PX4 then sends
nowhere else. PX4 sends from threads of its own, so when a frame goes out beside the lock-step is up
to them: a PX4 run does not repeat bit for bit.
"""

from __future__ import annotations

import logging
import time

from controllers import Controller, Message
from cosim.mavlink.datagrams import Codec, frame_ids
from cosim.mavlink.radio_link import MSGID_RECORD, note_peer
from cosim.mavlink.serve.vehicle_port import bound_socket
from cosim.mavlink.spec import SitlSpec

log = logging.getLogger(__name__)
CLAIMS_BEFORE_WARNING = 250
"""Unanswered claims of a PX4 link before the relay warns (5 s of simulated time at the 20 ms poll)."""
SETTLE_S = 0.0005
"""Wall time given to loopback datagrams the kernel still holds: a datagram sent from one CPU may reach
its socket after a later one sent from another. Before a poll reads the firmwares' MAVLink, so that
what a firmware sent before its last servo frame is read at this poll in every run; and after a frame
is written to a firmware, so that it is there when the firmware next reads, before our next answer."""


class FirmwareRelay(Controller):
    """A firmware-flown robot's controller when its MAVLink goes over the network. `pump` (the bridge
    calls it at every poll) sends what the firmware wrote since; `on_message` writes to the firmware.
    With `claim` (a firmware that listens, PX4's host and port) the relay's own port is any free one."""

    def __init__(self, host: str, port: int, gcs_node: int, sysid: int, claim: tuple[str, int] | None = None) -> None:
        super().__init__()
        self.sock = bound_socket(host, port)
        self.sock.setblocking(False)
        self.port = self.sock.getsockname()[1]
        self.gcs_node = gcs_node
        self.sysid = sysid
        self.codec = Codec(0, 0, None)
        self.firmware: tuple[str, int] | None = claim
        self.claim = claim
        self.heard = False
        """True once the firmware has sent a frame here."""
        self.claims = 0
        """Empty datagrams sent to claim a listening firmware (PX4) before it answered."""
        self.peers: list[int] = []
        """Robots other than the ground station's that sent this firmware a frame: they hear it too."""
        self.frames_out = 0
        self.frames_to_station = 0
        self.frames_from_station = 0
        self.frames_in = 0
        self.unheard = 0
        """Frames delivered before the firmware had sent anything (nowhere to write them)."""
        self.foreign = 0
        """Frames from the firmware whose system id is not this robot's (`--sysid` not given?)."""

    def pump(self) -> None:
        """Every frame the firmware sent since the last call, into the network now: to the ground station,
        and to every other robot that has spoken to it."""
        if self.claim is not None and not self.heard:
            self._claim()
        while True:
            try:
                data, addr = self.sock.recvfrom(65536)
            except (BlockingIOError, ConnectionRefusedError):
                return
            self.firmware = addr
            self.heard = True
            for msg in self.codec.parse(data):
                sysid, msgid = frame_ids(msg)  # relayed whether or not our dialect knows the message
                if sysid != self.sysid:
                    self._foreign(sysid)
                    continue
                for node in [self.gcs_node, *self.peers]:
                    self.record(MSGID_RECORD, msgid)
                    self.net.send(node, bytes(msg.get_msgbuf()))
                    self.frames_out += 1
                self.frames_to_station += 1

    def _claim(self) -> None:
        """One empty datagram to the firmware that listens (PX4), which makes this relay its partner;
        after CLAIMS_BEFORE_WARNING unanswered ones, a warning with the likely cause."""
        self.claims += 1
        try:
            self.sock.sendto(b"", self.claim)
        except OSError:  # PX4 not listening yet (an ICMP refusal reported here): claimed again next poll
            pass
        if self.claims == CLAIMS_BEFORE_WARNING:
            log.warning("robot %d: PX4's ground-station link at %s:%d has not answered %d claims; is PX4 running, "
                        "and did another program (QGroundControl, MAVProxy) write to that port first? PX4 sends "
                        "only to the first that wrote", self.id, *self.claim, self.claims)

    def _foreign(self, sysid: int) -> None:
        self.foreign += 1
        if self.foreign == 1:
            log.warning("robot %d: its firmware speaks as MAVLink system %d, not %d (start it with --sysid %d); its "
                        "frames are not relayed", self.id, sysid, self.sysid, self.sysid)

    def on_message(self, msg: Message) -> None:
        """A frame the network delivered to this robot: to the firmware, which reads it in its next loop."""
        self.frames_in += 1
        self.frames_from_station += msg.src == self.gcs_node
        note_peer(self.peers, msg.src, self.gcs_node)
        if self.firmware is None:
            self.unheard += 1
            return
        self.sock.sendto(msg.payload, self.firmware)
        time.sleep(SETTLE_S)  # in the firmware's socket before it runs its next frame, in every run

    def close(self) -> None:
        self.sock.close()


def firmware_relay(e: SitlSpec, k: int, gcs_node: int) -> FirmwareRelay:
    """The relay of robot k of entry `e`: ArduPilot sends to its port mavlink_port + 10 k; PX4 listens
    on mavlink_port + k."""
    if e.autopilot == "px4":
        return FirmwareRelay(e.host, 0, gcs_node, e.first_sysid + k, claim=(e.host, e.mavlink_instance_port(k)))
    return FirmwareRelay(e.host, e.mavlink_instance_port(k), gcs_node, e.first_sysid + k)
