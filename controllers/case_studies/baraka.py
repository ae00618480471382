"""BARAKA's help-request task (paper 001, section 6): a mote asks for a robot; the robot travels
through the sensor network hop by hop, choosing each hop from its own routing table as a data
packet would (AntHocNet), and avoids a wall with its IR sensors.

Messages (port 7) carry a type, the request's origin and id, the paper's three flags (ra: robot
acknowledgement, ma: mote acknowledgement, a: arrived) and the robot's expected maximum time per
hop. Help requests are flooded by the motes (each relays a request once, after a random jitter).

`HelpMote` (figure 9): `request` - flood the request; without a robot's answer within
`reply_timeout` flood again, at most `tries` times, then give up. `wait` - the robot that was
assigned keeps the mote posted; silence longer than its announced time per hop drops it and the
request starts over; its `arrived` message fulfils the request.

`HelpRobot` (figure 10): `request assignment` (answer within `reply_timeout`, `tries` times);
`find next hop` - pick neighbour n towards the mote with probability r(n)^2 / sum r^2, r = H for
the mote itself and 1/hops otherwise; `request next hop` - no route: message the mote to start a
route discovery and wait (`reply_timeout`, `tries`); `go to next hop` - drive there, steering
round obstacles seen by the range sensor; at `invalidate_m` forget that hop in the routing table
and message the mote (a new discovery), at `reached_m` take the next hop; more than `hop_timeout`
on one hop: give up. Near the mote (`arrive_m`) it reports arrival.
"""

from __future__ import annotations

import math
import struct
from dataclasses import dataclass

import numpy as np

from controllers import Controller, Message

PORT = 7
_MSG = struct.Struct("<4sBHHBBBfB")  # magic, type, origin mote, request id, ra, ma, a, max hop time, ttl
REQUEST, ASSIGN, ANSWER, KEEPALIVE, ARRIVED, GIVEUP, PROBE = range(1, 8)


def pack(kind: int, origin: int, req: int, ra: bool = False, ma: bool = False, a: bool = False,
         hop_time: float = 0.0, ttl: int = 0) -> bytes:
    return _MSG.pack(b"BRKA", kind, origin, req, ra, ma, a, hop_time, ttl)


def unpack(payload: bytes) -> tuple | None:
    if len(payload) != _MSG.size or payload[:4] != b"BRKA":
        return None
    return _MSG.unpack(payload)[1:]


