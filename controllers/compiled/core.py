"""The one context of a compiled robot's callback, `k` (a `Ctl`), and what a compiled general controller
(`controllers.compiled.CompiledController`) calls inside its callbacks: the same commands as `robot`
and `net`, as functions of `k`. Compiled kilolib programs (controllers.compiled.kilolib) get the same
context; kilolib's functions are a library over it.

    drive(k, v, w)                set_velocity(k, vx, vy, vz)     row = broadcast(k)    row = send(k, dst)
    range_to(k, node)             bearing_to(k, node)             record(k, "name", value)
    every(k, "callback", period, phase)                           uniform(k)            normal(k, mu, sigma)

`k` is a `Ctl`: the time, this robot's node id, its parameters, its own random stream, its kilolib
record, and the buffers the commands fill; the engine applies them when the callback returns (drive
or velocity, then the messages in the order they were made, then records and timers). A message is a fixed-size row of
`payload_bytes` bytes that the callback fills in place. A received message is an `Msg`; range_to
and bearing_to measure as `net.range_to` and `net.bearing_to` do, from the poses at the call.
"""

from __future__ import annotations

import math
import zlib
from collections import namedtuple

import numpy as np
from numba import njit, types
from numba.core.errors import TypingError
from numba.extending import overload

from controllers.compiled.channels import literal_channel
from physics.kernels import remainder

Ctl = namedtuple("Ctl", ["now", "t_ns", "me", "params", "gens", "gi", "io", "pos", "heading", "cmd", "out_dst",
                         "out_payload", "out_n", "rec_i", "rec_v", "rec_n", "timers", "timer_n"])
"""One call's context: the time (s and ns), this robot's node id, its parameters (`k.params.x`), its
random stream (`gens[gi]`), its kilolib record (`io`: kilolib.IO_DTYPE, a view into the engine's
array), every node's position and heading (net.poses()), and the buffers: the motion command (kind,
a, b, c), the outbox (destination, payload rows, count), records (rows of time (ns), node, channel;
values; count) and timer requests (callback, period, phase)."""

Msg = namedtuple("Msg", ["src", "t", "length", "payload", "rssi_dbm"])
"""A received message: sender, receive time (s), true length (bytes), its first `payload_bytes` bytes
(zero-padded), and the received signal strength (dBm)."""

NO_COMMAND, DRIVE, VELOCITY = 0, 1, 2
OUTBOX = 16
"""Messages one callback may make."""
RECORDS = 4096
"""Records one callback may leave (the buffers hold at least this many)."""
TIMERS = 16
"""Timers one callback may start."""
BROADCAST_DST = -1
TWO_PI = 2.0 * math.pi


def command_buffers(payload_bytes: int) -> tuple[np.ndarray, ...]:
    """One call's command buffers, empty: the motion command, the outbox (destinations, payload rows,
    count) and the timer requests with their count (Ctl's fields from `cmd` to `out_n`, `timers`,
    `timer_n`)."""
    return (np.zeros(4), np.zeros(OUTBOX, np.int64), np.zeros((OUTBOX, payload_bytes), np.uint8), np.zeros(1, np.int64),
            np.zeros((TIMERS, 3)), np.zeros(1, np.int64))


@njit(cache=True, inline="always")
def pending(k: Ctl) -> bool:
    """Whether the call left commands for the engine to apply."""
    return k.cmd[0] != NO_COMMAND or k.out_n[0] > 0 or k.rec_n[0] > 0 or k.timer_n[0] > 0


@njit(cache=True, inline="always")
def no_motors(k: Ctl) -> None:
    """After a general controller's callback: kilolib's motors are refused (they would move nothing)."""
    if k.io.motor_l or k.io.motor_r:
        raise ValueError("set_motors is a kilolib program's: a compiled controller moves with drive or set_velocity")


NO_POS, NO_HEADING = np.zeros((0, 3)), np.zeros(0)
NO_CMD, NO_OUT_DST, NO_OUT_PAYLOAD, NO_OUT_N, NO_TIMERS, NO_TIMER_N = command_buffers(0)
"""What a kilolib program's context holds for the poses (none: a Kilobot measures by infrared) and a
general controller's command buffers. Compiled code reads them as module globals, which numba
freezes read-only: a program calling drive, set_velocity, broadcast, send or every is refused when
it compiles (codegen.controller_command names the line), and the context costs no arguments to pass."""


@njit(cache=True, inline="always")
def drive(k: Ctl, v: float, w: float) -> None:
    """Drive at v (m/s) turning at w (rad/s), as robot.drive (the last motion command of a call wins)."""
    k.cmd[0], k.cmd[1], k.cmd[2], k.cmd[3] = DRIVE, v, w, 0.0


@njit(cache=True, inline="always")
def set_velocity(k: Ctl, vx: float, vy: float, vz: float) -> None:
    """Velocity in the robot's frame (m/s), as robot.set_velocity."""
    k.cmd[0], k.cmd[1], k.cmd[2], k.cmd[3] = VELOCITY, vx, vy, vz


@njit(cache=True, inline="always")
def _message(k: Ctl, dst: int) -> np.ndarray:
    n = k.out_n[0]
    if n >= len(k.out_dst):
        raise ValueError("a compiled callback made more messages than its outbox holds (core.OUTBOX)")
    k.out_dst[n] = dst
    k.out_n[0] = n + 1
    row = k.out_payload[n]
    row[:] = 0
    return row


