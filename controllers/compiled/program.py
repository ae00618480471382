"""`Program`: a Kilobot program in kilolib's shape whose callbacks numba compiles.

Write the callbacks as plain functions of the robot's state `s` (typed per-robot fields, declared in
`fields`) and its kilolib context `k` (see controllers.compiled.kilolib):

    class Orbit(Program):
        Params = OrbitParams                              # a frozen dataclass of numbers, as for any controller
        fields = {"distance": np.int64, "new_message": np.int64}
        records = ("distance",)                           # the names record(k, name, v) may use

        def loop(s, k): ...                               # 32 times a second
        def message_rx(s, k, msg, d): ...                 # msg.data[0..9], msg.type, msg.crc; d: estimate_distance(d)
        def message_tx(s, k, msg): ...                    # fill msg, return True to send it now
        def message_tx_success(s, k): ...
        def setup(s, k): ...

On the event engine a Program is a `KiloProgram` whose callbacks run compiled, robot by robot, at the
same instants; on the fused engine (cosim.fused_engine) every robot of the scenario runs inside one compiled
loop. Both give the trace the Python program gives.
"""

from __future__ import annotations

import dataclasses
import math
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from controllers import Message
from controllers.compiled.channels import channel, channel_name
from controllers.compiled.kilolib import DISTANCE_DTYPE, IO_DTYPE, MESSAGE_DTYPE
from controllers.compiled.record_buffers import record_buffers
from controllers.kilolib.api import TICKS_PER_S, KiloParams, KiloProgram
from controllers.kilolib.messages import message_t
from jit.streams import own_stream

if TYPE_CHECKING:
    from numba import typed

_CHECKED: set = set()
CALLBACKS = ("setup", "loop", "message_rx", "message_tx", "message_tx_success")


def _no_setup(s, k):
    return None


def _no_loop(s, k):
    return None


def _no_rx(s, k, msg, d):
    return None


def _no_tx(s, k, msg):
    return False


def _no_txs(s, k):
    return None


DEFAULTS = {"setup": _no_setup, "loop": _no_loop, "message_rx": _no_rx, "message_tx": _no_tx, "message_tx_success": _no_txs}


def state_dtype(fields: dict[str, Any]) -> np.dtype:
    """The per-robot state's dtype: each field a numpy scalar type, or (type, shape) for an array."""
    spec = []
    for name, kind in fields.items():
        if not name.isidentifier():
            raise ValueError(f"field name {name!r} is not an identifier")
        if isinstance(kind, tuple):
            spec.append((name, np.dtype(kind[0]), kind[1] if isinstance(kind[1], tuple) else (kind[1],)))
        else:
            spec.append((name, np.dtype(kind)))
    return np.dtype(spec if spec else [("_unused", np.int8)])


def declared_layout(cls: type, payload_bytes: int) -> np.dtype:
    """A compiled class's declarations checked: its message size, its record names (registered, so
    that record() accepts them); returns the dtype of its per-robot state `fields`."""
    if isinstance(payload_bytes, bool) or not isinstance(payload_bytes, int) or not 0 <= payload_bytes <= 65535:
        raise ValueError(f"{cls.__name__}.payload_bytes: expected a whole number of bytes within 0..65535, "
                         f"got {payload_bytes!r}")
    for name in cls.records:
        channel(name)
    return state_dtype(cls.fields)


def params_record(params: Any) -> np.ndarray:
    """The Params dataclass as a 1-element structured array of numbers (compiled code reads k.params.x):
    ints as int64, floats as float64, bools as bool. A new array each call; its layout is worked out
    once per distinct (hashable) Params value, since every robot of a group asks with the same one."""
    try:  # keyed by the values' types too: Params(x=1) == Params(x=1.0), but one is int64, the other float64
        key = (params, tuple(map(type, vars(params).values())))
        dtype, values = _PARAMS.get(key) or _PARAMS.setdefault(key, _params_layout(params))
    except TypeError:  # not hashable, or no __dict__
        dtype, values = _params_layout(params)
    out = np.zeros(1, dtype=dtype)
    if values:
        out[0] = values
    return out


_PARAMS: dict[Any, tuple[np.dtype, tuple]] = {}


def _params_layout(params: Any) -> tuple[np.dtype, tuple]:
    fields = []
    values = []
    for f in dataclasses.fields(params):
        v = getattr(params, f.name)
        if not isinstance(v, (bool, int, float)):
            raise ValueError(f"{type(params).__name__}.{f.name} = {v!r}: compiled programs take numeric parameters only")
        fields.append((f.name, np.bool_ if isinstance(v, bool) else np.int64 if isinstance(v, int) else np.float64))
        values.append(v)
    return np.dtype(fields if fields else [("_unused", np.int8)]), tuple(values)