class HelpMote(Controller):
    @dataclass(frozen=True)
    class Params:
        requester: int = -1
        """The mote (node id) that asks for help; every mote relays requests."""
        request_at: float = 10.0
        reply_timeout: float = 30.0
        tries: int = 3
        flood_ttl: int = 10
        relay_jitter: float = 0.05
        """A relayed request waits a uniform random time up to this (s)."""

        def __post_init__(self) -> None:
            if self.reply_timeout <= 0 or self.tries < 1 or self.flood_ttl < 1 or self.relay_jitter < 0:
                raise ValueError("reply_timeout must be > 0 s, tries and flood_ttl >= 1, relay_jitter >= 0 s")

    period = None

    def setup(self) -> None:
        self.relayed: set[tuple[int, int]] = set()
        self.state = "idle"
        self.req = 0
        self.deadline_token = 0
        if self.id == self.params.requester:
            self.after(self.params.request_at, self._start_request)

    # -- requester -----------------------------------------------------------------------------
    def _start_request(self) -> None:
        self.state = "request"
        self.tries = 0
        self.robot_id = None
        self._flood_request()

    def _flood_request(self) -> None:
        if self.state != "request":
            return
        if self.tries >= self.params.tries:
            self.state = "gave_up"
            self.record("mote_gave_up", self.now)
            return
        self.tries += 1
        self.req += 1
        self.record("help_request", self.req)
        self.relayed.add((self.id, self.req))
        self.net.broadcast(pack(REQUEST, self.id, self.req, ttl=self.params.flood_ttl), PORT)
        req = self.req
        self.after(self.params.reply_timeout, lambda: self.req == req and self._flood_request())

    def _expect_robot(self, hop_time: float) -> None:
        self.deadline_token += 1
        token = self.deadline_token
        self.after(max(hop_time, 1.0), lambda: self._robot_silent(token))

    def _robot_silent(self, token: int) -> None:
        if self.state == "wait" and token == self.deadline_token:
            self.record("robot_dropped", self.robot_id)
            self._start_request()

    def on_message(self, msg: Message) -> None:
        m = unpack(msg.payload)
        if m is None:
            return
        kind, origin, req, ra, _ma, a, hop_time, ttl = m
        if kind == REQUEST:
            if (origin, req) not in self.relayed and ttl > 1:
                self.relayed.add((origin, req))
                frame = pack(REQUEST, origin, req, ttl=ttl - 1)
                # jitter (RFC 5148): neighbours that heard the same frame would otherwise all send at
                # once, and 802.11 broadcasts that collide are lost
                self.after(float(self.rng.uniform(0.0, self.params.relay_jitter)), lambda: self.net.broadcast(frame, PORT))
            return
        if origin != self.id or self.id != self.params.requester:
            return
        if kind == ASSIGN and ra:
            ok = self.state == "request" or (self.state == "wait" and msg.src == self.robot_id)
            self.net.send(msg.src, pack(ANSWER, self.id, req, ma=ok), PORT)
            if ok:
                self.state = "wait"
                self.robot_id = msg.src
                self.record("robot_assigned", msg.src)
                self._expect_robot(hop_time)
        elif kind in (KEEPALIVE, PROBE) and self.state == "wait" and msg.src == self.robot_id:
            self._expect_robot(hop_time)
        elif kind == ARRIVED and a and self.state == "wait" and msg.src == self.robot_id:
            self.state = "fulfilled"
            self.record("request_fulfilled", self.now)
        elif kind == GIVEUP and self.state == "wait" and msg.src == self.robot_id:
            self._start_request()


