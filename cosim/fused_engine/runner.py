"""The fused engine's Python side: hands the world, the radio, the programs and the compiled groups
to the compiled loop (cosim.fused_engine.loop); between its calls writes what it produced into the trace,
the counters, the neighbour table and the progress line, and runs what stays in Python (timers of
Python controllers, a group's Python timers) at the instants the event loop would.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from controllers.compiled.channels import channel_name
from controllers.compiled.controller import CompiledController
from controllers.compiled.group import CompiledGroup
from controllers.compiled.program import Program
from cosim.core.gc_pause import gc_paused
from cosim.core.reports import NEVER
from cosim.core.timeline import Priority
from cosim.core.trace_codes import DELIVER
from cosim.fused_engine import build, loop, records
from cosim.fused_engine.codegen import fused_module
from cosim.fused_engine.kernels import DRIVE_CMD, STEER_CMD
from cosim.fused_engine.log_rows import ACKED, DELIVERED, DROPPED, EVENTS, NOT_ACKED, SENT, STEPS
from netstack.fast.backend import FastBackend
from physics.kinematic.world import KinematicWorld

if TYPE_CHECKING:
    from cosim.core.coordinator import Simulation


class FusedLoop:
    """Implements cosim.core.coordinator.LoopRunner with the compiled loop (see the module docstring)."""

    def run(self, sim: Simulation, end_ns: int) -> None:
        world = sim.world
        net = sim.net
        assert isinstance(world, KinematicWorld) and isinstance(net, FastBackend)
        groups = [g for g in sim.group_controllers if isinstance(g, CompiledGroup)]
        variants = _variants(sim.population.controllers, Program)  # a class with its parameters
        ctl_variants = _variants(sim.population.controllers, CompiledController)
        module = fused_module(tuple(cls for cls, _ in variants), Path(loop.__file__), tuple(type(g) for g in groups),
                              tuple(cls for cls, _ in ctl_variants))
        width = max([12] + [type(g).payload_bytes for g in groups] + [cls.payload_bytes for cls, _ in ctl_variants])
        with gc_paused():
            bodies = build.world_of(world)
            radio, _ = net.share(width)
            build.own_timers(sim, groups)
            room = build.call_room(bool(variants), bool(ctl_variants), groups)
            progs = build.programs_of(sim.population.controllers, variants, int(room[1]), net)
            compiled_groups = build.groups_of(sim, groups, net)
            ctls = build.controllers_of(sim.population.controllers, ctl_variants, net)
            netlog = build.log_of(room)
        clock = np.array([sim.dt_ns, 0, sim.dt_ns, sim.quantum_ns, sim.duration_ns], dtype=np.int64)  # records.NEXT_TICK..END
        outputs = _Outputs(sim, net, progs)
        _Stretches(sim, module, outputs, world, (bodies, radio, progs, compiled_groups, ctls, netlog, clock), net).run(end_ns)
        sim.clock.now_ns = end_ns


REPORTS = -1
"""The sequence number a stop at the reports' instant carries: before the queue's events at its priority."""


class _Stretches:
    """The compiled loop between the events Python runs: the reports, Python timers."""

    def __init__(self, sim: Simulation, module, outputs: _Outputs, world: KinematicWorld, parts: tuple,
                 net: FastBackend) -> None:
        self.sim = sim
        self.module = module
        self.outputs = outputs
        self.world = world
        self.parts = parts
        self.net = net

    def _stop(self, end_ns: int) -> tuple[int, int, int]:
        """The next event Python runs: (time, priority, sequence), the reports' with sequence REPORTS;
        (end + 1, 0, 0) if none."""
        head = self.sim.clock.queue.peek()
        best = (end_ns + 1, 0, 0)
        if head is not None and head[0] <= end_ns:
            best = head[:3]
        t = self.sim.reports.next_ns()
        if t != NEVER and (t, int(Priority.SAMPLE), REPORTS) < best:
            best = (t, int(Priority.SAMPLE), REPORTS)
        return best

    def run(self, end_ns: int) -> None:
        sim = self.sim
        outputs = self.outputs
        advance = self.module.advance
        typed_once = False
        stop = np.zeros(3, np.int64)
        queue = sim.clock.queue
        while True:
            bodies, radio, progs, compiled_groups, ctls, netlog, clock = self.parts
            flights = self.net.flights  # the frames in the air, grown by either (netstack.fast.air.roomy)
            stop[:] = self._stop(end_ns)
            ring_timers = queue.rings  # (rebuilt when timers were started)
            ring_timers.state[0] = queue.next_seq()  # the loop numbers the events it queues, continuing the queue
            status = advance(stop, end_ns, bodies, radio, flights, ring_timers, progs, compiled_groups, ctls, netlog, clock)
            queue.resume_seq(int(ring_timers.state[0]))
            if not typed_once:  # the dispatcher has compiled or loaded its one signature by now
                advance = _entry_point(self.module.advance)
                typed_once = True
            outputs.drain(netlog)
            if status == records.NEWTIMER:
                self._timers(ctls)
                continue
            if status == records.FULL:
                self._grow()
                continue
            if status == records.ENDED:
                break
            sim.clock.now_ns = int(stop[0])
            if stop[2] == REPORTS:
                sim.reports.run(sim.clock.now_ns)
            else:
                self._python()
            sim.counters.events += 1

    def _grow(self) -> None:
        """After a FULL (the logs just emptied): the frames in the air, the network log and a group's
        inbox grown where the loop found them short."""
        bodies, radio, progs, compiled_groups, ctls, netlog, clock = self.parts
        self.net.make_room(int(netlog.room[3]))
        netlog = build.wider_log(netlog)
        compiled_groups = build.wider_inbox(compiled_groups)
        self.parts = (bodies, radio, progs, compiled_groups, ctls, netlog, clock)

    def _timers(self, ctls) -> None:
        """The timers compiled controllers asked for, started in Python in the order asked, numbered
        where the event engine numbers them (they join the rings, which the loop then runs)."""
        sim = self.sim
        sim.clock.now_ns = int(ctls.pend_t[0])
        for robot, number, period, phase in ctls.pend[:int(ctls.pend_n[0])].tolist():
            sim.clock.current_node = int(robot)
            sim.population.controllers[int(robot)].start_timer(int(number), period, phase)
        ctls.pend_n[0] = 0
        sim.clock.current_node = None

    def _python(self) -> None:
        """The first queued Python event; commands it gave the drives reach them now (the loop
        latches by itself)."""
        sim = self.sim
        entry = sim.clock.queue.pop()
        sim.clock.current_node = None
        entry[3]()
        self._drives()

    def _drives(self) -> None:
        """The drive commands Python code gave, into the loop's, to wait for its next latch as they would."""
        bodies = self.parts[0]
        slots = self.world.drive_slot
        for robot, v, w in self.world.take_drive_commands():
            k = int(slots[robot])
            if v is None:
                bodies.dpend[k] = STEER_CMD
            else:
                bodies.dpend[k] = DRIVE_CMD
                bodies.dcmd[k, 0] = v
                bodies.dcmd[k, 1] = w


