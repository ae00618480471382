"""The fused engine's Python side: hands the world, the radio and the programs to the compiled loop
(cosim.fused.loop), and between its calls writes what it produced into the trace, the counters,
the neighbour table and the progress line, at the instants the event loop would.
"""

from __future__ import annotations

import time
import warnings
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
from numba import typed
from numba.core.errors import NumbaPendingDeprecationWarning

from controllers.compiled.codegen import fused_module
from controllers.compiled.kilolib import DISTANCE_DTYPE, MESSAGE_DTYPE, RECORD_CAPACITY, channel_name
from controllers.compiled.program import Program
from cosim.fused import loop
from cosim.fused.kernels import DELIVER, DROP, INF, SEND, Flights, Radio, Timers, World, stream_list
from netstack.backend import BROADCAST
from netstack.fast.backend import FastBackend
from physics.kinematic import KinematicWorld

if TYPE_CHECKING:
    from cosim.core.coordinator import Simulation

LOG_ROWS = 1 << 18


class FusedLoop:
    """Implements cosim.core.parts.LoopRunner with the compiled loop (see the module docstring)."""

    def run(self, sim: Simulation, end_ns: int) -> None:
        hosts: list[Program] = list(sim.controllers)
        variants = list(dict.fromkeys((type(h), h.values.tobytes()) for h in hosts))  # a class with its parameters
        module = fused_module([cls for cls, _ in variants], Path(loop.__file__))
        world, net = sim.world, sim.net
        assert isinstance(world, KinematicWorld) and isinstance(net, FastBackend)
        W = _world(world)
        R, first_tx = _radio(net, len(hosts))
        F = _flights(len(hosts))
        T = _timers(hosts)
        P = _programs(hosts, variants)
        L = loop.Log(np.zeros(LOG_ROWS, np.int64), np.zeros(LOG_ROWS, np.int64), np.zeros(LOG_ROWS, np.int64),
                     np.zeros(LOG_ROWS, np.int64), np.zeros(LOG_ROWS, np.int64), np.zeros(LOG_ROWS), np.zeros(1, np.int64),
                     np.zeros(5, np.int64))
        F.state[3] = first_tx
        clock = np.array([sim.dt_ns, 0, sim.dt_ns, sim.quantum_ns, sim.duration_ns], dtype=np.int64)
        base = (sim.counters.sent, sim.counters.delivered, sim.counters.dropped, sim.counters.physics_steps)
        outputs = _Outputs(sim, net, P, L, base)
        sample = sim.recorder.want_positions or sim.neighbor_table is not None
        next_sample, next_progress = (0 if sample else -1), 0
        if sim.progress is None:  # the event loop's progress events do nothing then: count them, do not stop
            outputs.extra_events += len(range(0, sim.duration_ns, sim.progress_every_ns))
            next_progress = -1
        advance, typed_once = module.advance, False
        while True:
            stop = min(t for t in (next_sample, next_progress, end_ns + 1) if t >= 0)
            status = advance(stop, end_ns, W, R, F, T, P, L, clock)
            if not typed_once:  # the dispatcher has compiled or loaded its one signature by now
                advance, typed_once = _entry_point(module.advance), True
            outputs.drain()
            if status == loop.FULL:
                continue
            if status == loop.ENDED:
                break
            sim.now_ns = stop
            if stop == next_sample:
                outputs.sample(stop)
                nxt = stop + sim.sample_every_ns
                next_sample = nxt if nxt <= sim.duration_ns else -1
            if stop == next_progress:
                outputs.progress(stop)
                nxt = stop + sim.progress_every_ns
                next_progress = nxt if nxt < sim.duration_ns else -1
        sim.now_ns = end_ns


def _entry_point(dispatcher):
    """The compiled function itself once it has its one signature: calling it skips the dispatcher's
    typing of every argument (about 2 ms for these tuples of structured arrays, per call)."""
    if len(dispatcher.signatures) != 1:
        return dispatcher
    return dispatcher.overloads[dispatcher.signatures[0]].entry_point


