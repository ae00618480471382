"""kilolib's functions for compiled programs (`controllers.compiled.Program`): the same names as the
Python kilolib (`controllers.kilolib`), as functions of the robot's context `k` instead of methods,
so that numba compiles them into the program's callbacks.

    set_motors(k, left, right)   set_color(k, rgb)   kilo_ticks(k)   kilo_uid(k)   rand_soft(k)
    estimate_distance(d)         message_crc(msg)    record(k, "name", value)      RGB(r, g, b)

`estimate_distance`, `message_crc` and `crc_update` are controllers.kilolib.arithmetic's: the
Python kilolib's own source, compiled. `k` is a `Kilo`: the robot's row in the group's arrays, the
time, the robot's own random stream and the record buffer. `record`'s name must be a string literal
that the program lists in `records`.
"""

from __future__ import annotations

import zlib
from collections import namedtuple

import numpy as np
from numba import njit, types
from numba.core.errors import TypingError
from numba.extending import overload

from controllers.kilolib.api import TICKS_PER_S
from controllers.kilolib.arithmetic import crc_update, estimate_distance, message_crc  # noqa: F401  (kilolib's, compiled)

NORMAL = 0
"""kilolib's message type for user messages."""

Kilo = namedtuple("Kilo", ["i", "t_ns", "io", "gens", "params", "rec_i", "rec_v", "rec_n"])
"""One robot's context inside a compiled callback (built by the engine for each call): `io` is the
robot's own kilolib record (a view into the group's array, so reading it costs no reference count)."""

IO_DTYPE = np.dtype([("uid", np.int64), ("motor_l", np.bool_), ("motor_r", np.bool_), ("color", np.int64),
                     ("moving", np.bool_)])
"""What kilolib keeps per robot besides the program's own fields."""

MESSAGE_DTYPE = np.dtype([("data", np.uint8, (9,)), ("type", np.uint8), ("crc", "<u2")])
"""message_t: 9 data bytes, the type and the CRC, laid out as the 12-byte frame on the air."""

DISTANCE_DTYPE = np.dtype([("high_gain", np.int64), ("low_gain", np.int64)])
"""distance_measurement_t: the receiver's two gains."""

RECORD_CAPACITY = 4096
"""Records one callback may leave before the engine collects them."""

_CHANNELS: dict[int, str] = {}


def channel(name: str) -> int:
    """The number `record(k, name, v)` writes for `name` (a stable hash, the same in every process)."""
    ch = zlib.crc32(name.encode()) & 0x7FFFFFFF
    known = _CHANNELS.setdefault(ch, name)
    if known != name:
        raise ValueError(f"record names {known!r} and {name!r} collide; rename one")
    return ch


def channel_name(ch: int) -> str:
    return _CHANNELS[ch]


def is_channel(name: str) -> bool:
    """Whether some program or controller lists `name` in its `records`."""
    return name in _CHANNELS.values()


def literal_channel(name: types.Type, call: str, owner: str) -> int | None:
    """For a `record` overload: the channel of a name given as a string literal (None when it is not
    one: numba then looks further); a name no class lists is refused, saying where to list it."""
    if not isinstance(name, types.StringLiteral):
        return None
    if not is_channel(name.literal_value):
        raise TypingError(f"{call}{name.literal_value!r}, ...): list {name.literal_value!r} in the {owner}'s `records`")
    return channel(name.literal_value)


COLOR = channel("color")


@njit(cache=True, inline="always")
def _put(k: Kilo, ch: int, value: float) -> None:
    n = k.rec_n[0]
    if n >= len(k.rec_v):
        raise ValueError("a compiled callback left more records than the buffer holds (RECORD_CAPACITY)")
    k.rec_i[n, 0] = k.t_ns
    k.rec_i[n, 1] = k.io.uid
    k.rec_i[n, 2] = ch
    k.rec_v[n] = value
    k.rec_n[0] = n + 1


def record(k: Kilo, name: str, value: float) -> None:
    """Append (time, robot, name, value) to the trace's records (inside compiled code only)."""
    raise TypeError("record(k, name, value) runs inside compiled programs only")


@overload(record)
def _record(k, name, value):
    ch = literal_channel(name, "record(k, ", "program")
    if ch is None:
        return None

    def impl(k, name, value):
        _put(k, ch, float(value))
    return impl


@njit(cache=True, inline="always")
def kilo_uid(k: Kilo) -> int:
    return k.io.uid


@njit(cache=True, inline="always")
def kilo_ticks(k: Kilo) -> int:
    return int(k.t_ns / 1e9 * TICKS_PER_S + 1e-9)


@njit(cache=True, inline="always")
def set_motors(k: Kilo, left: int, right: int) -> None:
    if not (0 <= left <= 255 and 0 <= right <= 255):
        raise ValueError("set_motors takes 0..255 per motor")
    k.io.motor_l = left > 0
    k.io.motor_r = right > 0


@njit(cache=True, inline="always")
def spinup_motors(k: Kilo) -> None:
    """Full power for 15 ms on the robot; nothing to do here (as in Kilombo)."""


@njit(cache=True, inline="always")
def set_color(k: Kilo, rgb: int) -> None:
    if rgb != k.io.color:
        k.io.color = rgb
        _put(k, COLOR, float(rgb))


@njit(cache=True, inline="always")
def rand_soft(k: Kilo) -> int:
    return k.gens[k.i].integers(0, 256)


@njit(cache=True, inline="always")
def RGB(r: int, g: int, b: int) -> int:
    """An LED colour, 0..3 per channel, packed as kilolib does (r | g << 2 | b << 4)."""
    return r | (g << 2) | (b << 4)
