"""The coordinator: one timeline for physics ticks, position syncs, timers and network deliveries.

Loop: take the earliest queued event time T; advance the network to T, and if it stops early at a
delivery time t <= T, hand those deliveries to controllers at t (their sends are injected at t) and
go round again; otherwise run the event at T. Physics ticks step the world every dt, push positions
to the network every quantum, and latch commands after everything else at that instant.
"""

from __future__ import annotations

import logging
import time
import traceback
from collections.abc import Sequence
from typing import Protocol

import numpy as np

from controllers import Controller
from cosim.core.clock import Clock
from cosim.core.contact_log import ContactLog
from cosim.core.counters import Counters
from cosim.core.crashes import CrashRules
from cosim.core.delivery import Delivery
from cosim.core.gc_pause import gc_paused
from cosim.core.group_handle import GroupRouter, SimGroup
from cosim.core.interruption import interruption
from cosim.core.ip_events import record_ip_events
from cosim.core.neighbor_table import NeighborTable
from cosim.core.plans import GroupPlan, PhaseFn, ProgressFn, RoutingPlan
from cosim.core.population import Population
from cosim.core.recorder import Recorder
from cosim.core.reports import NEVER, Reports
from cosim.core.sampler import Sampler
from cosim.core.stack_host import SimStackHost
from cosim.core.timeline import EventQueue, Priority
from cosim.core.timeunits import NS_PER_S
from cosim.core.transmitter import Transmitter
from cosim.errors import SimulationError
from netstack.backend import NetworkBackend
from netstack.stack import NodeStack
from physics.bodies.battery import Batteries
from physics.world import World

log = logging.getLogger(__name__)


class Extension(Protocol):
    """Something that lives beside the loop for the whole run (the MAVLink bridge): started before
    the controllers' setup, finished after the run, and contributing metrics."""

    def start(self, sim: Simulation) -> None: ...
    def finish(self, sim: Simulation) -> None: ...
    def metrics(self) -> dict: ...
    def failures(self) -> list[str]:
        """What it was asked to do and did not happen (a real vehicle that stopped obeying): the run failed."""
        ...


class LoopRunner(Protocol):
    """Runs the timeline instead of the coordinator's own loop (the fused engine), with the same
    semantics: after the controllers' setup, to `end_ns`, leaving the trace and counters as the
    event loop would."""

    def run(self, sim: Simulation, end_ns: int) -> None: ...