class _Outputs:
    """What the compiled loop leaves in its logs, written where the event loop writes it."""

    def __init__(self, sim: Simulation, net: FastBackend, P: loop.Programs, L: loop.Log, base: tuple) -> None:
        self.sim, self.net, self.P, self.L, self.base = sim, net, P, L, base
        self.events0 = sim.counters.events
        self.extra_events = 0

    def drain(self) -> None:
        sim, L, P = self.sim, self.L, self.P
        n = int(L.n[0])
        if n:
            self._network(L.t[:n], L.kind[:n], L.src[:n], L.dst[:n], L.tx[:n], L.dist[:n])
            L.n[0] = 0
        m = int(P.rec_n[0])
        if m:
            rec = sim.recorder
            if rec.want_records or rec.observers:  # a name per row, looked up once per distinct channel
                rows = P.rec_i[:m]
                channels, which = np.unique(rows[:, 2], return_inverse=True)
                names = [channel_name(int(ch)) for ch in channels]
                rec.record_rows(rows[:, 0].copy(), rows[:, 1].copy(), [names[q] for q in which.tolist()],
                                P.rec_v[:m].copy())
            P.rec_n[0] = 0
        c, b = sim.counters, self.base
        c.sent, c.delivered, c.dropped, c.physics_steps = (b[0] + int(L.counters[0]), b[1] + int(L.counters[1]),
                                                           b[2] + int(L.counters[2]), b[3] + int(L.counters[3]))
        c.events = self.events0 + int(L.counters[4]) + self.extra_events

    def _network(self, t, kind, src, dst, tx, dist) -> None:
        sim, cfg = self.sim, self.net.config
        rx = kind == DELIVER
        rssi = np.full(len(t), np.nan)
        rssi[rx] = cfg.tx_power_dbm - cfg.pathloss.loss_db(dist[rx])
        if sim.recorder.want_network:
            size = np.where(kind == DROP, 0, 12)
            reason = np.where(kind == DROP, 1, 0)
            dst_col = np.where(kind == SEND, BROADCAST, dst)
            sim.recorder.network_rows(t, kind, src, dst_col, tx, size, rssi, reason)
        if rx.any():
            sim.neighbor_table.update(t[rx].copy(), dst[rx].copy(), src[rx].copy(), rssi[rx])

    def sample(self, t: int) -> None:
        """Simulation._sample: positions into the trace, the mean neighbour count."""
        sim = self.sim
        w = sim.world
        if sim.recorder.want_positions:
            sim.recorder.positions(t, w.positions(), w.velocities(), w.headings(), sim.alive, None)
        if sim.neighbor_table is not None:
            sim.counters.neighbor_samples.append(sim.neighbor_table.mean_count(t - sim.neighbor_timeout_ns, sim.alive))
        self.extra_events += 1

    def progress(self, t: int) -> None:
        sim = self.sim
        if sim.progress is not None:
            sim.progress(t, sim.duration_ns, time.perf_counter() - sim.wall_start)
        self.extra_events += 1


def _world(world: KinematicWorld) -> World:
    pos, vel, radius, lo, hi, trig, at_rest = world.point_arrays()
    return World(pos, vel, world.active_vel, world.cmd_vel, world.active_heading, world.cmd_heading, world.max_speed,
                 world.alive, radius, lo, hi, trig, at_rest, float(world.max_accel), bool(world.collisions),
                 float(radius.max()) if len(radius) else 0.0, np.zeros_like(pos), np.zeros((16 * len(pos) + 64, 2), np.int64),
                 np.zeros(2, np.int64))


def _radio(net: FastBackend, n: int) -> tuple[Radio, int]:
    """The radio's state at the start, and its next transmission id."""
    rng, busy, first_tx = net.hand_over()
    cfg = net.config
    nodes = net.nodes
    return Radio(nodes.pos.copy(), nodes.vel.copy(), np.array([nodes.sync_ns], np.int64), busy, rng,
                 float(cfg.loss_probability), float(cfg.pathloss.range_m), int(cfg.airtime_to_ns(BROADCAST, 12)),
                 int(cfg.latency_ns), np.zeros(n, np.int64), np.zeros(n, np.int64), np.zeros((n, 3)), np.zeros(7),
                 np.zeros(n, np.int64)), first_tx


