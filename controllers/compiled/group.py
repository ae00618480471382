"""`CompiledGroup`: a group controller whose step is one compiled function (numba) over the whole
group, for the per-tick work that numpy calls on small arrays make slow.

Write `tick(s, k)` as a plain function of the group's state `s` (one record of typed `fields` per
robot) and the step's context `k`: the one context of every compiled call (controllers.compiled.core.Ctl),
with a row per robot (row i is node `k.me + i`). The rest of the class is an ordinary GroupController
(`setup` in Python, timers, records):

    class Followers(CompiledGroup):
        Params = ChainParams
        period = 0.03225
        fields = {"next_tx": np.float64, "gap": np.float64}
        payload_bytes = 2                       # every message is a row of this many bytes

        def tick(s, k):
            for r in range(len(k.in_dst)):      # this tick's inbox, in receive order: row k.in_dst[r]
                ...
            d = range_to(k, i, node)            # and bearing_to(k, i, node)
            drive(k, i, v, w)                   # or set_velocity(k, i, vx, vy, vz)
            row = broadcast(k, i)               # or send(k, i, dst): a fresh row to fill
            row[0] = 7
            record(k, i, "gap", d)              # a name listed in `records`

The helpers are core's row helpers under a group's names (drive is core.drive_row, and so on). The
step runs at the GroupController's instants; its commands are applied as every compiled call's are:
each robot's motion, then the messages in the order they were made, with the records as they were
made. A group's timers are Python's (GroupController.every): `every(k, ...)` is refused.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from typing import Any, ClassVar

import numpy as np
from numba import njit, typeof
from numba.core.errors import NumbaError, NumbaWarning

from controllers.api.group import GroupController
from controllers.compiled.channels import channel_name
from controllers.compiled.core import (
    DRIVE,
    MOTORS_REFUSED,
    NO_TIMER_N,
    NO_TIMERS,
    VELOCITY,
    Ctl,
    command_buffers,
    inbox_buffers,
)
from controllers.compiled.core import bearing_row as bearing_to
from controllers.compiled.core import broadcast_row as broadcast
from controllers.compiled.core import drive_row as drive
from controllers.compiled.core import range_row as range_to
from controllers.compiled.core import record_row as record
from controllers.compiled.core import send_row as send
from controllers.compiled.core import velocity_row as set_velocity
from controllers.compiled.kilolib import IO_DTYPE
from controllers.compiled.program import declared_layout, params_record
from jit.streams import own_stream
from netstack.backend import IndexedPayloads

__all__ = ["CompiledGroup", "bearing_to", "broadcast", "drive", "payload_rows", "range_to", "record", "send",
           "set_velocity"]

RECORDS = 65536
"""Records one step may leave."""


def payload_rows(payloads: Sequence[bytes], size: int) -> tuple[np.ndarray, np.ndarray]:
    """Each payload's length, and its first `size` bytes zero-padded as one (rows, size) uint8 array;
    a delivery batch's few distinct frames are converted once (IndexedPayloads' pool)."""
    if not isinstance(payloads, IndexedPayloads):
        payloads = IndexedPayloads(payloads, np.arange(len(payloads)))
    pool = payloads.pool
    rows = np.frombuffer(b"".join(p[:size].ljust(size, b"\0") for p in pool), dtype=np.uint8).reshape(len(pool), size)
    return payloads.sizes(), rows[payloads.index]


class CompiledGroup(GroupController):
    """Base class of group controllers with a compiled `tick(s, k)` (see the module docstring)."""

    fields: ClassVar[dict[str, Any]] = {}
    payload_bytes: ClassVar[int] = 0
    records: ClassVar[tuple[str, ...]] = ()
    callbacks: ClassVar[dict[str, Any]] = {}
    """{"tick": the compiled step} (a numba dispatcher)."""

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        fn = cls.__dict__.get("tick")
        if fn is not None:
            if not callable(fn):
                raise TypeError(f"{cls.__name__}.tick must be a function of (s, k)")
            delattr(cls, "tick")
            cls.callbacks = {"tick": njit(cache=True)(fn)}
        cls.dtype = declared_layout(cls, cls.payload_bytes)

    def __init__(self, params: Any = None) -> None:
        super().__init__(params)
        if "tick" not in type(self).callbacks:
            raise TypeError(f"{type(self).__name__} defines no tick(s, k)")
        self.values = params_record(self.params)
        self.state = np.zeros(0, dtype=type(self).dtype)
        self.io = np.zeros(1, dtype=IO_DTYPE)
        self._gens = own_stream(np.random.default_rng(0))
        self._out = command_buffers(type(self).payload_bytes, 0)[:5]
        self._rec = (np.zeros((RECORDS, 3), np.int64), np.zeros(RECORDS), np.zeros(1, np.int64))

    def bind(self, group, rng, services) -> None:  # type: ignore[override]
        """As GroupController.bind; the state and the command buffers get one row per robot, and the
        step draws from the controller's stream."""
        super().bind(group, rng, services)
        self.state = np.zeros(group.n, dtype=type(self).dtype)
        self._out = command_buffers(type(self).payload_bytes, group.n)[:5]
        self._gens = own_stream(rng)
        self._check()

    def fused_parts(self) -> tuple:
        """What the fused engine steps in place: the state, parameters, random stream, kilolib record,
        the command buffers (motion commands; outbox: source rows, destinations, payload rows, count)
        and the records with their count."""
        return (self.state, self.values, self._gens, self.io, *self._out, *self._rec)

    def _context(self, now: float, inbox: tuple) -> Ctl:
        g = self.group
        return Ctl(now, round(now * 1e9), int(g.ids[0]) if g.n else 0, g.alive(), self.values[0], self._gens, 0, self.io[0],
                   g.all_positions(), g.all_headings(), *inbox, *self._out, *self._rec, NO_TIMERS, NO_TIMER_N)

    def _check(self) -> None:
        """Compile the step now for the types it will run with; outside the subset: ProgramError."""
        from controllers.compiled.refusals import check_source, explain, group_timer, unknown_field

        check_source(type(self))
        k = self._context(0.0, inbox_buffers(0, type(self).payload_bytes))
        try:
            with warnings.catch_warnings():  # numba's warnings on the way to a refusal are noise
                warnings.simplefilter("ignore", NumbaWarning)
                type(self).callbacks["tick"].compile((typeof(self.state), typeof(k)))
        except NumbaError as exc:
            raise (group_timer(type(self), exc) or explain(type(self), exc)) from None
        except KeyError as exc:
            raise unknown_field(type(self), str(exc.args[0])) from None

    def step(self) -> None:
        g = self.group
        inbox = g.inbox()
        lengths, payloads = payload_rows(inbox.payloads, type(self).payload_bytes)
        type(self).callbacks["tick"](self.state, self._context(self.now, (inbox.dst, inbox.src, inbox.t, lengths, payloads)))
        if self.io[0]["motor_l"] or self.io[0]["motor_r"]:  # as core.no_motors after the fused engine's call
            raise ValueError(MOTORS_REFUSED)
        self._apply()

    def _apply(self) -> None:
        """The step's commands, through the group: each robot's motion (drives, then velocities), then
        the messages in the order made (a group.broadcast or group.send call per run of one kind),
        then the records (a group.record call per run of one name)."""
        g = self.group
        cmd, src, dst, rows, count = self._out
        for kind, command in ((DRIVE, g.drive), (VELOCITY, g.set_velocity)):
            who = np.flatnonzero(cmd[:, 0] == kind)
            if len(who):
                command(*(cmd[who, c] for c in range(1, 3 if kind == DRIVE else 4)), who)
        cmd[:, 0] = 0.0
        n = int(count[0])
        for a, b in _runs((dst[:n] < 0).view(np.int8)):
            if dst[a] < 0:
                g.broadcast(src[a:b], rows[a:b])
            else:
                g.send(src[a:b], dst[a:b], rows[a:b])
        count[0] = 0
        rec_i, rec_v, rec_n = self._rec
        for a, b in _runs(rec_i[:int(rec_n[0]), 2]):
            g.record(channel_name(int(rec_i[a, 2])), rec_v[a:b].copy(), rec_i[a:b, 1] - int(g.ids[0]))
        rec_n[0] = 0


def _runs(keys: np.ndarray) -> list[tuple[int, int]]:
    """The runs of equal consecutive `keys`, as (start, end) pairs."""
    cuts = (np.flatnonzero(np.diff(keys)) + 1).tolist()
    return list(zip([0, *cuts], [*cuts, len(keys)], strict=True)) if len(keys) else []
