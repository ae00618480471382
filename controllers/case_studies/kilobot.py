"""Kilobot-style programs (Kilombo, paper 002): a robot has two vibration motors (both on: forward;
one on: turn left or right on an arc), short-range infrared messages, and a distance estimate for
each message received, with Gaussian noise. Robots are `diff_drive` bodies (configs/kilombo_*.yaml).

- `OrbitStar` stands still and transmits; `OrbitPlanet` keeps its distance to the star by choosing
  forward / left / right from each distance estimate, and so orbits it.
- `ChainLeader` drives a slow wide circle; `ChainFollower` follows the robot with the id just below
  its own, steering by the message's bearing (an idealisation: Kilobots cannot sense bearings).

Each rule is written once, over numbers or arrays alike (`follow`, `orbit`, `next_send`, `wheels`):
the per-robot programs here and the group controllers in kilobot_group call the same functions.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass

import numpy as np

from controllers import Controller, Message

_ID = struct.Struct("<H")

MOTIONS = ("forward", "left", "right", "stop")
"""A Kilobot's motions; the rules below answer with their index (FORWARD, LEFT, RIGHT, STOP)."""
FORWARD, LEFT, RIGHT, STOP = range(4)


@dataclass(frozen=True)
class KilobotParams:
    """Motion and messaging of a Kilobot: forward speed (m/s); a turn (one motor on) is an arc at
    `turn_speed` (m/s) and `turn_rate` (rad/s); message period (s); the Gaussian noise of each
    distance estimate (m). Kilobots differ robot to robot: calibrate these to yours."""

    forward_speed: float = 0.01
    turn_speed: float = 0.01
    turn_rate: float = 0.15
    message_period: float = 0.5
    distance_noise: float = 0.0

    def __post_init__(self) -> None:
        if min(self.forward_speed, self.turn_speed, self.turn_rate, self.message_period) <= 0 or self.distance_noise < 0:
            raise ValueError("forward_speed, turn_speed, turn_rate and message_period must be > 0, distance_noise >= 0")


def wheels(motion, p: KilobotParams) -> tuple:
    """Forward speed (m/s) and turn rate (rad/s) of each motion: forward; an arc left or right (one
    motor on); stopped."""
    v = np.array([p.forward_speed, p.turn_speed, p.turn_speed, 0.0])[motion]
    w = np.array([0.0, p.turn_rate, -p.turn_rate, 0.0])[motion]
    return v, w


def next_send(next_tx, now: float, period: float):
    """The first time on a robot's message schedule (every `period` from next_tx) after `now`: a
    Kilobot that acts at its loop ticks sends at the first tick at or after its message time."""
    return next_tx + period * np.ceil((now - next_tx) / period + 1e-12)


class Kilobot(Controller):
    """Motors, a periodic message carrying this robot's id, and noisy distance estimates."""

    Params = KilobotParams
    period = None
    FORWARD = "forward"
    LEFT = "left"
    RIGHT = "right"
    STOP = "stop"

    def setup(self) -> None:
        self.motion = self.STOP
        self.set_motion(self.STOP)
        self.every(self.params.message_period, self._transmit, phase=float(self.rng.random()) * self.params.message_period)

    def _transmit(self) -> None:
        self.net.broadcast(_ID.pack(self.id & 0xFFFF))

    def set_motion(self, motion: str) -> None:
        v, w = wheels(MOTIONS.index(motion), self.params)
        self.motion = motion
        self.robot.drive(float(v), float(w))

    def estimate_distance(self, msg: Message) -> float:
        d = self.net.range_to(msg.src)
        if self.params.distance_noise:
            d += float(self.rng.normal(0.0, self.params.distance_noise))
        return d



class OrbitStar(Kilobot):
    """Stands still and transmits."""


@dataclass(frozen=True)
class OrbitParams(KilobotParams):
    desired_distance: float = 0.06
    too_close: float = 0.04

    def __post_init__(self) -> None:
        super().__post_init__()
        if not 0 <= self.too_close < self.desired_distance:
            raise ValueError(f"expected 0 <= too_close < desired_distance, got {self.too_close} and {self.desired_distance} m")


def orbit(d, p: OrbitParams):
    """A planet's motion from its distance estimate d to the star: forward when closer than
    too_close, left when inside the desired distance, else right (a clockwise orbit)."""
    return np.where(d < p.too_close, FORWARD, np.where(d < p.desired_distance, LEFT, RIGHT))


class OrbitPlanet(Kilobot):
    """From each distance estimate d to the star: d < too_close: forward; d < desired: turn left;
    else turn right: a clockwise orbit with the star on the right. Records `distance` (m) at each estimate."""

    Params = OrbitParams

    def on_message(self, msg: Message) -> None:
        d = self.estimate_distance(msg)
        self.record("distance", d)
        self.set_motion(MOTIONS[int(orbit(d, self.params))])


