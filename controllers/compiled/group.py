"""`CompiledGroup`: a group controller whose step is one compiled function (numba) over the whole
group, for the per-tick work that numpy calls on small arrays make slow.

Write `tick(s, k)` as a plain function of the group's state `s` (one record of typed `fields` per
robot) and its tick context `k` (a `Tick`); the rest of the class is an ordinary GroupController
(`setup` in Python, timers, records):

    class Followers(CompiledGroup):
        Params = ChainParams
        period = 0.03225
        fields = {"next_tx": np.float64, "gap": np.float64}
        payload_bytes = 2                       # every broadcast carries k.payload[i] (filled in setup or tick)

        def tick(s, k):
            for r in range(len(k.in_dst)):      # this tick's inbox, in receive order
                ...
            d = range_to(k, i, node)            # and bearing_to(k, i, node)
            drive(k, i, v, w)                   # or set_velocity(k, i, vx, vy, vz)
            broadcast(k, i)                     # or send(k, i, dst): the row k.payload[i]
            record(k, i, "gap", d)              # a name listed in `records`

The step runs at the GroupController's instants, and its commands are applied through the group as a
Python step would apply them (drives, velocities, broadcasts, sends, each in robot order, then the
records), so a compiled twin of a Python group controller gives its trace bit for bit.
"""

from __future__ import annotations

import math
import warnings
from collections import namedtuple
from collections.abc import Sequence
from typing import Any, ClassVar

import numpy as np
from numba import njit, typeof
from numba.core.errors import NumbaError, NumbaWarning
from numba.extending import overload

from controllers.api.group import GroupController
from controllers.compiled.channels import channel_name, literal_channel
from controllers.compiled.core import append_record
from controllers.compiled.program import declared_layout, params_record
from netstack.backend import IndexedPayloads

Tick = namedtuple("Tick", ["now", "t_ns", "params", "first", "ids", "alive", "pos", "heading", "in_dst", "in_src", "in_t",
                           "in_len", "in_payload", "motion", "cmd", "out", "payload", "rec_i", "rec_v", "rec_n"])
"""One step's context: the time (s and ns), the parameters (`k.params.x`), the group's first node id
and ids, which robots are alive, every node's position and heading (by node id), the inbox as arrays
(receiver index, sender node id, receive time (s), payload length, and the payload's first
`payload_bytes` bytes, zero-padded), and the buffers the helpers fill: per robot its motion command
(kind; v, w or vx, vy, vz), its message (NO_MESSAGE, BROADCAST_DST or a node id) and payload row;
and records (rows of time (ns), node, channel; values; count: core.append_record's layout)."""

NO_MOTION, DRIVE, VELOCITY = 0, 1, 2
NO_MESSAGE, BROADCAST_DST = -2, -1
RECORDS = 65536
"""Records one step may leave."""

_TWO_PI = 2.0 * math.pi


@njit(cache=True, inline="always")
def range_to(k: Tick, i: int, node: int) -> float:
    """True distance (m) from robot i of the group to node `node` (Group.range_to's arithmetic)."""
    me = k.first + i
    dx, dy, dz = k.pos[node, 0] - k.pos[me, 0], k.pos[node, 1] - k.pos[me, 1], k.pos[node, 2] - k.pos[me, 2]
    return math.sqrt(dx * dx + dy * dy + dz * dz)


@njit(cache=True, inline="always")
def bearing_to(k: Tick, i: int, node: int) -> float:
    """True bearing (rad, robot i's frame, counter-clockwise) to node `node` (Group.bearing_to's arithmetic)."""
    me = k.first + i
    x = math.atan2(k.pos[node, 1] - k.pos[me, 1], k.pos[node, 0] - k.pos[me, 0]) - k.heading[me]
    return x - np.rint(x / _TWO_PI) * _TWO_PI


@njit(cache=True, inline="always")
def drive(k: Tick, i: int, v: float, w: float) -> None:
    """Robot i drives at v (m/s) turning at w (rad/s) from the next physics tick (Group.drive)."""
    k.motion[i], k.cmd[i, 0], k.cmd[i, 1], k.cmd[i, 2] = DRIVE, v, w, 0.0


@njit(cache=True, inline="always")
def set_velocity(k: Tick, i: int, vx: float, vy: float, vz: float) -> None:
    """Robot i's velocity in its own frame (m/s) from the next physics tick (Group.set_velocity)."""
    k.motion[i], k.cmd[i, 0], k.cmd[i, 1], k.cmd[i, 2] = VELOCITY, vx, vy, vz


@njit(cache=True, inline="always")
def broadcast(k: Tick, i: int) -> None:
    """Robot i broadcasts its payload row `k.payload[i]` at the end of this step."""
    k.out[i] = BROADCAST_DST