class HelpRobot(Controller):
    @dataclass(frozen=True)
    class Params:
        speed: float = 1.0
        reply_timeout: float = 30.0
        tries: int = 3
        hop_timeout: float = 300.0
        invalidate_m: float = 10.0
        reached_m: float = 4.0
        arrive_m: float = 10.0
        destination_weight: float = 100.0
        """H in r(.): how strongly the mote itself is preferred as the next hop when it is a neighbour."""
        hop_time: float = 200.0
        """The expected maximum time per hop the robot announces (s)."""
        keepalive_every: float = 10.0
        avoid_m: float = 3.0

        def __post_init__(self) -> None:
            if min(self.speed, self.reply_timeout, self.hop_timeout, self.hop_time, self.keepalive_every) <= 0:
                raise ValueError("speed, reply_timeout, hop_timeout, hop_time and keepalive_every must be > 0")
            if self.tries < 1:
                raise ValueError(f"tries must be >= 1, got {self.tries}")
            if not 0 < self.reached_m < self.invalidate_m:
                raise ValueError(f"expected 0 < reached_m < invalidate_m, got {self.reached_m} and {self.invalidate_m} m")

    period = 0.2

    def setup(self) -> None:
        self.state = "idle"
        self.dest: int | None = None
        self.req = 0
        self.hop: int | None = None
        self.robot.set_velocity(0.0)
        self.every(self.params.keepalive_every, self._keepalive)

    # -- messages ---------------------------------------------------------------------------------
    def _send(self, kind: int, **flags) -> None:
        if self.dest is not None:
            self.net.send(self.dest, pack(kind, self.dest, self.req, hop_time=self.params.hop_time, **flags), PORT)

    def _keepalive(self) -> None:
        if self.state in ("find_next_hop", "request_next_hop", "go_to_hop"):
            self._send(KEEPALIVE, ra=True)

    def on_message(self, msg: Message) -> None:
        m = unpack(msg.payload)
        if m is None:
            return
        kind, origin, req, _ra, ma, _a, _hop_time, _ttl = m
        if kind == REQUEST and self.state == "idle":
            self.dest = origin
            self.req = req  # select destination: the only mote asking
            self.record("request_heard", origin)
            self.state = "assign"
            self.tries = 0
            self._ask_assignment()
        elif kind == ANSWER and self.state == "assign" and origin == self.dest:
            if ma:
                self.record("assigned", origin)
                self.state = "find_next_hop"
            else:
                self._give_up("the mote refused")

    def _ask_assignment(self) -> None:
        if self.state != "assign":
            return
        if self.tries >= self.params.tries:
            self._give_up("no answer to the assignment request")
            return
        self.tries += 1
        self._send(ASSIGN, ra=True)
        self.after(self.params.reply_timeout, self._ask_assignment)

    def _give_up(self, why: str) -> None:
        self.log.info("robot %d gives up: %s", self.id, why)
        self.record("robot_gave_up", self.now)
        self._send(GIVEUP)
        self.state = "idle"
        self.dest = None
        self.hop = None
        self.robot.set_velocity(0.0)

    # -- navigation -----------------------------------------------------------------------------
    def _choose_hop(self) -> int | None:
        rows = self.net.routes().get(self.dest, [])
        if not rows:
            return None
        r = np.array([self.params.destination_weight if e.next_hop == self.dest else 1.0 / max(e.hops, 1) for e in rows])
        p = r ** 2 / np.sum(r ** 2)
        return int(rows[int(self.rng.choice(len(rows), p=p))].next_hop)

    def step(self) -> None:
        s = self.state
        if s == "find_next_hop":
            hop = self._choose_hop()
            if hop is None:
                self.state = "request_next_hop"
                self.tries = 0
                self.asked_at = -math.inf
            else:
                self._go(hop)
        if self.state == "request_next_hop":
            hop = self._choose_hop()
            if hop is not None:
                self._go(hop)
            elif self.now - self.asked_at >= self.params.reply_timeout:
                if self.tries >= self.params.tries:
                    self._give_up("no route to the mote")
                    return
                self.tries += 1
                self.asked_at = self.now
                self._send(PROBE, ra=True)  # the network looks for a route
        if self.state == "go_to_hop":
            self._drive()

    def _go(self, hop: int) -> None:
        self.state = "go_to_hop"
        self.hop = hop
        self.hop_since = self.now
        self.invalidated = False
        self.record("next_hop", hop)

    def _drive(self) -> None:
        p = self.params
        hop = self.hop
        d = self.net.range_to(hop)
        final = hop == self.dest
        if final and d <= p.arrive_m:
            self._send(ARRIVED, ra=True, a=True)
            self.state = "arrived"
            self.record("robot_arrived", self.now)
            self.robot.set_velocity(0.0)
            return
        if not final and d <= p.invalidate_m and not self.invalidated:
            self.invalidated = True
            self.net.invalidate_route(self.dest, hop)
            self.net.discover_route(self.dest)  # a fresh route discovery from here
            self._send(PROBE, ra=True)
        if not final and d <= p.reached_m:
            self.state = "find_next_hop"
            return
        if self.now - self.hop_since > p.hop_timeout:
            self._give_up(f"hop {hop} not reached in {p.hop_timeout:g} s")
            return
        heading = self.robot.heading + self.net.bearing_to(hop)
        self.robot.set_heading(heading + self._avoidance())
        self.robot.set_velocity(p.speed)

    def _avoidance(self) -> float:
        """A heading offset away from obstacles ahead (IR/range rays): turn toward the freer side."""
        sensor = self.robot.sensors.get("range")
        if sensor is None:
            return 0.0
        ranges = self.robot.ranges()
        angles = np.remainder(sensor.angles + math.pi, 2 * math.pi) - math.pi
        ahead = np.abs(angles) <= math.radians(50)
        if not ahead.any() or ranges[ahead].min() > self.params.avoid_m:
            return 0.0
        left = ranges[(angles > 0) & (angles <= math.radians(100))]
        right = ranges[(angles < 0) & (angles >= -math.radians(100))]
        turn = math.radians(75)
        return turn if (left.mean() if len(left) else 0.0) >= (right.mean() if len(right) else 0.0) else -turn