@dataclass(frozen=True)
class ChainParams(KilobotParams):
    follow_distance: float = 0.05
    leader_duty: float = 0.5
    """The leader moves in this fraction of its seconds (its followers, which turn before they drive, need the slack)."""
    aim: float = 0.3
    """A follower drives straight when its predecessor is within this bearing (rad) ahead."""
    leader_turn_every: int = 4
    """The leader turns left one moving second in this many (a wide circle)."""

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.follow_distance <= 0 or not 0 < self.leader_duty <= 1 or self.leader_turn_every < 1 or self.aim <= 0:
            raise ValueError("follow_distance and aim must be > 0, leader_duty within (0, 1], leader_turn_every >= 1")


def follow(d, bearing, p: ChainParams):
    """A follower's motion from the distance and bearing of its predecessor: stopped when closer
    than follow_distance, forward when it is within `aim` ahead, else a turn toward it."""
    return np.where(d < p.follow_distance, STOP, np.where(np.abs(bearing) < p.aim, FORWARD, np.where(bearing > 0, LEFT, RIGHT)))


class ChainLeader(Kilobot):
    """Drives forward, stopping now and then and turning left now and then: a slow wide circle."""

    Params = ChainParams
    period = 1.0

    def setup(self) -> None:
        super().setup()
        self._k = 0
        self._moved = 0.0

    def step(self) -> None:
        self._k += 1
        p = self.params
        self._moved += p.leader_duty
        if self._moved < 1.0:
            self.set_motion(self.STOP)
            return
        self._moved -= 1.0
        self.set_motion(self.LEFT if self._k % max(p.leader_turn_every, 1) == 0 else self.FORWARD)


class ChainFollower(Kilobot):
    """Follows robot id - 1: closer than follow_distance: stop; otherwise turn toward it (left or
    right) until it is within `aim` radians ahead, then forward. Distance-only following proved
    fragile (the chain tore), so this one also reads the bearing of each message, as a
    range-and-bearing board would; real Kilobots cannot. Records `gap` (m) every 5 s."""

    Params = ChainParams

    def setup(self) -> None:
        super().setup()
        self.gap = float("nan")
        self.every(5.0, lambda: self.record("gap", self.gap))

    def on_message(self, msg: Message) -> None:
        if msg.src != self.id - 1:
            return
        d = self.estimate_distance(msg)
        self.gap = d
        self.set_motion(MOTIONS[int(follow(d, self.net.bearing_to(msg.src), self.params))])


class TickedChainFollower(Kilobot):
    """`ChainFollower` acting at Kilombo's loop ticks instead of at each receive time: it transmits at
    the first tick at or after its message time and steers at the next tick by the last message from
    its predecessor. The per-robot twin of `kilobot_group.ChainFollowerGroup` (same instants, same draws)."""

    Params = ChainParams
    period = 0.03225

    def setup(self) -> None:
        self.set_motion(self.STOP)
        self.next_tx = float(self.rng.random()) * self.params.message_period
        self.gap = float("nan")
        self.last: Message | None = None
        self.every(5.0, lambda: self.record("gap", self.gap), phase=5.0)

    def on_message(self, msg: Message) -> None:
        if msg.src == self.id - 1:
            self.last = msg

    def step(self) -> None:
        msg = self.last
        self.last = None
        if msg is not None:
            self.gap = self.net.range_to(msg.src)
            self.set_motion(MOTIONS[int(follow(self.gap, self.net.bearing_to(msg.src), self.params))])
        if self.next_tx <= self.now:
            self.next_tx = float(next_send(self.next_tx, self.now, self.params.message_period))
            self._transmit()


class TickedOrbitPlanet(Kilobot):
    """`OrbitPlanet` acting at Kilombo's loop ticks: it steers by the last message received since the
    previous tick and transmits at the first tick at or after its message time. The per-robot twin
    of `kilobot_group.OrbitPlanetGroup`."""

    Params = OrbitParams
    period = 0.03225

    def setup(self) -> None:
        self.set_motion(self.STOP)
        self.next_tx = float(self.rng.random()) * self.params.message_period
        self.last: Message | None = None

    def on_message(self, msg: Message) -> None:
        self.last = msg

    def step(self) -> None:
        msg = self.last
        self.last = None
        if msg is not None:
            d = self.estimate_distance(msg)
            self.record("distance", d)
            self.set_motion(MOTIONS[int(orbit(d, self.params))])
        if self.next_tx <= self.now:
            self.next_tx = float(next_send(self.next_tx, self.now, self.params.message_period))
            self._transmit()
