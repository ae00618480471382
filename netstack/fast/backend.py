"""The `fast` network backend: a numpy radio model for thousands of nodes and for quick tests.

Model: received power = tx power - path loss(distance); a frame is received when that power reaches
the threshold (or inside the disk, for unit_disk) and an independent Bernoulli draw does not lose it.
A node's radio sends one frame at a time: a frame starts when the radio is free, lasts
(payload + overhead) * 8 / bit_rate, and arrives `latency` after it ends. With `obstacle_loss_db`
the world's obstacles take that much off the received power for each one the line of sight crosses
(`obstacles_block`: any crossing blocks the link), counted for all receivers at once. There is no interference
or collision model; use the ns-3 backend where that matters. Unicast frames report a TxStatus at
their arrival time: acked if received, dropped otherwise (no MAC retries).
"""

from __future__ import annotations

import math

import numpy as np

from jit.calls import BoundCalls
from jit.streams import own_stream
from netstack.backend import BROADCAST, NetEvents
from netstack.fast import air
from netstack.fast.air import EARLIEST, POOL_USED, SLOTS_USED, Flights, Radio
from netstack.fast.cells import cells_of, index
from netstack.fast.config import FastRadioConfig
from netstack.fast.deliveries import events
from netstack.fast.nodes import NodeTable
from netstack.fast.shadowing import Solids, crossings

FIRST_SLOTS = 64
FIRST_POOL = 1 << 16
"""Room for frames in the air and their receivers at the start; doubled as often as needed (air.roomy)."""


