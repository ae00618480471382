"""MAVLink carried by the simulated network: a ground station in the scenario (`mavlink.ground_station`)
and the served vehicles it talks to.

An outside ground station (QGroundControl, MAVProxy, MAVSDK, pymavlink) writes to the ground-station
robot's UDP port. Each MAVLink frame it sends enters the network at that robot, addressed to the vehicle
robot its target system names (a copy to every vehicle when it names none), through the routing
protocol when the scenario has one; a vehicle reads it only when, and if, the network delivers it. The
vehicles' frames come back the same way and leave on the ground station's UDP port. Each frame sent
into the network is a record `mavlink_msgid` of its sender at that instant (its message id), beside the
network row of its transmission; lost frames are the network's drop rows.
"""

from __future__ import annotations

from typing import Any

from controllers import Controller, Message
from cosim.mavlink.datagrams import Codec, frame_ids
from cosim.mavlink.serve.vehicle_port import EndpointStats, Served, VehiclePort, hand_over

MSGID_RECORD = "mavlink_msgid"
"""The record name that marks a MAVLink frame sent into the network (value: its message id)."""


class GroundStationRelay(Controller):
    """The ground-station robot's controller: frames from the outside ground station into the network,
    frames the network delivers here out to it. `vehicles` maps each served vehicle's system id to its
    robot; `pump` reads the UDP port (the bridge calls it at every poll)."""

    def __init__(self, host: str, port: int, vehicles: dict[int, int]) -> None:
        super().__init__()
        self.udp = VehiclePort(port, host)  # no vehicle of its own: what arrives goes into the network
        self.port = self.udp.port
        self.stats = self.udp.stats
        self.vehicles = dict(vehicles)
        self.sent_frames = 0
        self.delivered_frames = 0

    def pump(self, now: float) -> None:
        """Every frame the outside ground station sent since the last call, into the network now."""
        for msg in self.udp.receive(now):
            self._into_network(msg)

    def _into_network(self, msg: Any) -> None:
        target = getattr(msg, "target_system", 0)
        if target == 0:
            nodes = list(self.vehicles.values())
        else:
            nodes = [self.vehicles[target]] if target in self.vehicles else []
        if not nodes:
            self.stats.foreign += 1
            return
        self.stats.handled += 1
        frame = bytes(msg.get_msgbuf())
        msgid = frame_ids(msg)[1]
        for node in nodes:
            self.record(MSGID_RECORD, msgid)
            self.net.send(node, frame)
            self.sent_frames += 1

    def on_message(self, msg: Message) -> None:
        """A vehicle's frame the network delivered here: out to the outside ground station."""
        self.delivered_frames += 1
        self.udp.send(msg.payload)

    def close(self) -> None:
        self.udp.close()


class RadioTransport:
    """A served vehicle's link to the ground station through the simulated network, in place of a UDP
    port: what the vehicle sends goes from its robot to the ground-station robot; what the network
    delivers to its robot is handed to the vehicle (VehicleRelay)."""

    signing_key = None
    port = 0

    def __init__(self, relay: VehicleRelay, gcs_node: int) -> None:
        self.relay = relay
        self.gcs_node = gcs_node
        self.vehicles: list[Served] = []
        self.stats = EndpointStats()
        self.codec = Codec(0, 0, None)

    @property
    def peers(self) -> list[tuple[str, int]]:
        """Where telemetry goes: the ground-station robot (a vehicle's radio sends whether or not
        anyone listens)."""
        return [("node", self.gcs_node)]

    def add(self, vehicle: Served) -> None:
        self.vehicles.append(vehicle)

    def send(self, buf: bytes) -> None:
        """One frame from the vehicle's robot into the network: to the ground station, and to every other
        robot that has spoken to this vehicle (a controller on another vehicle)."""
        for node in [self.gcs_node, *self.relay.peers]:
            self.relay.send_frame(node, buf)

    def poll(self, now: float) -> None:
        """Let the vehicle send what is due now (nothing to read: frames arrive as the network delivers them)."""
        for v in self.vehicles:
            v.begin(now)
            v.end()

    def deliver(self, payload: bytes, now: float) -> None:
        """A frame the network delivered to the vehicle's robot, handled now."""
        hand_over(self.vehicles, lambda: self.codec.parse(payload), self.stats, now)

    def close(self) -> None:
        """Nothing to release: the network carries the frames."""


class BothWays:
    """A served vehicle reached through the simulated network and on its own UDP port too
    (`mavlink.serve[].direct`): what it sends goes out on both; what either brings is handled."""

    signing_key = None

    def __init__(self, radio: RadioTransport, udp: VehiclePort) -> None:
        self.radio = radio
        self.udp = udp
        self.port = udp.port
        self.stats = udp.stats

    @property
    def peers(self) -> list[tuple[str, int]]:
        return self.radio.peers + self.udp.peers

    def add(self, vehicle: Served) -> None:
        self.radio.add(vehicle)
        self.udp.add(vehicle)

    def send(self, buf: bytes) -> None:
        self.radio.send(buf)
        self.udp.send(buf)

    def poll(self, now: float) -> None:
        """Read the UDP port (the bridge polls the radio side with the other relays)."""
        self.udp.poll(now)

    def close(self) -> None:
        """Nothing of its own: the bridge closes the port."""


class VehicleRelay(Controller):
    """A served vehicle robot's controller when MAVLink goes over the network: frames delivered here go
    to the vehicle; the vehicle's frames go out through this robot's radio."""

    def __init__(self, gcs_node: int) -> None:
        super().__init__()
        self.transport = RadioTransport(self, gcs_node)
        self.peers: list[int] = []
        """Robots other than the ground station's that sent this vehicle a frame: they hear it too."""
        self.frames_out = 0
        self.frames_to_station = 0
        self.frames_from_station = 0
        self.frames_in = 0

    def send_frame(self, dst: int, frame: bytes) -> None:
        self.record(MSGID_RECORD, _msgid(frame))
        self.net.send(dst, frame)
        self.frames_out += 1
        self.frames_to_station += dst == self.transport.gcs_node

    def on_message(self, msg: Message) -> None:
        self.frames_in += 1
        self.frames_from_station += msg.src == self.transport.gcs_node
        note_peer(self.peers, msg.src, self.transport.gcs_node)
        self.transport.deliver(msg.payload, self.now)


def note_peer(peers: list[int], src: int, gcs_node: int) -> None:
    """Keep `src` among a vehicle's peers (in order, once) unless it is the ground station."""
    if src != gcs_node and src not in peers:
        peers.append(src)
        peers.sort()


def _msgid(frame: bytes) -> int:
    """The message id of one MAVLink 2 frame (bytes 7-9, little-endian), or MAVLink 1's (byte 5)."""
    if frame[:1] == b"\xfd" and len(frame) >= 10:
        return frame[7] | frame[8] << 8 | frame[9] << 16
    return frame[5] if len(frame) > 5 else -1
