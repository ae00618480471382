"""A program that draws from kilolib's rand_soft, compiled and in Python, for the draw tests; compiled
controllers that send, steer and record, for the general core's tests; and both kinds crossing into
each other's commands over their one context (kilolib's library in a controller, refused motors and
drives)."""

from typing import ClassVar

import numpy as np

from controllers.compiled import CompiledController, Program, core
from controllers.compiled.core import send, set_velocity
from controllers.compiled.kilolib import RGB, kilo_ticks, kilo_uid, rand_soft, record, set_color, set_motors
from controllers.kilolib import KiloProgram


class Dice(Program):
    """Each loop: a soft random byte, recorded; motors and colour from it."""

    fields: ClassVar[dict] = {"rolls": np.int64}
    records: ClassVar[tuple] = ("draw",)

    def loop(s, k):
        v = rand_soft(k)
        s.rolls += 1
        record(k, "draw", v)
        set_color(k, RGB(v & 3, (v >> 2) & 3, 0))
        set_motors(k, 70 if v & 1 else 0, 70 if v & 2 else 0)


class DicePy(KiloProgram):
    """Dice in Python."""

    def loop(self) -> None:
        v = self.rand_soft()
        self.record("draw", v)
        self.set_color(RGB(v & 3, (v >> 2) & 3, 0))
        self.set_motors(70 if v & 1 else 0, 70 if v & 2 else 0)


class Pinger(CompiledController):
    """Every step: a unicast to node 0 carrying a count, and a velocity command that grows with it."""

    period = 0.1
    fields: ClassVar[dict] = {"count": np.int64}
    payload_bytes: ClassVar[int] = 3

    def step(s, k):
        s.count += 1
        row = send(k, 0)
        row[0], row[1], row[2] = 7, s.count & 0xFF, k.me
        set_velocity(k, 0.1 * s.count, 0.0, 0.0)


class Counter(CompiledController):
    """Counts what it hears and records each message's second byte, sender, range and length."""

    period = None
    fields: ClassVar[dict] = {"heard": np.int64}
    payload_bytes: ClassVar[int] = 2
    records: ClassVar[tuple] = ("seq", "sender", "range", "length")

    def on_message(s, k, m):
        s.heard += 1
        core.record(k, "seq", m.payload[1])
        core.record(k, "sender", m.src)
        core.record(k, "range", core.range_to(k, m.src))
        core.record(k, "length", m.length)


class Cruiser(CompiledController):
    """Flies forward at 0.5 m/s from its first step on."""

    period = 0.2
    fields: ClassVar[dict] = {"steps": np.int64}

    def step(s, k):
        s.steps += 1
        set_velocity(k, 0.5, 0.0, 0.0)


class Ranger(CompiledController):
    """Asks for the range to node 1 at every step."""

    period = 0.2
    fields: ClassVar[dict] = {"d": np.float64}

    def step(s, k):
        s.d = core.range_to(k, 1)


class LateStarter(CompiledController):
    """Starts a 50 ms beacon (a random phase) at its first step from 0.2 s on, and another from the
    first message it hears after that; each beacon broadcasts its count and records it."""

    period = 0.1
    fields: ClassVar[dict] = {"started": np.int64, "count": np.int64}
    payload_bytes: ClassVar[int] = 2
    records: ClassVar[tuple] = ("beacon",)
    timers: ClassVar[tuple] = ("beacon",)

    def step(s, k):
        if s.started == 0 and k.now >= 0.2:
            s.started = 1
            core.every(k, "beacon", 0.05, np.nan)

    def on_message(s, k, m):
        if s.started == 1:
            s.started = 2
            core.every(k, "beacon", 0.07, 0.01)

    def beacon(s, k):
        s.count += 1
        row = core.broadcast(k)
        row[0], row[1] = k.me, s.count & 0xFF
        core.record(k, "beacon", s.count)


class RssiReader(CompiledController):
    """Records the RSSI of every message it hears."""

    period = None
    records: ClassVar[tuple] = ("rssi",)

    def on_message(s, k, m):
        core.record(k, "rssi", m.rssi_dbm)


class Echo(CompiledController):
    """Robot 0 broadcasts a hop count of 0 every step; every robot records each message's hop count and
    sender and broadcasts it again, one hop more, while the count is under 3 (replies sent from within
    a reception, at the instant other robots still receive the frame replied to)."""

    period = 0.2
    payload_bytes: ClassVar[int] = 2
    records: ClassVar[tuple] = ("hops", "sender")

    def step(s, k):
        if k.me == 0:
            row = core.broadcast(k)
            row[0], row[1] = 0, 0

    def on_message(s, k, m):
        core.record(k, "hops", m.payload[0])
        core.record(k, "sender", m.payload[1])
        if m.payload[0] < 3:
            row = core.broadcast(k)
            row[0], row[1] = m.payload[0] + 1, k.me


class Driver(Program):
    """A kilolib program that gives a general controller's drive command: refused when it compiles."""

    fields: ClassVar[dict] = {"n": np.int64}

    def loop(s, k):
        s.n += 1
        if s.n == 3:
            core.drive(k, 0.1, 0.0)


class MotorController(CompiledController):
    """A compiled controller that sets kilolib's motors, which would move nothing: refused when it runs."""

    period = 0.1
    fields: ClassVar[dict] = {"n": np.int64}

    def step(s, k):
        s.n += 1
        if s.n == 2:
            set_motors(k, 70, 70)


class KiloClock(CompiledController):
    """kilolib's library in a general controller: its clock, its uid and a soft random byte, recorded."""

    period = 0.1
    records: ClassVar[tuple] = ("ticks", "uid", "soft")

    def step(s, k):
        record(k, "ticks", kilo_ticks(k))
        record(k, "uid", kilo_uid(k))
        record(k, "soft", rand_soft(k))


class RecordsThenFails(CompiledController):
    """Records, then raises, in its first step: the run stops with its records left uncollected."""

    period = 0.1
    records: ClassVar[tuple] = ("left_behind",)

    def step(s, k):
        record(k, "left_behind", 1.0)
        raise ValueError("a failing step")