@njit(cache=True, inline="always")
def broadcast(k: Ctl) -> np.ndarray:
    """A broadcast (net.broadcast) of the row returned, which the callback fills (payload_bytes bytes)."""
    return _message(k, BROADCAST_DST)


@njit(cache=True, inline="always")
def send(k: Ctl, dst: int) -> np.ndarray:
    """A message to node dst (net.send) of the row returned, which the callback fills."""
    if dst < 0:
        raise ValueError("send(k, dst): dst must be a node id (>= 0); use broadcast(k) for everyone")
    return _message(k, dst)


@njit(cache=True, inline="always")
def _posed(k: Ctl, node: int) -> None:
    if not (0 <= node < len(k.pos) and 0 <= k.me < len(k.pos)):
        raise ValueError("range_to/bearing_to: no pose known for that node here (a kilolib program measures with "
                         "estimate_distance; a vehicle flying over MAVLink on its own has no simulated network: run it "
                         "as a ghost in a scenario to give it one)")


@njit(cache=True, inline="always")
def range_to(k: Ctl, node: int) -> float:
    """The true distance (m) to node `node` now (net.range_to's arithmetic)."""
    _posed(k, node)
    p, me = k.pos, k.me
    d0, d1, d2 = p[node, 0] - p[me, 0], p[node, 1] - p[me, 1], p[node, 2] - p[me, 2]
    return math.sqrt(d0 * d0 + d1 * d1 + d2 * d2)


@njit(cache=True, inline="always")
def bearing_to(k: Ctl, node: int) -> float:
    """The true bearing (rad, this robot's frame, counter-clockwise) to node `node` now (net.bearing_to's
    arithmetic, math.remainder included)."""
    _posed(k, node)
    p, me = k.pos, k.me
    return remainder(math.atan2(p[node, 1] - p[me, 1], p[node, 0] - p[me, 0]) - k.heading[me], TWO_PI)


@njit(cache=True, inline="always")
def uniform(k: Ctl) -> float:
    """A draw in [0, 1) from this robot's stream (the controller's rng.random())."""
    return k.gens[k.gi].random()


@njit(cache=True, inline="always")
def normal(k: Ctl, mu: float, sigma: float) -> float:
    """A Gaussian draw from this robot's stream (the controller's rng.normal(mu, sigma))."""
    return k.gens[k.gi].normal(mu, sigma)


@njit(cache=True, inline="always")
def append_record(rec_i: np.ndarray, rec_v: np.ndarray, rec_n: np.ndarray, t_ns: int, node: int, ch: int,
                  value: float) -> None:
    """A record row (time (ns), node, channel; value) after the `rec_n[0]` rows already there: the one
    layout every compiled callback, per robot or per group, records in."""
    n = rec_n[0]
    if n >= len(rec_v):
        raise ValueError("a compiled callback left more records than its buffer holds (core.RECORDS; group.RECORDS a step)")
    rec_i[n, 0], rec_i[n, 1], rec_i[n, 2] = t_ns, node, ch
    rec_v[n] = value
    rec_n[0] = n + 1


@njit(cache=True, inline="always")
def put(k: Ctl, ch: int, value: float) -> None:
    """A record row (now, this robot, channel `ch`, value)."""
    append_record(k.rec_i, k.rec_v, k.rec_n, k.t_ns, k.me, ch, value)


def record(k: Ctl, name: str, value: float) -> None:
    """Append (time, robot, name, value) to the trace's records (inside compiled code only)."""
    raise TypeError("record(k, name, value) runs inside compiled callbacks only")


@overload(record)
def _record(k, name, value):
    ch = literal_channel(name, "record(k, ")
    if ch is None:
        return None

    def impl(k, name, value):
        put(k, ch, float(value))
    return impl


TIMER_NAMES: dict[str, int] = {}
"""The timer callbacks compiled controllers declare, each with its number (a stable hash of the
name: compiled code keeps it, so it must be the same in every process)."""


def timer_number(name: str) -> int:
    """The number `every(k, name, ...)` writes for timer callback `name`; registers the name."""
    number = zlib.crc32(name.encode()) & 0x7FFFFFFF
    clash = next((other for other, q in TIMER_NAMES.items() if q == number and other != name), None)
    if clash is not None:
        raise ValueError(f"timer names {clash!r} and {name!r} collide; rename one")
    TIMER_NAMES[name] = number
    return number


def every(k: Ctl, name: str, period: float, phase: float) -> None:
    """Call the controller's callback `name` every `period` s, first after `phase` s (NaN: a seeded
    random phase, as Controller.every with no phase). Inside compiled code only."""
    raise TypeError("every(k, name, period, phase) runs inside compiled controllers only")


@overload(every)
def _every(k, name, period, phase):
    if not isinstance(name, types.StringLiteral):
        return None
    if name.literal_value not in TIMER_NAMES:
        raise TypingError(f"every(k, {name.literal_value!r}, ...): list {name.literal_value!r} in the controller's "
                          "`timers`")
    number = TIMER_NAMES[name.literal_value]

    def impl(k, name, period, phase):
        n = k.timer_n[0]
        if n >= len(k.timers):
            raise ValueError("a compiled callback started more timers than its buffer holds (core.TIMERS)")
        if not period > 0.0:
            raise ValueError("every(k, name, period, phase): period must be > 0 seconds")
        k.timers[n, 0], k.timers[n, 1], k.timers[n, 2] = number, period, phase
        k.timer_n[0] = n + 1
    return impl
