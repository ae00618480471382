"""The one context of every compiled callback, `k` (a `Ctl`), and the commands it takes: the same as
`robot` and `net` (or a group's), as functions of `k`. A context has rows, one per robot it speaks
for: a compiled controller's callback and a kilolib program's have one (row 0 is `k.me`), a compiled
group's step one per robot of the group (row i is node `k.me + i`).

Per row (a group step's spelling, controllers.compiled.group, names these without `_row`):

    drive_row(k, i, v, w)         velocity_row(k, i, vx, vy, vz)  row = broadcast_row(k, i)
    row = send_row(k, i, dst)     range_row(k, i, node)           bearing_row(k, i, node)
    record_row(k, i, "name", value)

and for a one-row context the same without the row (a compiled controller's spelling):

    drive(k, v, w)                set_velocity(k, vx, vy, vz)     row = broadcast(k)    row = send(k, dst)
    range_to(k, node)             bearing_to(k, node)             record(k, "name", value)
    every(k, "callback", period, phase)                           uniform(k)            normal(k, mu, sigma)

The engine applies the commands when the callback returns, the same way for every kind: each row's
motion command (the last of the call wins), then timers (a controller's), then the messages in the
order they were made (a message is a fresh zeroed row of `payload_bytes` bytes that the callback
fills in place), with the records written as they are made. A received message is an `Msg` (a
group's step reads them from its inbox, `k.in_*`); range and bearing measure as `net.range_to` and
`net.bearing_to` do, from the poses at the call.
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
from physics.kinematic.kernels import remainder

CTL_FIELDS = ("now", "t_ns", "me", "alive", "params", "gens", "gi", "io", "pos", "heading", "in_dst", "in_src", "in_t",
              "in_len", "in_payload", "cmd", "out_src", "out_dst", "out_payload", "out_n", "rec_i", "rec_v", "rec_n", "timers",
              "timer_n")
Ctl = namedtuple("Ctl", CTL_FIELDS)
"""One call's context: the time (s and ns), the node of row 0, the rows' alive flags, the parameters
(`k.params.x`), the random stream (`gens[gi]`), the kilolib record (`io`: kilolib.IO_DTYPE), every
node's position and heading (net.poses()), the inbox (receiving row, sender, receive time (s),
length, the payload's first `payload_bytes` bytes zero-padded: a group step's; a robot's callback
gets its message as an `Msg`), and the buffers the commands fill: per row the motion command (kind,
a, b, c), the outbox (source row, destination, payload rows, count), records (rows of time (ns),
node, channel; values; count) and timer requests (callback, period, phase)."""

Msg = namedtuple("Msg", ["src", "t", "length", "payload", "rssi_dbm"])
"""A received message: sender, receive time (s), true length (bytes), its first `payload_bytes` bytes
(zero-padded), and the received signal strength (dBm)."""

NO_COMMAND = 0
DRIVE = 1
VELOCITY = 2
BROADCAST_DST = -1
OUTBOX = 16
"""Messages one row may make in one call."""
RECORDS = 4096
"""Records one robot's callback may leave (the buffers hold at least this many)."""
TIMERS = 16
"""Timers one callback may start."""
TWO_PI = 2.0 * math.pi


def command_buffers(payload_bytes: int, rows: int = 1) -> tuple[np.ndarray, ...]:
    """One call's command buffers, empty, for `rows` robots: the motion commands, the outbox (source
    rows, destinations, payload rows, count) and the timer requests with their count (Ctl's fields
    from `cmd` to `out_n`, `timers`, `timer_n`)."""
    room = OUTBOX * rows
    return (np.zeros((rows, 4)), np.zeros(room, np.int64), np.zeros(room, np.int64), np.zeros((room, payload_bytes), np.uint8),
            np.zeros(1, np.int64), np.zeros((TIMERS, 3)), np.zeros(1, np.int64))


def inbox_buffers(rows: int, payload_bytes: int) -> tuple[np.ndarray, ...]:
    """An inbox of `rows` messages (Ctl's fields from `in_dst` to `in_payload`)."""
    return (np.zeros(rows, np.int64), np.zeros(rows, np.int64), np.zeros(rows), np.zeros(rows, np.int64),
            np.zeros((rows, payload_bytes), np.uint8))


def _frozen(arrays: tuple[np.ndarray, ...]) -> tuple[np.ndarray, ...]:
    for a in arrays:
        a.flags.writeable = False
    return arrays


