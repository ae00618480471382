"""`CompiledController`: a general controller whose callbacks numba compiles.

Write the callbacks as plain functions of the robot's state `s` (typed `fields`), the call's context
`k` (controllers.compiled.core.Ctl) and, for `on_message`, the message `m` (core.Msg):

    class Follower(CompiledController):
        Params = ChainParams
        period = None                                   # no step; or seconds between step(s, k) calls
        fields = {"gap": np.float64}
        payload_bytes = 2                               # every message is a row of this many bytes
        records = ("gap",)                              # the names record(k, name, v) may use
        timers = ("transmit",)                          # callbacks every(k, "transmit", period, phase) may start

        def setup(s, k): ...                            # once, at time 0
        def step(s, k): ...                             # every period
        def on_message(s, k, m): ...                    # m.src, m.t, m.length, m.payload; range_to(k, m.src)
        def transmit(s, k):
            row = broadcast(k)
            row[0] = k.me & 0xFF

The commands (core.drive, set_velocity, broadcast, send, record, every) are applied through `robot`
and `net` when the callback returns, so a compiled twin of a Python controller gives its trace.
"""

from __future__ import annotations

import math
import warnings
from typing import Any, ClassVar

import numpy as np
from numba import njit, typed, typeof
from numba.core.dispatcher import Dispatcher
from numba.core.errors import NumbaError, NumbaWarning

from controllers.api.controller import Controller
from controllers.api.messages import Message
from controllers.compiled.channels import channel_name
from controllers.compiled.core import DRIVE, VELOCITY, command_buffers, timer_number
from controllers.compiled.kilolib import IO_DTYPE
from controllers.compiled.program import declared_layout, params_record
from controllers.compiled.record_buffers import record_buffers
from jit.calls import bound_overload
from jit.streams import own_stream

HOOKS = ("setup", "step", "on_message")
_BOUND: dict[tuple, dict[str, Any]] = {}
"""Per class and parameter dtype: each callback's machine code, called without numba's dispatch."""


