"""Several radios per node: one NetworkBackend made of several, one per interface.

Every backend knows all N nodes; a node that does not carry an interface is dead on that backend
for the whole run. Transmission ids are made unique across interfaces (local id x K + interface),
and the events of one instant from all interfaces come out as one NetEvents whose `iface`,
`drop_iface` and TxStatus.iface say where each row happened.

Time: backends that can say when their next event is (the fast radio, with or without
contention) are never run past it, so a frame sent in reaction to another interface's delivery
is never in their past. At most one backend may not know (ns-3): it runs first, up to the
earliest next event of the others, and stops at its own first event.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

import numpy as np

from netstack.backend import IndexedPayloads, NetEvents, NetworkBackend

_I64 = np.int64


@dataclass(frozen=True)
class Interface:
    """One radio: its name, its backend, which nodes carry it, and whether the backend can tell its
    next event time (ns-3 cannot)."""

    name: str
    backend: NetworkBackend
    carried: np.ndarray  # bool per node
    knows_next_event: bool = True


class Interfaces:
    """Implements netstack.backend.NetworkBackend over several interfaces (see the module docstring);
    `send` and `send_many` use the first, `send_on` and `send_many_on` any."""

    def __init__(self, interfaces: Sequence[Interface]) -> None:
        if len([i for i in interfaces if not i.knows_next_event]) > 1:
            raise ValueError("at most one interface may run on a backend that cannot tell its next event time (ns-3)")
        self.interfaces = tuple(interfaces)
        self.names = tuple(i.name for i in self.interfaces)
        self._k = len(self.interfaces)
        self._blind = next((i for i in self.interfaces if not i.knows_next_event), None)
        self._seeing = [i for i in self.interfaces if i.knows_next_event]
        self.now_ns = 0

    def index(self, name: str) -> int:
        """The interface's number (its position in `names`)."""
        if name not in self.names:
            raise ValueError(f"no interface {name!r}; this scenario has {', '.join(self.names)}")
        return self.names.index(name)

    # -- NetworkBackend --------------------------------------------------------------------------
    def add_node(self, node_id: int) -> None:
        """Nodes come in order; once the last is in, those that do not carry an interface die on it."""
        for i in self.interfaces:
            i.backend.add_node(node_id)
        if node_id == len(self.interfaces[0].carried) - 1:
            for i in self.interfaces:
                for node in np.flatnonzero(~i.carried).tolist():
                    i.backend.set_alive(node, False)

    def set_positions(self, t_ns: int, xyz: np.ndarray, vel: np.ndarray) -> None:
        for i in self.interfaces:
            i.backend.set_positions(t_ns, xyz, vel)

    def set_alive(self, node_id: int, alive: bool) -> None:
        for i in self.interfaces:
            i.backend.set_alive(node_id, alive and bool(i.carried[node_id]))

    def set_listening(self, node_id: int, listening: bool) -> None:
        for i in self.interfaces:
            i.backend.set_listening(node_id, listening)

    def set_passive_kinds(self, kinds: frozenset[int]) -> None:
        for i in self.interfaces:
            i.backend.set_passive_kinds(kinds)

    def send(self, src: int, dst: int, payload: bytes, at_ns: int) -> int:
        return self.send_on(0, src, dst, payload, at_ns)

    def send_many(self, srcs: np.ndarray, dsts: np.ndarray, payloads: list[bytes], at_ns: int) -> np.ndarray:
        return self.send_many_on(0, srcs, dsts, payloads, at_ns)

    def send_on(self, k: int, src: int, dst: int, payload: bytes, at_ns: int) -> int:
        """A frame on interface k; its id is unique across interfaces."""
        i = self.interfaces[k]
        if not i.carried[src]:
            raise ValueError(f"node {src} has no interface {i.name!r}")
        return i.backend.send(src, dst, payload, at_ns) * self._k + k

    def send_many_on(self, k: int, srcs: np.ndarray, dsts: np.ndarray, payloads: list[bytes], at_ns: int) -> np.ndarray:
        i = self.interfaces[k]
        missing = np.asarray(srcs)[~i.carried[np.asarray(srcs)]]
        if len(missing):
            raise ValueError(f"node {int(missing[0])} has no interface {i.name!r}")
        return np.asarray(i.backend.send_many(srcs, dsts, payloads, at_ns), dtype=_I64) * self._k + k

    def next_event_ns(self) -> int | None:
        times = [t for i in self.interfaces if (t := i.backend.next_event_ns()) is not None]
        return min(times) if times else None

    def advance(self, until_ns: int) -> tuple[int, NetEvents | None]:
        while True:
            horizon = until_ns
            for i in self._seeing:
                t = i.backend.next_event_ns()
                if t is not None:
                    horizon = min(horizon, max(t, self.now_ns))
            parts: list[tuple[int, NetEvents]] = []
            if self._blind is not None:
                reached, ev = self._blind.backend.advance(horizon)
                if ev is not None:
                    horizon = reached
                    parts.append((self.interfaces.index(self._blind), ev))
            for i in self._seeing:
                reached, ev = i.backend.advance(horizon)
                if ev is not None:  # at the horizon: nothing of theirs comes before it
                    parts.append((self.interfaces.index(i), ev))
            self.now_ns = horizon
            if parts:
                return horizon, self._merge(horizon, sorted(parts, key=lambda p: p[0]))
            if horizon >= until_ns:
                return until_ns, None

    def _merge(self, t_ns: int, parts: list[tuple[int, NetEvents]]) -> NetEvents:
        """One instant's events of several interfaces as one NetEvents, interface by interface."""
        k = self._k
        evs = [ev for _, ev in parts]
        iface = np.concatenate([np.full(len(ev.dst), j, np.int8) for j, ev in parts])
        drop_iface = np.concatenate([np.full(len(ev.drop_dst), j, np.int8) for j, ev in parts])
        timed = any(ev.rx_t_ns is not None for ev in evs)
        lqi = None if all(ev.lqi is None for ev in evs) else np.concatenate(
            [ev.lqi if ev.lqi is not None else np.full(len(ev.dst), -1, np.int16) for ev in evs])
        return NetEvents(
            t_ns=t_ns,
            dst=np.concatenate([ev.dst for ev in evs]).astype(_I64, copy=False),
            src=np.concatenate([ev.src for ev in evs]).astype(_I64, copy=False),
            tx_id=np.concatenate([ev.tx_id * k + j for j, ev in parts]),
            rssi_dbm=np.concatenate([ev.rssi_dbm for ev in evs]),
            snr_db=np.concatenate([ev.snr_db for ev in evs]),
            size=np.concatenate([ev.size for ev in evs]),
            payloads=IndexedPayloads.concat([_indexed(ev.payloads) for ev in evs]),
            tx_status=[replace(st, tx_id=st.tx_id * k + j, iface=j) for j, ev in parts for st in ev.tx_status],
            drop_dst=np.concatenate([ev.drop_dst for ev in evs]),
            drop_src=np.concatenate([ev.drop_src for ev in evs]),
            drop_tx_id=np.concatenate([ev.drop_tx_id * k + j for j, ev in parts]),
            drop_reason=np.concatenate([ev.drop_reason for ev in evs]),
            rx_t_ns=np.concatenate([ev.row_times() for ev in evs]) if timed else None,
            lqi=lqi,
            iface=iface,
            drop_iface=drop_iface,
        )

    def control_overhead(self) -> tuple[int, int]:
        counts = [i.backend.control_overhead() for i in self.interfaces]
        return sum(c[0] for c in counts), sum(c[1] for c in counts)

    def frames_received(self) -> list[int] | None:
        lists = [f for i in self.interfaces if (f := i.backend.frames_received()) is not None]
        return [sum(col) for col in zip(*lists)] if lists else None

    def mac_counts(self) -> dict[str, int]:
        out: dict[str, int] = {}
        for i in self.interfaces:
            for key, value in i.backend.mac_counts().items():
                out[f"{i.name}.{key}"] = value
        return out

    def ip_events(self) -> np.ndarray:
        return np.concatenate([i.backend.ip_events() for i in self.interfaces])

    def close(self) -> None:
        for i in self.interfaces:
            i.backend.close()


def _indexed(payloads: Sequence[bytes]) -> IndexedPayloads:
    if isinstance(payloads, IndexedPayloads):
        return payloads
    return IndexedPayloads(list(payloads), np.arange(len(payloads), dtype=_I64))
