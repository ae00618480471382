"""kilolib's functions for compiled programs (`controllers.compiled.Program`): the same names as the
Python kilolib (`controllers.kilolib`), as functions of the robot's context `k` instead of methods,
so that numba compiles them into the program's callbacks.

    set_motors(k, left, right)   set_color(k, rgb)   kilo_ticks(k)   kilo_uid(k)   rand_soft(k)
    estimate_distance(d)         message_crc(msg)    record(k, "name", value)      RGB(r, g, b)

`estimate_distance`, `message_crc` and `crc_update` are controllers.kilolib.arithmetic's: the
Python kilolib's own source, compiled. `k` is the one context of every compiled robot callback
(controllers.compiled.core.Ctl); kilolib keeps its per-robot state in `k.io`. `record` is core's:
its name must be a string literal that the program lists in `records`.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from controllers.compiled.channels import channel
from controllers.compiled.core import Ctl, put, record  # noqa: F401  (record: kilolib's name for it)
from controllers.kilolib.api import TICKS_PER_S
from controllers.kilolib.arithmetic import crc_update, estimate_distance, message_crc  # noqa: F401  (kilolib's, compiled)

NORMAL = 0
"""kilolib's message type for user messages."""

IO_DTYPE = np.dtype([("uid", np.int64), ("motor_l", np.bool_), ("motor_r", np.bool_), ("color", np.int64),
                     ("moving", np.bool_)])
"""What kilolib keeps per robot besides the program's own fields."""

MESSAGE_DTYPE = np.dtype([("data", np.uint8, (9,)), ("type", np.uint8), ("crc", "<u2")])
"""message_t: 9 data bytes, the type and the CRC, laid out as the 12-byte frame on the air."""

DISTANCE_DTYPE = np.dtype([("high_gain", np.int64), ("low_gain", np.int64)])
"""distance_measurement_t: the receiver's two gains."""

COLOR = channel("color")


@njit(cache=True, inline="always")
def kilo_uid(k: Ctl) -> int:
    return k.io.uid


@njit(cache=True, inline="always")
def kilo_ticks(k: Ctl) -> int:
    return int(k.t_ns / 1e9 * TICKS_PER_S + 1e-9)


@njit(cache=True, inline="always")
def set_motors(k: Ctl, left: int, right: int) -> None:
    if not (0 <= left <= 255 and 0 <= right <= 255):
        raise ValueError("set_motors takes 0..255 per motor")
    k.io.motor_l = left > 0
    k.io.motor_r = right > 0


@njit(cache=True, inline="always")
def spinup_motors(k: Ctl) -> None:
    """Full power for 15 ms on the robot; nothing to do here (as in Kilombo)."""


@njit(cache=True, inline="always")
def set_color(k: Ctl, rgb: int) -> None:
    if rgb != k.io.color:
        k.io.color = rgb
        put(k, 0, COLOR, float(rgb))


@njit(cache=True, inline="always")
def rand_soft(k: Ctl) -> int:
    return k.gens[k.gi].integers(0, 256)


@njit(cache=True, inline="always")
def RGB(r: int, g: int, b: int) -> int:
    """An LED colour, 0..3 per channel, packed as kilolib does (r | g << 2 | b << 4)."""
    return r | (g << 2) | (b << 4)