@njit(cache=True, inline="always")
def send(k: Tick, i: int, dst: int) -> None:
    """Robot i sends its payload row `k.payload[i]` to node dst at the end of this step (Group.send)."""
    if dst < 0:
        raise ValueError("send(k, i, dst): dst must be a node id (>= 0); use broadcast(k, i) for everyone")
    k.out[i] = dst


def record(k: Tick, i: int, name: str, value: float) -> None:
    """A sample (time, robot i's node, name, value) for the trace's records (inside compiled code only)."""
    raise TypeError("record(k, i, name, value) runs inside compiled group steps only")


@overload(record)
def _record(k, i, name, value):
    ch = literal_channel(name, "record(k, i, ")
    if ch is None:
        return None

    def impl(k, i, name, value):
        append_record(k.rec_i, k.rec_v, k.rec_n, k.t_ns, k.ids[i], ch, float(value))
    return impl


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
        self.payload = np.zeros((0, type(self).payload_bytes), dtype=np.uint8)
        self._out = self._buffers(0)
        self._rec = (np.zeros((RECORDS, 3), np.int64), np.zeros(RECORDS), np.zeros(1, np.int64))

    @staticmethod
    def _buffers(n: int) -> tuple[np.ndarray, ...]:
        """The tick's command buffers: each robot's motion kind, its command (v, w or vx, vy, vz), and
        its message (NO_MESSAGE, BROADCAST_DST or a node id)."""
        return np.zeros(n, np.int8), np.zeros((n, 3)), np.full(n, NO_MESSAGE, np.int64)

    def bind(self, group, rng, services) -> None:  # type: ignore[override]
        """As GroupController.bind; the state and payload rows get one row per robot."""
        super().bind(group, rng, services)
        self.state = np.zeros(group.n, dtype=type(self).dtype)
        self.payload = np.zeros((group.n, type(self).payload_bytes), dtype=np.uint8)
        self._out = self._buffers(group.n)
        self._check()

    def fused_parts(self) -> tuple:
        """What the fused engine steps in place: the state, payload rows, parameters, the command
        buffers (motion kinds, commands, messages) and the records with their count."""
        return (self.state, self.payload, self.values, *self._out, *self._rec)

    def _tick_args(self, now: float, inbox_cols: tuple) -> Tick:
        g = self.group
        return Tick(now, round(now * 1e9), self.values[0], int(g.ids[0]) if g.n else 0, g.ids, g.alive(),
                    g.all_positions(), g.all_headings(), *inbox_cols, *self._out, self.payload, *self._rec)

    def _check(self) -> None:
        """Compile the step now for the types it will run with; outside the subset: ProgramError."""
        from controllers.compiled.codegen import explain, unknown_field

        empty = (np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0), np.zeros(0, np.int64),
                 np.zeros((0, type(self).payload_bytes), np.uint8))
        k = self._tick_args(0.0, empty)
        try:
            with warnings.catch_warnings():  # numba's warnings on the way to a refusal are noise
                warnings.simplefilter("ignore", NumbaWarning)
                type(self).callbacks["tick"].compile((typeof(self.state), typeof(k)))
        except NumbaError as exc:
            raise explain(type(self), exc) from None
        except KeyError as exc:
            raise unknown_field(type(self), str(exc.args[0])) from None

    def step(self) -> None:
        g = self.group
        inbox = g.inbox()
        lengths, payloads = payload_rows(inbox.payloads, type(self).payload_bytes)
        motion, _, out = self._out
        motion[:], out[:] = NO_MOTION, NO_MESSAGE
        type(self).callbacks["tick"](self.state, self._tick_args(self.now, (inbox.dst, inbox.src, inbox.t, lengths, payloads)))
        self._apply()

    def _apply(self) -> None:
        """The step's commands, through the group: drives, velocities, broadcasts, sends (each in robot
        order), then records (in the order made, a group.record call per run of one name)."""
        g = self.group
        motion, cmd, out = self._out
        who = np.flatnonzero(motion == DRIVE)
        if len(who):
            g.drive(cmd[who, 0], cmd[who, 1], who)
        who = np.flatnonzero(motion == VELOCITY)
        if len(who):
            g.set_velocity(cmd[who, 0], cmd[who, 1], cmd[who, 2], who)
        due = np.flatnonzero(out == BROADCAST_DST)
        if len(due):
            g.broadcast(due, self.payload[due])
        due = np.flatnonzero(out >= 0)
        if len(due):
            g.send(due, out[due], self.payload[due])
        rec_i, rec_v, rec_n = self._rec
        n = int(rec_n[0])
        if n:
            cuts = np.flatnonzero(np.diff(rec_i[:n, 2])) + 1
            for a, b in zip([0, *cuts.tolist()], [*cuts.tolist(), n], strict=True):
                g.record(channel_name(int(rec_i[a, 2])), rec_v[a:b].copy(), rec_i[a:b, 1] - int(g.ids[0]))
            rec_n[0] = 0
