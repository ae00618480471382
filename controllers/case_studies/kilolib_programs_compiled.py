"""Compiled twins of the kilolib examples (controllers.case_studies.kilolib_programs): the same programs, line for
line, as `Program`s. Each gives the trace its Python twin gives (tests/controllers/compiled).

Python dicts become fixed arrays over kilolib's 8-bit ids (`heard_d`, `heard_t`), and kilolib's
`set_motion` helper is a compiled function of its own.
"""

from __future__ import annotations

from typing import ClassVar

import numpy as np
from numba import njit

from controllers.case_studies.kilolib_programs import ChainParams, EdgeParams, OrbitParams
from controllers.compiled.kilolib import (
    NORMAL,
    RGB,
    estimate_distance,
    kilo_ticks,
    kilo_uid,
    message_crc,
    record,
    set_color,
    set_motors,
)
from controllers.compiled.program import Program

STOP, FORWARD, LEFT, RIGHT = range(4)
NEVER = -10**9
"""kilo_ticks of a robot never heard."""


@njit(cache=True, inline="always")
def set_motion(s, k, new_motion: int) -> None:
    """kilolib's usual helper: motors for STOP, FORWARD, LEFT or RIGHT, set only on a change."""
    if s.current_motion != new_motion:
        s.current_motion = new_motion
        p = k.params
        if new_motion == STOP:
            set_motors(k, 0, 0)
        elif new_motion == FORWARD:
            set_motors(k, p.straight_left, p.straight_right)
        elif new_motion == LEFT:
            set_motors(k, p.turn_left, 0)
        else:
            set_motors(k, 0, p.turn_right)


@njit(cache=True, inline="always")
def send_uid(k, msg) -> bool:
    """A message carrying the sender's id (8 bits), as the examples send."""
    msg.data[0] = kilo_uid(k) & 0xFF
    msg.type = NORMAL
    msg.crc = message_crc(msg)
    return True


class Beacon(Program):
    """Stands still and sends its id."""

    def setup(s, k):
        set_color(k, RGB(1, 0, 0))

    def message_tx(s, k, msg):
        return send_uid(k, msg)


class OrbitStar(Beacon):
    """The orbit's star (a Beacon)."""


class EdgeSeed(Beacon):
    """A standing robot of the edge-following group (a Beacon)."""


class OrbitPlanet(Program):
    Params = OrbitParams
    fields: ClassVar[dict] = {"new_message": np.int64, "distance": np.int64, "current_motion": np.int64}
    records: ClassVar[tuple] = ("distance",)

    def setup(s, k):
        s.new_message = 0
        s.distance = 0
        set_color(k, RGB(0, 1, 0))

    def loop(s, k):
        if s.new_message == 1:
            s.new_message = 0
            record(k, "distance", s.distance)
            if s.distance < k.params.too_close_distance:
                set_motion(s, k, FORWARD)
            elif s.distance < k.params.desired_distance:
                set_motion(s, k, LEFT)
            else:
                set_motion(s, k, RIGHT)

    def message_rx(s, k, msg, d):
        s.new_message = 1
        s.distance = estimate_distance(d)


CHAIN_FIELDS = {"cycle_time": np.int64, "cycles": np.int64, "state": np.int64, "best": np.int64, "change_ticks": np.int64,
                "current_motion": np.int64, "heard_d": (np.int16, 256), "heard_t": (np.int32, 256)}
"""The scalars first (one cache line), then what was heard from each 8-bit id: the distance (mm, at
most 255) and the kilo_ticks of the message (a 32-bit count lasts two years): 1.6 KB a robot, not 4."""


@njit(cache=True, inline="always")
def chain_setup(s, k) -> None:
    s.heard_d[:] = 255
    s.heard_t[:] = NEVER
    s.cycle_time = 0
    s.cycles = 0
    s.state = FORWARD


@njit(cache=True, inline="always")
def distance_to(s, k, uid: int) -> int:
    """Distance to robot `uid` if heard in the last second, else 255."""
    u = uid & 0xFF
    return s.heard_d[u] if kilo_ticks(k) - s.heard_t[u] <= 32 else 255


@njit(cache=True, inline="always")
def must_wait(s, k) -> bool:
    uid = kilo_uid(k)
    ahead = distance_to(s, k, uid - 1)
    behind = distance_to(s, k, uid + 1)
    return (uid > 0 and ahead < k.params.d_min) or (behind != 255 and behind > k.params.d_max)


class Leader(Program):
    """kilolib_programs.Leader, compiled."""

    Params = ChainParams
    fields = CHAIN_FIELDS

    def setup(s, k):
        chain_setup(s, k)

    def message_tx(s, k, msg):
        return send_uid(k, msg)

    def message_rx(s, k, msg, d):
        s.heard_d[msg.data[0]] = estimate_distance(d)
        s.heard_t[msg.data[0]] = kilo_ticks(k)

    def loop(s, k):
        set_color(k, RGB(1, 1, 1))
        s.cycle_time += 1
        if must_wait(s, k) or s.cycle_time >= k.params.t_move:
            set_motion(s, k, STOP)
        else:
            set_motion(s, k, s.state)
        if s.cycle_time >= k.params.t_cycle:
            s.cycle_time = 0
            s.cycles += 1
            s.state = LEFT if s.cycles % 4 == 0 else FORWARD


class Follower(Leader):
    """kilolib_programs.Follower, compiled."""

    records: ClassVar[tuple] = ("distance",)

    def setup(s, k):
        chain_setup(s, k)
        s.state = LEFT
        s.best = 255
        s.change_ticks = 0

    def loop(s, k):
        d = distance_to(s, k, kilo_uid(k) - 1)
        if kilo_ticks(k) % 8 == 0 and d != 255:
            record(k, "distance", d)
        if d == 255 or must_wait(s, k):
            set_motion(s, k, STOP)
            s.best = d
            return
        if s.change_ticks > 0:
            s.change_ticks -= 1
            if s.change_ticks == 0:
                s.best = d
        elif d > s.best:
            s.state = RIGHT if s.state == LEFT else LEFT
            s.best = d
            s.change_ticks = k.params.dead_ticks
        else:
            s.best = min(s.best, d)
        set_motion(s, k, s.state)


class EdgeFollower(Program):
    """kilolib_programs.EdgeFollower, compiled."""

    Params = EdgeParams
    fields: ClassVar[dict] = {"heard_d": (np.int64, 256), "heard_t": (np.int64, 256), "current_motion": np.int64}
    records: ClassVar[tuple] = ("distance",)

    def setup(s, k):
        s.heard_d[:] = 255
        s.heard_t[:] = NEVER
        set_color(k, RGB(0, 0, 1))

    def loop(s, k):
        now = kilo_ticks(k)
        nearest = 256
        for u in range(256):
            if now - s.heard_t[u] <= k.params.memory_ticks and s.heard_d[u] < nearest:
                nearest = s.heard_d[u]
        if nearest == 256:
            set_motion(s, k, RIGHT)
            return
        if now % 8 == 0:
            record(k, "distance", nearest)
        set_motion(s, k, LEFT if nearest < k.params.desired_distance else RIGHT)

    def message_rx(s, k, msg, d):
        s.heard_d[msg.data[0]] = estimate_distance(d)
        s.heard_t[msg.data[0]] = kilo_ticks(k)