def _variants(controllers: list, kind: type) -> list[tuple]:
    """The distinct (class, parameters) of the controllers of `kind`, in robot order."""
    return list(dict.fromkeys((type(h), h.values.tobytes()) for h in controllers if isinstance(h, kind)))


def _entry_point(dispatcher):
    """The compiled function itself once it has its one signature: calling it skips the dispatcher's
    typing of every argument (about 2 ms for these tuples of structured arrays, per call)."""
    if len(dispatcher.signatures) != 1:
        return dispatcher
    return dispatcher.overloads[dispatcher.signatures[0]].entry_point


class _Outputs:
    """What the compiled loop leaves in its logs, written where the event loop writes it."""

    def __init__(self, sim: Simulation, net: FastBackend, progs: records.Programs) -> None:
        self.sim = sim
        self.net = net
        self.progs = progs

    def drain(self, netlog: records.Log) -> None:
        """The loop's network rows (`netlog`), records and counters into the trace, then emptied."""
        sim = self.sim
        progs = self.progs
        n = int(netlog.n[0])
        if n:
            self._network(netlog.t[:n], netlog.kind[:n], netlog.src[:n], netlog.dst[:n], netlog.tx[:n], netlog.dist[:n],
                          netlog.size[:n], netlog.reason[:n])
            netlog.n[0] = 0
        m = int(progs.rec_n[0])
        if m:
            rec = sim.recorder
            if rec.want_records or rec.observers:  # a name per row, looked up once per distinct channel
                rows = progs.rec_i[:m]
                channels, which = np.unique(rows[:, 2], return_inverse=True)
                names = [channel_name(int(ch)) for ch in channels]
                rec.record_rows(rows[:, 0], rows[:, 1], names, which, progs.rec_v[:m])  # (the buffer copies them)
            progs.rec_n[0] = 0
        c = sim.counters
        k = netlog.counters.tolist()  # added, then zeroed: Python's own sends count too
        c.sent += k[SENT]
        c.delivered += k[DELIVERED]
        c.dropped += k[DROPPED]
        c.physics_steps += k[STEPS]
        c.events += k[EVENTS]
        c.acked += k[ACKED]
        c.not_acked += k[NOT_ACKED]
        netlog.counters[:] = 0

    def _network(self, t, kind, src, dst, tx, dist, size, reason) -> None:
        sim = self.sim
        cfg = self.net.config
        rx = np.flatnonzero(kind == DELIVER)
        want = sim.recorder.want_network
        if not (want or len(rx)):
            return
        rssi_rx = cfg.tx_power_dbm - cfg.pathloss.loss_db(dist[rx])
        if want:
            rssi = np.full(len(t), np.nan)
            rssi[rx] = rssi_rx
            sim.recorder.network_rows(t, kind, src, dst, tx, size.copy(), rssi, reason.copy())
        if len(rx):  # (indexing by positions copies: the log's arrays are written again)
            sim.neighbor_table.update(t[rx], dst[rx], src[rx], rssi_rx)