class CompiledController(Controller):
    """Base class of controllers with compiled callbacks (see the module docstring)."""

    fields: ClassVar[dict[str, Any]] = {}
    payload_bytes: ClassVar[int] = 0
    records: ClassVar[tuple[str, ...]] = ()
    timers: ClassVar[tuple[str, ...]] = ()
    callbacks: ClassVar[dict[str, Any]] = {}
    """The compiled callbacks (numba dispatchers) by name: hooks and timers."""

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        for name in cls.timers:
            if name in HOOKS or name in dir(CompiledController):
                raise TypeError(f"{cls.__name__}.timers: {name!r} is a name the controller already uses; rename it")
        own = {}
        for name in (*HOOKS, *cls.timers):
            fn = cls.__dict__.get(name)
            if fn is None:
                continue
            if not callable(fn):
                raise TypeError(f"{cls.__name__}.{name} must be a function of (s, k{', m' if name == 'on_message' else ''})")
            delattr(cls, name)
            own[name] = fn if isinstance(fn, Dispatcher) else njit(cache=True)(fn)
        cls.callbacks = {**cls.callbacks, **own}
        missing = [name for name in cls.timers if name not in cls.callbacks]
        if missing:
            raise TypeError(f"{cls.__name__}.timers lists {missing}, which the class does not define")
        cls.dtype = declared_layout(cls, cls.payload_bytes)
        cls.timer_names = {timer_number(name): name for name in cls.timers}

    @classmethod
    def steps(cls) -> bool:
        return "step" in cls.callbacks

    @classmethod
    def listens(cls) -> bool:
        return "on_message" in cls.callbacks

    def __init__(self, params: Any = None) -> None:
        super().__init__(params)
        from controllers.compiled.codegen import controller_module

        if not type(self).callbacks:
            raise TypeError(f"{type(self).__name__} defines no compiled callback (setup, step, on_message or a timer)")
        self.entries = controller_module(type(self))
        self.values = params_record(self.params)
        size = type(self).payload_bytes
        self.state = np.zeros(1, dtype=type(self).dtype)
        self.io = np.zeros(1, dtype=IO_DTYPE)
        self._cmd, *out, self._timers, self._timer_n = command_buffers(size)
        self._out = tuple(out)
        self._inbound = np.zeros(size, np.uint8)
        self._gens = own_stream(np.random.default_rng(0))
        self._seen: tuple = (None, None)
        self._tail: tuple = ()
        key = (type(self), self.values.dtype)
        if key not in _BOUND:
            _BOUND[key] = self._check()
        self._run = _BOUND[key]

    def bind(self, node_id, robot, net, rng, services) -> None:  # type: ignore[override]
        """As Controller.bind; the compiled code draws from the controller's own stream."""
        super().bind(node_id, robot, net, rng, services)
        self.io[0]["uid"] = node_id
        self._gens = own_stream(rng)
        self._seen = (None, None)

    @property
    def stream(self) -> typed.List:
        """Its random stream as compiled code draws from it (a one-generator typed list)."""
        return self._gens

    def _context(self) -> tuple:
        """The entry points' arguments after the state and the time: the node, and arrays (the poses are
        the world's own; the machine code is bound to C-ordered floats, so others are copied to that).
        Built again when the world hands out other pose arrays, or ones that had to be copied."""
        pos, heading = self.net.poses()
        if pos is not self._seen[0] or heading is not self._seen[1]:
            c_pos, c_heading = (np.ascontiguousarray(x, dtype=np.float64) for x in (pos, heading))
            self._tail = (int(self.id), self.values, self._gens, self.io, c_pos, c_heading, self._cmd, *self._out,
                          *record_buffers(), self._timers, self._timer_n)
            same = c_pos is pos and c_heading is heading  # a copy is a snapshot: never kept for later calls
            self._seen = (pos, heading) if same else (None, None)
        return self._tail

    def _check(self) -> dict[str, Any]:
        """Compile every callback now, for the types it will run with (outside the subset: ProgramError);
        returns each one's machine code (a dispatcher types every argument at every call: 0.3 ms here)."""
        from controllers.compiled.refusals import check_source, explain, unknown_field

        check_source(type(self))
        args = (self.state, 0.0, 0, 0, self.values, self._gens, self.io, np.zeros((1, 3)), np.zeros(1), self._cmd,
                *self._out, *record_buffers(), self._timers, self._timer_n)
        message = (self._inbound, 0, 0.0, b"", 0.0)
        bound = {}
        for name in type(self).callbacks:
            entry = getattr(self.entries, f"{name}_one")
            full = (*args, *message) if name == "on_message" else args
            try:
                with warnings.catch_warnings():  # numba's warnings on the way to a refusal are noise
                    warnings.simplefilter("ignore", NumbaWarning)
                    entry.compile(tuple(typeof(a) for a in full))
            except NumbaError as exc:
                raise explain(type(self), exc) from None
            except KeyError as exc:
                raise unknown_field(type(self), str(exc.args[0])) from None
            bound[name] = bound_overload(entry, full)
        return bound

    # -- what the fused engine (cosim.fused_engine) takes over -------------------------------------------
    def start_timer(self, number: int, period: float, phase: float) -> None:
        """Start the timer callback numbered `number` (core.timer_number) as every(k, ...) asked (NaN
        phase: a seeded random one)."""
        self.every(period, TimerCall(self, number), None if math.isnan(phase) else phase)

    def fused_parts(self) -> tuple:
        """The compiled calls' buffers: motion command, outbox (source rows, destinations, payload rows,
        count), timer requests and count, and the row a message is copied into."""
        return (self._cmd, *self._out, self._timers, self._timer_n, self._inbound)

    def adopt_state(self, row: np.ndarray) -> None:
        """Keep the state in `row` (one record, a view into an engine's array of every robot's), its
        values copied in: the fused engine and this object's own calls then see the same state."""
        if row.dtype != self.state.dtype or row.shape != (1,):
            raise ValueError(f"adopt_state: expected one record of {self.state.dtype}, got {row.dtype} {row.shape}")
        row[:] = self.state
        self.state = row

    def call_timer(self, number: int) -> None:
        """The timer callback numbered `number`, called now (what a TimerCall does)."""
        self._call(type(self).timer_names[number])

    # -- the hooks the coordinator calls ----------------------------------------------------------
    def setup(self) -> None:
        if "setup" in type(self).callbacks:
            self._call("setup")

    def step(self) -> None:
        self._call("step")

    def on_message(self, msg: Message) -> None:
        now = self.now
        if self._run["on_message"](self.state, float(now), round(now * 1e9), *self._context(), self._inbound, int(msg.src),
                                   float(msg.t), bytes(msg.payload), float(msg.rssi_dbm)):
            self._apply()

    def _call(self, name: str) -> None:
        now = self.now
        if self._run[name](self.state, float(now), round(now * 1e9), *self._context()):
            self._apply()

    def _apply(self) -> None:
        """The commands the callback gave: motion, then timers, then messages, then records."""
        cmd = self._cmd[0]
        if cmd[0] == DRIVE:
            self.robot.drive(float(cmd[1]), float(cmd[2]))
        elif cmd[0] == VELOCITY:
            self.robot.set_velocity(float(cmd[1]), float(cmd[2]), float(cmd[3]))
        cmd[0] = 0.0
        for number, period, phase in self._timers[:int(self._timer_n[0])].tolist():
            self.start_timer(int(number), period, phase)
        self._timer_n[0] = 0
        _, dst, rows, count = self._out
        for q in range(int(count[0])):
            payload = rows[q].tobytes()
            if dst[q] < 0:
                self.net.broadcast(payload)
            else:
                self.net.send(int(dst[q]), payload)
        count[0] = 0
        rec_i, rec_v, rec_n = record_buffers()
        for ch, value in zip(rec_i[:int(rec_n[0]), 2].tolist(), rec_v[:int(rec_n[0])].tolist()):
            self.record(channel_name(ch), value)
        rec_n[0] = 0


class TimerCall:
    """A compiled controller's timer callback as a timer's action (the fused engine recognises it)."""

    __slots__ = ("controller", "number")

    def __init__(self, controller: CompiledController, number: int) -> None:
        self.controller = controller
        self.number = number

    def __call__(self) -> None:
        self.controller.call_timer(self.number)
