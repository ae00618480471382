"""Kilombo's example programs written against kilolib (controllers.kilolib), in the C programs'
shape: module-level state becomes attributes, kilolib's globals become methods.

- Orbit: `OrbitStar` sends; `OrbitPlanet` keeps `desired_distance` from it by distance alone.
- Follow-the-leader: a chain by id; the `Leader` walks in cycles of moving and waiting, each
  `Follower` zig-zags towards the robot ahead by distance alone, and a robot waits while the one
  ahead is too close or the one behind too far (Kilombo's follow example's rules, our code).
- Edge-following: `EdgeSeed` robots stand and send; an `EdgeFollower` keeps `desired_distance`
  from the nearest of them, and so travels clockwise round the group's edge.

Each records `distance` (mm) at every decision, for the tests and the docs.
"""

from __future__ import annotations

from dataclasses import dataclass

from controllers.kilolib.api import KiloParams, KiloProgram
from controllers.kilolib.messages import NORMAL, RGB, distance_measurement_t, message_crc, message_t

STOP, FORWARD, LEFT, RIGHT = range(4)


class Mover(KiloProgram):
    """kilolib's usual `set_motion` helper, shared by the programs below."""

    current_motion = STOP

    def set_motion(self, new_motion: int) -> None:
        if self.current_motion != new_motion:
            self.current_motion = new_motion
            if new_motion == STOP:
                self.set_motors(0, 0)
            elif new_motion == FORWARD:
                self.spinup_motors()
                self.set_motors(self.kilo_straight_left, self.kilo_straight_right)
            elif new_motion == LEFT:
                self.spinup_motors()
                self.set_motors(self.kilo_turn_left, 0)
            else:
                self.spinup_motors()
                self.set_motors(0, self.kilo_turn_right)


class Beacon(KiloProgram):
    """Stands still and sends its id."""

    def setup(self) -> None:
        self.message = message_t()
        self.message.type = NORMAL
        self.message.data[0] = self.kilo_uid & 0xFF
        self.message.crc = message_crc(self.message)
        self.set_color(RGB(1, 0, 0))

    def message_tx(self) -> message_t:
        return self.message


OrbitStar = Beacon
EdgeSeed = Beacon


@dataclass(frozen=True)
class OrbitParams(KiloParams):
    too_close_distance: int = 40
    desired_distance: int = 60


class OrbitPlanet(Mover):
    Params = OrbitParams

    def setup(self) -> None:
        self.new_message = 0
        self.distance = 0
        self.set_color(RGB(0, 1, 0))

    def loop(self) -> None:
        if self.new_message == 1:
            self.new_message = 0
            self.record("distance", self.distance)
            if self.distance < self.params.too_close_distance:
                self.set_motion(FORWARD)
            elif self.distance < self.params.desired_distance:
                self.set_motion(LEFT)
            else:
                self.set_motion(RIGHT)

    def message_rx(self, m: message_t, d: distance_measurement_t) -> None:
        self.new_message = 1
        self.distance = self.estimate_distance(d)


@dataclass(frozen=True)
class ChainParams(KiloParams):
    d_min: int = 45
    """Wait when this close to the robot ahead."""
    d_max: int = 65
    """Wait when the robot behind is this far."""
    t_cycle: int = 70
    t_move: int = 40
    dead_ticks: int = 80


class ChainRobot(Mover):
    """Robot `kilo_uid` of a chain: hears the robots ahead (uid - 1) and behind (uid + 1), and walks
    only when neither is too far or too close (one robot of a pair moves at a time)."""

    Params = ChainParams

    def setup(self) -> None:
        self.message = message_t()
        self.message.data[0] = self.kilo_uid & 0xFF
        self.message.crc = message_crc(self.message)
        self.heard: dict[int, tuple[int, int]] = {}  # uid -> (distance, kilo_ticks)
        self.cycle_time = 0
        self.cycles = 0
        self.state = FORWARD

    def message_tx(self) -> message_t:
        return self.message

    def message_rx(self, m: message_t, d: distance_measurement_t) -> None:
        self.heard[m.data[0]] = (self.estimate_distance(d), self.kilo_ticks)

    def distance_to(self, uid: int) -> int:
        """Distance to robot `uid` if heard in the last second, else 255."""
        dist, t = self.heard.get(uid & 0xFF, (255, -10**9))
        return dist if self.kilo_ticks - t <= 32 else 255

    def must_wait(self) -> bool:
        ahead = self.distance_to(self.kilo_uid - 1)
        behind = self.distance_to(self.kilo_uid + 1)
        return (self.kilo_uid > 0 and ahead < self.params.d_min) or (behind != 255 and behind > self.params.d_max)


class Leader(ChainRobot):
    """Moves `t_move` ticks of every `t_cycle`, forward, turning left one cycle in four, while its
    follower keeps up."""

    def loop(self) -> None:
        self.set_color(RGB(1, 1, 1))
        self.cycle_time += 1
        if self.must_wait() or self.cycle_time >= self.params.t_move:
            self.set_motion(STOP)
        else:
            self.set_motion(self.state)
        if self.cycle_time >= self.params.t_cycle:
            self.cycle_time = 0
            self.cycles += 1
            self.state = LEFT if self.cycles % 4 == 0 else FORWARD


class Follower(ChainRobot):
    """Zig-zags towards the robot ahead by pivoting left or right, and switches side when the
    distance starts to grow again (after `dead_ticks` to settle)."""

    def setup(self) -> None:
        ChainRobot.setup(self)
        self.state = LEFT
        self.best = 255
        self.change_ticks = 0

    def loop(self) -> None:
        d = self.distance_to(self.kilo_uid - 1)
        if self.kilo_ticks % 8 == 0 and d != 255:
            self.record("distance", d)
        if d == 255 or self.must_wait():
            self.set_motion(STOP)
            self.best = d
            return
        if self.change_ticks > 0:
            self.change_ticks -= 1
            if self.change_ticks == 0:
                self.best = d
        elif d > self.best:  # past the closest point on this side: the other side now
            self.state = RIGHT if self.state == LEFT else LEFT
            self.best = d
            self.change_ticks = self.params.dead_ticks
        else:
            self.best = min(self.best, d)
        self.set_motion(self.state)


@dataclass(frozen=True)
class EdgeParams(KiloParams):
    desired_distance: int = 55
    memory_ticks: int = 32


class EdgeFollower(Mover):
    Params = EdgeParams

    def setup(self) -> None:
        self.heard: dict[int, tuple[int, int]] = {}  # sender -> (distance, kilo_ticks)
        self.set_color(RGB(0, 0, 1))

    def loop(self) -> None:
        now = self.kilo_ticks
        recent = [dist for dist, t in self.heard.values() if now - t <= self.params.memory_ticks]
        if not recent:
            self.set_motion(RIGHT)  # lost: turn towards where the group was
            return
        nearest = min(recent)
        if now % 8 == 0:
            self.record("distance", nearest)
        self.set_motion(LEFT if nearest < self.params.desired_distance else RIGHT)

    def message_rx(self, m: message_t, d: distance_measurement_t) -> None:
        self.heard[m.data[0]] = (self.estimate_distance(d), self.kilo_ticks)