@dataclasses.dataclass(frozen=True)
class Motion:
    """The velocity and turn a Kilobot's motors give over one motion step (KiloProgram._move's numbers)."""

    forward: float
    left: tuple[float, float, float]  # (turn angle per step, vx, vy): the left motor alone
    right: tuple[float, float, float]

    @staticmethod
    def of(p: KiloParams) -> Motion:
        def pivot(left: bool) -> tuple[float, float, float]:
            w = p.turn_rate if left else -p.turn_rate
            a = math.radians(p.leg_angle_deg)
            px = p.leg_radius * math.cos(a)
            py = p.leg_radius * math.sin(a) * (1.0 if left else -1.0)
            vx = w * py
            vy = -w * px
            half = -0.5 * w * p.motion_dt
            c = math.cos(half)
            s = math.sin(half)
            return w * p.motion_dt, c * vx - s * vy, s * vx + c * vy
        return Motion(p.forward_speed, pivot(True), pivot(False))

    def row(self) -> list[float]:
        return [self.forward, *self.left, *self.right]


class Program(KiloProgram):
    """Base class of compiled Kilobot programs (see the module docstring)."""

    fields: ClassVar[dict[str, Any]] = {}
    records: ClassVar[tuple[str, ...]] = ()
    callbacks: ClassVar[dict[str, Any]] = {}
    """The program's callbacks, compiled lazily (numba dispatchers), by kilolib name."""

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        from numba import njit
        from numba.core.dispatcher import Dispatcher

        own = {name: cls.__dict__[name] for name in CALLBACKS if name in cls.__dict__}
        for name, fn in own.items():
            if not callable(fn):
                raise TypeError(f"{cls.__name__}.{name} must be a function of (s, k, ...)")
            delattr(cls, name)
        inherited = dict(cls.callbacks)
        cls.callbacks = {name: own[name] if name in own else inherited.get(name, DEFAULTS[name]) for name in CALLBACKS}
        cls.callbacks = {name: fn if isinstance(fn, Dispatcher) else njit(cache=True)(fn)
                         for name, fn in cls.callbacks.items()}
        cls.dtype = state_dtype(cls.fields)
        for name in cls.records:
            channel(name)

    def __init__(self, params: KiloParams | None = None) -> None:
        super().__init__(params)
        from controllers.compiled.codegen import check_compiles, program_module

        self.entries = program_module(type(self))
        self.values = params_record(self.params)
        key = (type(self), self.values.dtype)
        if key not in _CHECKED:
            check_compiles(type(self), self.entries, self.values)
            _CHECKED.add(key)
        self.motion = Motion.of(self.params)
        self.state = np.zeros(1, dtype=type(self).dtype)
        self.io = np.zeros(1, dtype=IO_DTYPE)
        self.io[0]["color"] = -1
        self.io[0]["moving"] = True
        self._msg = np.zeros(1, dtype=MESSAGE_DTYPE)
        self._dist = np.zeros(1, dtype=DISTANCE_DTYPE)
        self._gens = None
        self.first_ns = (0, 0)

    def bind(self, node_id, robot, net, rng, services) -> None:  # type: ignore[override]
        """As KiloProgram.bind; the phases of the loop and transmit timers are kept for the fused engine."""
        loop_phase = float(rng.random()) / TICKS_PER_S
        tx_phase = float(rng.random()) * self.params.tx_period
        super(KiloProgram, self).bind(node_id, robot, net, rng, services)
        self.io[0]["uid"] = node_id
        self._gens = own_stream(rng)
        self.first_ns = (round(loop_phase * 1e9), round(tx_phase * 1e9))
        self.every(1.0 / TICKS_PER_S, self.loop, loop_phase)
        self.every(self.params.tx_period, self._transmit, tx_phase)
        self.every(self.params.motion_dt, self._move, 0.0)

    @property
    def stream(self) -> typed.List:
        """Its random stream as compiled code draws from it (a one-generator typed list; set by bind)."""
        return self._gens

    def timer_callbacks(self) -> tuple:
        """What its loop, transmit and motion timers call (the fused engine runs them itself)."""
        return self.loop, self._transmit, self._move

    # -- the compiled callbacks, one robot at a time (the event engine) -------------------------------
    def _args(self) -> tuple:
        return (self.state, self.io, self._gens, self.values, *record_buffers(), round(self.now * 1e9))

    def _collect(self) -> None:
        io = self.io[0]
        self._motors = (bool(io["motor_l"]), bool(io["motor_r"]))
        rec_i, rec_v, rec_n = record_buffers()
        n = int(rec_n[0])
        if n:
            for ch, v in zip(rec_i[:n, 2].tolist(), rec_v[:n].tolist()):
                self.record(channel_name(ch), v)
            rec_n[0] = 0

    def setup(self) -> None:
        self.entries.setup_one(*self._args())
        self._collect()

    def loop(self) -> None:
        self.entries.loop_one(*self._args())
        self._collect()

    def on_message(self, msg: Message) -> None:
        if message_t.parse(msg.payload) is None:
            return
        d = self._measure(self.net.range_to(msg.src))
        self._msg[0] = np.frombuffer(msg.payload, dtype=MESSAGE_DTYPE)[0]
        self._dist[0] = (d.high_gain, d.low_gain)
        self.entries.rx_one(*self._args(), self._msg, self._dist)
        self._collect()

    def _transmit(self) -> None:
        self._msg[0] = np.zeros(1, dtype=MESSAGE_DTYPE)[0]
        send = self.entries.tx_one(*self._args(), self._msg)
        self._collect()
        if send:
            self.net.broadcast(self._msg.tobytes())
            self.entries.txs_one(*self._args())
            self._collect()
