"""Sending on the run's network: frames from one node or many, counted, recorded and charged to
batteries, on the radio a name picks."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from cosim.core.clock import Clock
from cosim.core.counters import Counters
from cosim.core.recorder import Recorder
from netstack.backend import NetworkBackend
from netstack.interfaces import Interfaces
from physics.bodies.battery import Batteries

KillFn = Callable[[int, str, str], None]
"""kill(node, kind, detail): a robot dies, recorded as an event."""


class Transmitter:
    """Sends frames now (the clock's time) from live nodes; `sent` tells the loop that the network
    has something new to schedule."""

    def __init__(self, net: NetworkBackend | None, interfaces: Sequence[str], clock: Clock, alive: np.ndarray,
                 counters: Counters, recorder: Recorder, batteries: Batteries | None, kill: KillFn) -> None:
        self.net = net
        self.interface_names = tuple(interfaces)
        """The radios, the first `network.radio`; a row's interface number indexes this."""
        self.sent = False
        self._multi = net if isinstance(net, Interfaces) else None
        self._clock = clock
        self._alive = alive
        self._counters = counters
        self._recorder = recorder
        self._batteries = batteries
        self._kill = kill

    def interface_index(self, name: str | None) -> int:
        """The number of the radio called `name` (None: the first, `network.radio`)."""
        if name is None:
            return 0
        if name not in self.interface_names:
            raise ValueError(f"no interface {name!r}; this scenario has {', '.join(self.interface_names)}")
        return self.interface_names.index(name)

    def send(self, src: int, dst: int, payload: bytes, iface: int = 0) -> int | None:
        """A frame from src now, on interface number `iface`; None if src is dead."""
        if self.net is None:
            raise RuntimeError("this scenario has no network (network.backend: none)")
        if not self._alive[src]:
            return None
        if not isinstance(payload, (bytes, bytearray, memoryview)):
            raise TypeError(f"payload must be bytes, got {type(payload).__name__}")
        now = self._clock.now_ns
        if self._multi is not None:
            tx = self._multi.send_on(iface, src, dst, bytes(payload), now)
        else:
            tx = self.net.send(src, dst, bytes(payload), now)
        self.sent = True
        if self._batteries is not None and self._batteries.transmit(src):
            self._kill(src, "battery_empty", "transmission")
        self._counters.sent += 1
        if self._recorder.takes_network:
            self._recorder.send(now, src, dst, tx, len(payload), iface)
        return tx

    def send_many(self, srcs: np.ndarray, dsts: np.ndarray, payloads: list[bytes], iface: int = 0) -> np.ndarray:
        """Frames from several nodes now, in this order (group controllers); -1 for dead senders."""
        if self.net is None:
            raise RuntimeError("this scenario has no network (network.backend: none)")
        out = np.full(len(srcs), -1, dtype=np.int64)
        live = self._alive[srcs]
        if not live.any():
            return out
        if not live.all():
            keep = live.tolist()
            srcs = srcs[live]
            dsts = dsts[live]
            payloads = [p for p, k in zip(payloads, keep) if k]
        now = self._clock.now_ns
        if self._multi is not None:
            tx = self._multi.send_many_on(iface, srcs, dsts, payloads, now)
        else:
            tx = self.net.send_many(srcs, dsts, payloads, now)
        out[live] = tx
        self.sent = True
        self._counters.sent += len(srcs)
        if self._recorder.takes_network:
            sizes = np.fromiter((len(p) for p in payloads), dtype=np.int64, count=len(payloads))
            self._recorder.send_many(now, srcs, dsts, tx, sizes, iface)
        if self._batteries is not None:
            for src in srcs.tolist():
                if self._batteries.transmit(src):
                    self._kill(src, "battery_empty", "transmission")
        return out