NO_POS, NO_HEADING, ONE_ALIVE = _frozen((np.zeros((0, 3)), np.zeros(0), np.ones(1, np.bool_)))
NO_CMD, NO_OUT_SRC, NO_OUT_DST, NO_OUT_PAYLOAD, NO_OUT_N, NO_TIMERS, NO_TIMER_N = _frozen(command_buffers(0, 0))
NO_IN_DST, NO_IN_SRC, NO_IN_T, NO_IN_LEN, NO_IN_PAYLOAD = _frozen(inbox_buffers(0, 0))
"""What a context holds where its kind has none, read-only: a kilolib program's poses (a Kilobot
measures by infrared) and command buffers, a robot's callback's inbox, a group step's timers; and a
robot's callback's alive flag (it is called only while its robot lives). A call
writing into one is refused when it compiles (codegen names the line); compiled code reads them as
module globals, so they cost no arguments to pass."""


@njit(cache=True, inline="always")
def pending(k: Ctl) -> bool:
    """Whether a one-row call left commands for the engine to apply."""
    return k.cmd[0, 0] != NO_COMMAND or k.out_n[0] > 0 or k.rec_n[0] > 0 or k.timer_n[0] > 0


MOTORS_REFUSED = "set_motors is a kilolib program's: a compiled controller or group moves with drive or set_velocity"
"""Why kilolib's motors are refused after a controller's or a group's call, on either engine."""


@njit(cache=True, inline="always")
def no_motors(k: Ctl) -> None:
    """After a controller's or a group's call: kilolib's motors are refused (they would move nothing;
    CompiledGroup.step checks the same on the event engine)."""
    if k.io.motor_l or k.io.motor_r:
        raise ValueError(MOTORS_REFUSED)


@njit(cache=True, inline="always")
def drive_row(k: Ctl, i: int, v: float, w: float) -> None:
    """Row i drives at v (m/s) turning at w (rad/s), as robot.drive (the last motion command wins)."""
    c = k.cmd[i]
    c[0] = DRIVE
    c[1] = v
    c[2] = w
    c[3] = 0.0


@njit(cache=True, inline="always")
def velocity_row(k: Ctl, i: int, vx: float, vy: float, vz: float) -> None:
    """Row i's velocity in its own frame (m/s), as robot.set_velocity."""
    c = k.cmd[i]
    c[0] = VELOCITY
    c[1] = vx
    c[2] = vy
    c[3] = vz


@njit(cache=True, inline="always")
def _message(k: Ctl, i: int, dst: int) -> np.ndarray:
    n = k.out_n[0]
    if n >= len(k.out_dst):
        raise ValueError("a compiled call made more messages than its outbox holds (core.OUTBOX a robot)")
    if not 0 <= i < len(k.cmd):
        raise ValueError("broadcast/send: the row is not one of this call's robots")
    k.out_src[n] = i
    k.out_dst[n] = dst
    k.out_n[0] = n + 1
    row = k.out_payload[n]
    row[:] = 0
    return row


@njit(cache=True, inline="always")
def broadcast_row(k: Ctl, i: int) -> np.ndarray:
    """A broadcast from row i (net.broadcast) of the row returned, which the callback fills."""
    return _message(k, i, BROADCAST_DST)


@njit(cache=True, inline="always")
def send_row(k: Ctl, i: int, dst: int) -> np.ndarray:
    """A message from row i to node dst (net.send) of the row returned, which the callback fills."""
    if dst < 0:
        raise ValueError("send(k, dst): dst must be a node id (>= 0); use broadcast for everyone")
    return _message(k, i, dst)


@njit(cache=True, inline="always")
def _posed(k: Ctl, me: int, node: int) -> None:
    if not (0 <= node < len(k.pos) and 0 <= me < len(k.pos)):
        raise ValueError("range_to/bearing_to: no pose known for that node here (a kilolib program measures with "
                         "estimate_distance; a vehicle flying over MAVLink on its own has no simulated network: run it "
                         "as a ghost in a scenario to give it one)")


@njit(cache=True, inline="always")
def range_row(k: Ctl, i: int, node: int) -> float:
    """The true distance (m) from row i to node `node` now (net.range_to's arithmetic)."""
    me = k.me + i
    _posed(k, me, node)
    p = k.pos
    d0 = p[node, 0] - p[me, 0]
    d1 = p[node, 1] - p[me, 1]
    d2 = p[node, 2] - p[me, 2]
    return math.sqrt(d0 * d0 + d1 * d1 + d2 * d2)