def _flights(n: int) -> Flights:
    slots = 4 * n + 64
    pool = max(64 * n, 1 << 16)
    return Flights(np.zeros(slots, np.int64), np.zeros(slots, np.int64), np.zeros(slots, np.int64),
                   np.zeros(slots, np.int64), np.zeros((slots, 12), np.uint8), np.zeros(slots, np.int64),
                   np.zeros(slots, np.int64), np.zeros(slots, np.bool_), np.zeros(pool, np.int64), np.zeros(pool),
                   np.zeros(pool, np.bool_), np.array([0, 0, 0, 0, INF], np.int64), np.zeros(slots, np.int64))


def _periods(h: Program) -> tuple[int, int, int]:
    """A program's timer periods (ns): loop, transmit, motion."""
    return 31_250_000, round(h.params.tx_period * 1e9), round(h.params.motion_dt * 1e9)


def _timers(hosts: list[Program]) -> Timers:
    """The timers each Program queued at bind (loop, transmit, motion: sequence numbers 3i, 3i + 1,
    3i + 2), as rings of one kind and period in the order they fire."""
    entries: dict[tuple[int, int], list[tuple[int, int, int]]] = {}  # (kind, period) -> [(first t, seq, robot)]
    for i, h in enumerate(hosts):
        first_loop, first_tx = h.first_ns
        periods = _periods(h)
        for kind, first in ((loop.LOOP, first_loop), (loop.TRANSMIT, first_tx), (loop.MOVE, 0)):
            entries.setdefault((kind, periods[kind]), []).append((first, 3 * i + kind, i))
    rings = [sorted(v) for v in entries.values()]
    flat = [e for ring in rings for e in ring]
    lengths = np.array([len(r) for r in rings], np.int64)
    return Timers(np.array([e[0] for e in flat], np.int64), np.array([e[1] for e in flat], np.int64),
                  np.array([e[2] for e in flat], np.int64), np.concatenate([[0], np.cumsum(lengths)[:-1]]).astype(np.int64),
                  lengths, np.zeros(len(rings), np.int64), np.array([p for _, p in entries], np.int64),
                  np.array([k for k, _ in entries], np.int64), lengths.copy(), np.array([3 * len(hosts)], np.int64))


def _stack(records: list[np.ndarray]) -> np.ndarray:
    """One-row structured arrays of one dtype as one array (np.concatenate promotes each row's fields:
    a second for 10,000 robots)."""
    return np.frombuffer(b"".join(r.tobytes() for r in records), dtype=records[0].dtype).copy()


def _streams(gens: list[np.random.Generator]) -> typed.List:
    """The robots' random streams (the same generators, shared) as a typed list, built in compiled code:
    typed.List's own appends cost about 40 us each from Python."""
    with warnings.catch_warnings():  # the list is read once, never reflected back into
        warnings.simplefilter("ignore", NumbaPendingDeprecationWarning)
        return stream_list(gens)


def _programs(hosts: list[Program], variants: list[tuple]) -> loop.Programs:
    index = {v: q for q, v in enumerate(variants)}
    prog = np.array([index[(type(h), h.values.tobytes())] for h in hosts], dtype=np.int64)
    slot = np.zeros(len(hosts), dtype=np.int64)
    rows: list[list[np.ndarray]] = [[] for _ in variants]
    for i, h in enumerate(hosts):
        slot[i] = len(rows[prog[i]])
        rows[prog[i]].append(h.state)
    first = [hosts[int(np.nonzero(prog == q)[0][0])] for q in range(len(variants))]
    period = np.array([_periods(h) for h in first], dtype=np.int64).reshape(-1, 3)[prog]
    return loop.Programs(
        prog, slot, tuple(_stack(r) for r in rows), _stack([h.io for h in hosts]), _streams([h.rng for h in hosts]),
        tuple(h.values for h in first),
        np.array([h.motion.row() for h in first]), np.array([float(h.params.distance_noise_mm) for h in first]), period,
        np.zeros(1, MESSAGE_DTYPE), np.zeros(1, DISTANCE_DTYPE), np.zeros((max(RECORD_CAPACITY, 4 * len(hosts)), 3), np.int64),
        np.zeros(max(RECORD_CAPACITY, 4 * len(hosts))), np.zeros(1, np.int64))