class FastBackend:
    """Implements netstack.backend.NetworkBackend with the model described in the module docstring.
    Its state is two records (netstack.fast.air): the radio and the frames in the air."""

    def __init__(self, config: FastRadioConfig, rng: np.random.Generator, solids: Solids | None = None) -> None:
        self.config = config
        self._stream = own_stream(rng)  # the loss draws' stream, for compiled code
        self._solids = solids if solids is not None and config.shadowed and solids.count else None
        self.nodes = NodeTable()
        self._busy = np.zeros(0, dtype=np.int64)
        self._sync = np.zeros(1, dtype=np.int64)
        self._range = config.max_range_m()
        self._ignores_threshold = config.pathloss.ignores_threshold()
        self._judged = self._solids is not None or not self._ignores_threshold  # receivers in reach then judged by power
        self._radio: Radio | None = None  # built at the first send after nodes were added
        self.flights = air.flights_of(0, 0, slots=FIRST_SLOTS, pool=FIRST_POOL)
        self._payloads: list[bytes] = [b""] * FIRST_SLOTS  # each slot's payload
        self._synced = False  # positions synced since the index last looked at them
        self._calls = BoundCalls()
        self.now_ns = 0

    # -- interface -------------------------------------------------------------------------
    def add_node(self, node_id: int) -> None:
        self.nodes.add(node_id)
        busy = np.zeros(self.nodes.n, dtype=np.int64)
        busy[:len(self._busy)] = self._busy
        self._busy = busy
        self._radio = None

    def set_positions(self, t_ns: int, xyz: np.ndarray, vel: np.ndarray) -> None:
        self.nodes.sync(t_ns, xyz, vel)
        self._sync[0] = t_ns
        self._synced = True  # the index looks at these positions at the next send

    def set_alive(self, node_id: int, alive: bool) -> None:
        self.nodes.alive[node_id] = alive

    def set_listening(self, node_id: int, listening: bool) -> None:
        """Every delivery is returned at its own time anyway."""

    def send(self, src: int, dst: int, payload: bytes, at_ns: int) -> int:
        cfg = self.config
        cfg.check_frame(src, dst, len(payload), self.nodes.n)
        r = self.radio()
        f = self._room(1)
        size = len(payload)
        args = (f, r, self.nodes.alive, src, dst, size, cfg.airtime_to_ns(dst, size), at_ns)
        if self._judged:
            start = max(at_ns, int(self._busy[src]))
            s = self._calls(air.place, *args)
            self._judge(s, src, start)
            self._calls(air.draw, f, r, s)
        else:
            s = self._calls(air.launch, *args)
        self._keep(s, payload)
        return int(f.tx[s])

    def send_many(self, srcs: np.ndarray, dsts: np.ndarray, payloads: list[bytes], at_ns: int) -> np.ndarray:
        """Frames from several nodes at one instant, as one by one in order: one compiled call for
        them all where no power judges the receivers (air.launch_many)."""
        srcs = np.asarray(srcs, dtype=np.int64)
        dsts = np.asarray(dsts, dtype=np.int64)
        k = len(srcs)
        n = self.nodes.n
        cfg = self.config
        sizes = np.fromiter((len(p) for p in payloads), dtype=np.int64, count=k)
        valid = (k and srcs.min() >= 0 and srcs.max() < n and sizes.max() <= cfg.max_payload_bytes
                 and np.all((dsts == BROADCAST) | ((dsts >= 0) & (dsts < n))))
        if self._judged or not valid:  # one by one (the first bad frame raises, as it would alone)
            return np.array([self.send(s, d, p, at_ns) for s, d, p in zip(srcs.tolist(), dsts.tolist(), payloads)],
                            dtype=np.int64)
        air_ns = {key: cfg.airtime_to_ns(*key) for key in set(zip(dsts.tolist(), sizes.tolist()))}
        airtimes = np.fromiter((air_ns[key] for key in zip(dsts.tolist(), sizes.tolist())), dtype=np.int64, count=k)
        r = self.radio()
        slots = np.zeros(k, dtype=np.int64)
        done = 0
        while done < k:
            self._room(1)
            done += self._calls(air.launch_many, self.flights, r, self.nodes.alive, srcs[done:], dsts[done:],
                                sizes[done:], airtimes[done:], at_ns, slots[done:])
        for s, p in zip(slots.tolist(), payloads):
            self._keep(s, p)
        return self.flights.tx[slots]

    def advance(self, until_ns: int) -> tuple[int, NetEvents | None]:
        f = self.flights
        t = int(f.state[EARLIEST])
        if t > until_ns:
            self.now_ns = until_ns
            return until_ns, None
        alive = self.nodes.alive
        due, got = self._calls(air.land, f, t, alive)
        ev = events(t, f, due, got, alive, [self._payloads[s] for s in due.tolist()], self.config, self._solids is not None)
        self.now_ns = t
        return t, ev

    def next_event_ns(self) -> int | None:
        t = int(self.flights.state[EARLIEST])
        return None if t == air.INF else t

    def set_passive_kinds(self, kinds: frozenset[int]) -> None:
        """Nothing to do: this backend stops at every delivery time anyway, which is as exact."""

    def control_overhead(self) -> tuple[int, int]:
        """No routing runs inside this backend."""
        return 0, 0

    def frames_received(self) -> list[int] | None:
        """None: the coordinator counts the frames it hands to each stack."""
        return None

    def mac_counts(self) -> dict[str, int]:
        """None: this backend has no MAC (a frame is one transmission)."""
        return {}

    def ip_events(self) -> np.ndarray:
        """None: no routing runs inside this backend."""
        return np.zeros((0, 8), dtype=np.int64)

    def close(self) -> None:
        self.flights = air.flights_of(0, 0, slots=FIRST_SLOTS, pool=FIRST_POOL)

    @property
    def shadows(self) -> bool:
        """Whether the world's obstacles weaken this radio's links."""
        return self._solids is not None

    # -- the records, for an engine that runs the kernels itself (cosim.fused_engine) -------------------
    def radio(self) -> Radio:
        """The radio's record, its cell index having looked at the positions of the last sync."""
        r = self._radio
        if r is None:
            cfg = self.config
            nodes = self.nodes
            limit = self._range if self._ignores_threshold else math.inf  # the disk's edge is its loss's
            r = self._radio = Radio(nodes.pos, nodes.vel, self._sync, self._busy, self._stream, float(cfg.loss_probability),
                                    self._range, limit, int(cfg.latency_ns), cells_of(nodes.n))
            self._synced = True
        if self._synced:
            if math.isfinite(self._range):  # (below MIN_NODES nodes the index keeps no cells)
                self._calls(index, r.cells, r.pos, r.vel, r.range_m)
            self._synced = False
        return r

    def share(self, width: int) -> tuple[Radio, Flights]:
        """The records, for an engine that runs their kernels itself (cosim.fused_engine): from now on the
        frames keep the first `width` bytes of each payload for compiled receivers."""
        f = self.flights
        if width > f.payload.shape[1]:
            self.flights = air.resized(f, len(f.live), len(f.node), width)
        return self.radio(), self.flights

    def make_room(self, launches: int) -> Flights:
        """The frames in the air with at least half their room free and room for `launches` more
        (air.roomy): grown, or as they were."""
        return self._grown(air.roomy(self.flights, self.nodes.n, launches))

    def _room(self, launches: int) -> Flights:
        """The frames in the air, made room in (make_room) only when `launches` more would not fit."""
        f = self.flights
        if f.state[SLOTS_USED] + launches > len(f.live) or f.state[POOL_USED] + launches * self.nodes.n > len(f.node):
            return self.make_room(launches)
        return f

    def _grown(self, f: Flights) -> Flights:
        self.flights = f
        self._payloads.extend([b""] * (len(f.live) - len(self._payloads)))
        return f

    # -- model -----------------------------------------------------------------------------
    def _judge(self, s: int, src: int, start_ns: int) -> None:
        """Slot s's receivers in reach kept where the received power (after obstacles) reaches the
        threshold (for a range cut-off model: where no obstacle blocks), with the dB obstacles take."""
        f = self.flights
        cfg = self.config
        a = int(f.start[s])
        c = int(f.count[s])
        node = f.node[a:a + c]
        dist = f.dist[a:a + c]
        rssi = cfg.tx_power_dbm - cfg.pathloss.loss_db(dist)
        shade = np.zeros(c)
        if self._solids is not None and c:
            here = self._positions_at(start_ns, np.array([src]))
            crossed = crossings(np.repeat(here, c, axis=0), self._positions_at(start_ns, node), self._solids)
            shade = cfg.obstacle_loss_db * crossed
            rssi = np.where(crossed > 0, -np.inf, rssi) if cfg.obstacles_block else rssi - shade
        keep = np.isfinite(rssi) if self._ignores_threshold else rssi >= cfg.rx_threshold_dbm
        k = int(keep.sum())
        f.node[a:a + k] = node[keep]
        f.dist[a:a + k] = dist[keep]
        f.shade[a:a + k] = shade[keep]
        f.count[s] = k
        f.state[POOL_USED] = a + k

    def _keep(self, s: int, payload: bytes) -> None:
        """Slot s's payload: kept whole for Python's receivers, its first bytes in the record."""
        self._payloads[s] = bytes(payload)  # (a copy of a buffer the sender may change)
        row = self.flights.payload[s]
        if len(row):
            k = min(len(payload), len(row))
            row[:] = 0
            row[:k] = np.frombuffer(payload[:k], dtype=np.uint8)

    def _positions_at(self, t_ns: int, idx: np.ndarray) -> np.ndarray:
        dt = (t_ns - int(self._sync[0])) / 1e9
        if dt == 0.0:
            return self.nodes.pos[idx]
        return self.nodes.pos[idx] + self.nodes.vel[idx] * dt