@njit(cache=True, inline="always")
def bearing_row(k: Ctl, i: int, node: int) -> float:
    """The true bearing (rad, row i's frame, counter-clockwise) to node `node` now (net.bearing_to's
    arithmetic, math.remainder included)."""
    me = k.me + i
    _posed(k, me, node)
    p = k.pos
    return remainder(math.atan2(p[node, 1] - p[me, 1], p[node, 0] - p[me, 0]) - k.heading[me], TWO_PI)


@njit(cache=True, inline="always")
def drive(k: Ctl, v: float, w: float) -> None:
    """Drive at v (m/s) turning at w (rad/s), as robot.drive: drive_row of row 0."""
    drive_row(k, 0, v, w)


@njit(cache=True, inline="always")
def set_velocity(k: Ctl, vx: float, vy: float, vz: float) -> None:
    """Velocity in the robot's frame (m/s), as robot.set_velocity: velocity_row of row 0."""
    velocity_row(k, 0, vx, vy, vz)


@njit(cache=True, inline="always")
def broadcast(k: Ctl) -> np.ndarray:
    """A broadcast (net.broadcast) of the row returned: broadcast_row of row 0."""
    return _message(k, 0, BROADCAST_DST)


@njit(cache=True, inline="always")
def send(k: Ctl, dst: int) -> np.ndarray:
    """A message to node dst (net.send) of the row returned: send_row of row 0."""
    return send_row(k, 0, dst)


@njit(cache=True, inline="always")
def range_to(k: Ctl, node: int) -> float:
    """The true distance (m) to node `node` now: range_row of row 0."""
    return range_row(k, 0, node)


@njit(cache=True, inline="always")
def bearing_to(k: Ctl, node: int) -> float:
    """The true bearing (rad) to node `node` now: bearing_row of row 0."""
    return bearing_row(k, 0, node)


@njit(cache=True, inline="always")
def uniform(k: Ctl) -> float:
    """A draw in [0, 1) from the call's stream (the controller's rng.random())."""
    return k.gens[k.gi].random()


@njit(cache=True, inline="always")
def normal(k: Ctl, mu: float, sigma: float) -> float:
    """A Gaussian draw from the call's stream (the controller's rng.normal(mu, sigma))."""
    return k.gens[k.gi].normal(mu, sigma)


@njit(cache=True, inline="always")
def append_record(rec_i: np.ndarray, rec_v: np.ndarray, rec_n: np.ndarray, t_ns: int, node: int, ch: int,
                  value: float) -> None:
    """A record row (time (ns), node, channel; value) after the `rec_n[0]` rows already there: the one
    layout every compiled call records in."""
    n = rec_n[0]
    if n >= len(rec_v):
        raise ValueError("a compiled callback left more records than its buffer holds (core.RECORDS; group.RECORDS a step)")
    rec_i[n, 0] = t_ns
    rec_i[n, 1] = node
    rec_i[n, 2] = ch
    rec_v[n] = value
    rec_n[0] = n + 1


@njit(cache=True, inline="always")
def put(k: Ctl, i: int, ch: int, value: float) -> None:
    """A record row (now, row i's node, channel `ch`, value)."""
    append_record(k.rec_i, k.rec_v, k.rec_n, k.t_ns, k.me + i, ch, value)


def record_row(k: Ctl, i: int, name: str, value: float) -> None:
    """Append (time, row i's node, name, value) to the trace's records (inside compiled code only)."""
    raise TypeError("record_row(k, i, name, value) runs inside compiled callbacks only")


@overload(record_row)
def _record_row(k, i, name, value):
    ch = literal_channel(name, "record(k, i, ")
    if ch is None:
        return None

    def impl(k, i, name, value):
        put(k, i, ch, float(value))
    return impl


def record(k: Ctl, name: str, value: float) -> None:
    """Append (time, robot, name, value) to the trace's records: record_row of row 0 (inside compiled
    code only)."""
    raise TypeError("record(k, name, value) runs inside compiled callbacks only")


@overload(record)
def _record(k, name, value):
    ch = literal_channel(name, "record(k, ")
    if ch is None:
        return None

    def impl(k, name, value):
        put(k, 0, ch, float(value))
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
    random phase, as Controller.every with no phase). Inside compiled controllers only (a group's
    timers are Python's: GroupController.every)."""
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
        k.timers[n, 0] = number
        k.timers[n, 1] = period
        k.timers[n, 2] = phase
        k.timer_n[0] = n + 1
    return impl