class Simulation:
    """A built scenario ready to run: world, network, controllers on one timeline."""

    def __init__(
        self, *,
        world: World,
        net: NetworkBackend | None,
        controllers: list[Controller],
        dt_ns: int, quantum_ns: int, duration_ns: int,
        recorder: Recorder,
        neighbor_timeout_ns: int,
        positions_every_ns: int | None,
        batteries: Batteries | None = None,
        collision_kills: np.ndarray | None = None,
        crash_rules: CrashRules | None = None,
        contact_log: ContactLog | None = None,
        routing: RoutingPlan | None = None,
        extensions: Sequence[Extension] = (),
        groups: Sequence[GroupPlan] = (),
        interfaces: Sequence[str] = ("radio",),
        program_states: Sequence[dict | None] = (),
    ) -> None:
        self.world = world
        self.net = net
        self.recorder = recorder
        self.population = Population.of(controllers)
        self.clock = Clock(EventQueue(self.population.alive))
        self._restore = list(program_states)  # per node: a state file's program state for restore_state
        self.dt_ns = dt_ns
        self.quantum_ns = quantum_ns
        self.duration_ns = duration_ns
        self.neighbor_timeout_ns = neighbor_timeout_ns
        self.positions_every_ns = positions_every_ns
        self.counters = Counters()
        self.neighbor_table: NeighborTable | None = NeighborTable(len(controllers)) if net is not None else None
        self._dt_s = dt_ns / NS_PER_S
        self.batteries = batteries
        self.transmitter = Transmitter(net, interfaces, self.clock, self.population.alive, self.counters, recorder, batteries,
                                       self.kill)
        sampler = Sampler(recorder, world, self.population.alive, batteries, self.neighbor_table, self.counters,
                          neighbor_timeout_ns)
        self.reports = Reports(sampler, duration_ns, positions_every_ns or NS_PER_S, max(duration_ns // 100, dt_ns),
                               recorder.want_positions or self.neighbor_table is not None)
        self.collision_kills = None if collision_kills is None or not np.any(collision_kills) else np.asarray(collision_kills)
        self.crash_rules = crash_rules
        self.contact_log = contact_log
        if self.collision_kills is not None or crash_rules is not None or contact_log is not None:
            world.want_contacts()
        self.extensions = tuple(extensions)
        self._receivers(routing, groups, interfaces)
        self.ip_overhead: tuple[int, int] = (0, 0)  # routing inside the backend (ns-3's AODV...): packets, bytes
        self.ip_frames_received: list[int] | None = None  # frames each node's MAC passed up, with such routing
        self.mac_counts: dict[str, int] = {}  # MAC-level frame counts (802.11 on ns-3)
        self.phase: PhaseFn | None = None
        self.wall_s = 0.0
        self._wall0 = 0.0
        self._runner: LoopRunner | None = None
        self._tick_action = self._tick  # one bound method, so the queue's first entry can be recognised
        self._latch = self.world.latch  # or _coast, decided when the run starts
        self.engine_path = "event"  # which engine runs the timeline: event (this loop) or fused (hand_loop_to)

    def _receivers(self, routing: RoutingPlan | None, groups: Sequence[GroupPlan], interfaces: Sequence[str]) -> None:
        """What receives the network's events: the per-node stacks (routed scenarios), the group
        controllers' groups, and the delivery that hands them over."""
        clock = self.clock
        recorder = self.recorder
        self.stack_host = None if routing is None else SimStackHost(clock, self.population, self.transmitter, recorder)
        self.stacks = None if routing is None else _node_stacks(routing, self.stack_host)
        self.group_controllers = [g.controller for g in groups]
        self.groups = [SimGroup(self.world, clock, self.population.alive, self.transmitter, recorder, g.first, g.count,
                                g.robot_rng, g.sensors) for g in groups]
        self.group_router = GroupRouter(len(self.population), self.groups) if groups else None
        self.delivery = Delivery(clock, self.population, self.counters, recorder, self.neighbor_table, self.stacks,
                                 self.group_router, interfaces)

    def hand_loop_to(self, runner: LoopRunner) -> None:
        """Let `runner` run the timeline (the fused engine), with this loop's semantics; call before run()."""
        self._runner = runner
        self.engine_path = "fused"

    def kill(self, node: int, kind: str = "killed", detail: str = "") -> None:
        """A dead robot stops moving, sensing, running timers and transmitting; recorded as an event."""
        pop = self.population
        if not pop.alive[node]:
            return
        self.recorder.event(self.clock.now_ns, node, kind, detail)
        self.counters.deaths += 1
        pop.alive[node] = False
        pop.alive_list[node] = False
        self.world.kill(node)
        if self.net is not None:
            self.net.set_alive(node, False)
        if self.stacks is not None:
            self.stacks[node].protocol.on_node_down()

    # -- scheduled actions ---------------------------------------------------------------------
    def _tick(self) -> None:
        t = self.clock.now_ns
        w0 = time.perf_counter()
        self.world.step(self._dt_s)
        self.counters.physics_steps += 1
        if self.collision_kills is not None:  # a per-tick duty added here must also rule out _may_coast
            self._collision_faults()
        if self.contact_log is not None:
            self.contact_log.note(self.world, self.recorder, t)
        if self.crash_rules is not None:
            for node, detail in self.crash_rules.crashes(self.world, self.population.alive):
                self.kill(node, "crash", detail)
        if self.batteries is not None:
            b = self.batteries
            thrust = self.world.thrusts() if b.uses_thrust else None
            for node in b.drain(self._dt_s, self.world.speeds(), self.population.alive, thrust).tolist():
                self.kill(node, "battery_empty")
        if self.net is not None and t % self.quantum_ns == 0:
            self._sync()
        self.counters.wall_physics_s += time.perf_counter() - w0
        self._after_tick(t)

    def _after_tick(self, t: int) -> None:
        queue = self.clock.queue
        queue.push(t, Priority.LATCH, self._latch)
        if t + self.dt_ns <= self.duration_ns:
            queue.push(t + self.dt_ns, Priority.PHYSICS_STEP, self._tick_action)

    def _coast(self) -> None:
        """World.latch, and with it the ticks of a quiet stretch (nothing queued before the last of
        them) in one World.run_steps: the same calls in the same order, without the queue between."""
        clock = self.clock
        m = clock.queue.quiet_ticks(clock.now_ns, self.dt_ns, self.duration_ns, self._tick_action)
        if not m:
            self.world.latch()
            return
        clock.queue.pop()
        w0 = time.perf_counter()
        self.world.run_steps(self._dt_s, m)
        c = self.counters
        c.physics_steps += m
        c.events += 2 * m - 1  # ticks and latches not queued
        c.wall_physics_s += time.perf_counter() - w0
        clock.now_ns += m * self.dt_ns
        self._after_tick(clock.now_ns)

    def _collision_faults(self) -> None:
        alive = self.population.alive
        for i, j in self.world.contacts():
            for me, other in ((i, j), (j, i)):
                if me >= 0 and self.collision_kills[me] and alive[me]:
                    self.kill(me, "collision", "obstacle" if other < 0 else f"robot {other}")

    def _sync(self) -> None:
        now = self.clock.now_ns
        pos, vel = self.world.network_state(now / NS_PER_S)
        self.net.set_positions(now, pos, vel)

    def _report(self) -> None:
        nxt = self.reports.run(self.clock.now_ns)
        if nxt != NEVER:
            self.clock.queue.push(nxt, Priority.SAMPLE, self._report)

    # -- the loop ------------------------------------------------------------------------------
    def run(self, progress: ProgressFn | None = None, phase: PhaseFn | None = None) -> None:
        """Run to the scenario's duration, calling `progress(now_ns, end_ns, wall_s)` now and then and
        `phase(text)` for what happens outside the timeline (a vehicle coming up); raises
        SimulationError if user code fails."""
        end = self.duration_ns
        self.phase = phase
        self._start_parts()
        clock = self.clock
        q = clock.queue
        if self._may_coast():
            self._latch = self._coast
        q.push(self.dt_ns, Priority.PHYSICS_STEP, self._tick_action)
        q.push(0, Priority.LATCH, self._latch)
        q.push(self.reports.next_ns(), Priority.SAMPLE, self._report)
        self._wall0 = time.perf_counter()
        try:
            for ext in self.extensions:
                ext.start(self)
            self._wall0 = time.perf_counter()
            self.reports.start(progress, self._wall0)
            for i, stack in enumerate(self.stacks or ()):
                clock.current_node = i
                stack.protocol.start()
            with gc_paused():  # tens of thousands of setups allocate what lives for the whole run
                for i, ctrl in enumerate(self.population.controllers):
                    clock.current_node = i
                    ctrl.setup()
                    if self._restore and self._restore[i] is not None:
                        ctrl.restore_state(self._restore[i])
                clock.current_node = None
                for group in self.group_controllers:
                    group.setup()
            if self._runner is not None:
                self._runner.run(self, end)
            else:
                self._loop(end)
            self.reports.finish(clock.now_ns)
        except (Exception, SystemExit) as exc:  # SystemExit: user code called sys.exit()
            stop = interruption(exc)
            if stop is not None:  # Ctrl-C or SIGTERM landed inside compiled code, which re-raised it wrapped
                raise stop from None
            raise SimulationError.during(exc, clock.now_ns, clock.current_node, traceback.format_exc()) from exc
        finally:
            self.wall_s = time.perf_counter() - self._wall0
            for ext in self.extensions:
                try:
                    ext.finish(self)
                except Exception:  # closing down must not hide the run's own outcome
                    log.exception("extension %s failed to finish", type(ext).__name__)

    def _may_coast(self) -> bool:
        """Whether a tick does nothing but step the world (no network, per-tick checks or extensions)."""
        return (self.net is None and self.collision_kills is None and self.contact_log is None and self._runner is None
                and self.crash_rules is None and self.batteries is None and not self.extensions)

    def _start_parts(self) -> None:
        self.world.start()
        if self.net is not None:
            pop = self.population
            stops = pop.listens | np.array(pop.hears_outcomes, dtype=bool)
            listening = range(len(pop)) if self.stacks is not None else np.nonzero(stops)[0].tolist()
            for node in listening:
                self.net.set_listening(node, True)
            if self.stacks:
                self.net.set_passive_kinds(type(self.stacks[0].protocol).passive_kinds)
            self._sync()

    def close(self) -> None:
        """Release the world and the network; what the network counted of its own routing is kept."""
        self.world.close()
        if self.net is not None:
            self.ip_overhead = self.net.control_overhead()
            self.ip_frames_received = self.net.frames_received()
            self.counters.dropped += record_ip_events(self.recorder, self.net.ip_events())
            self.mac_counts = self.net.mac_counts()
            self.net.close()

    def _loop(self, end: int) -> None:
        clock = self.clock
        tx = self.transmitter
        deliver = self.delivery
        first, pop = clock.queue.peek_time, clock.queue.pop
        net = self.net
        never = end + 1
        events = 0
        perf = time.perf_counter
        wall_net = 0.0
        try:
            net_next = never if net is None else _or(net.next_event_ns(), never)
            tx.sent = False
            while True:
                t = first()
                if t is None or t > end:
                    break
                if t >= net_next:
                    w0 = perf()
                    reached, ev = net.advance(t)
                    wall_net += perf() - w0
                    if ev is not None:
                        clock.now_ns = reached
                        deliver(ev)
                    net_next = _or(net.next_event_ns(), never)
                    tx.sent = False
                    if ev is not None:
                        continue
                entry = pop()
                clock.now_ns = t
                clock.current_node = None
                entry[3]()
                events += 1
                if tx.sent:
                    tx.sent = False
                    net_next = _or(net.next_event_ns(), never)
            if net is not None:
                while True:
                    reached, ev = net.advance(end)
                    if ev is None:
                        break
                    clock.now_ns = reached
                    deliver(ev)
            clock.now_ns = end
        finally:
            self.counters.events += events
            self.counters.wall_network_s += wall_net


def _or(value: int | None, default: int) -> int:
    return default if value is None else value


def _node_stacks(routing: RoutingPlan, host: SimStackHost) -> list[NodeStack]:
    """A routing protocol's stack on every node, each with its own random stream."""
    return [NodeStack(i, routing.protocol(routing.params), host, rng) for i, rng in enumerate(routing.rngs)]
