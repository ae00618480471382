"""The event engine: the coordinator's own loop over one timeline of physics ticks, position syncs,
timers and network deliveries (the fused engine, cosim.fused_engine, runs the same timeline compiled).

Loop: take the earliest queued event time T; advance the network to T, and if it stops early at a
delivery time t <= T, hand those deliveries to controllers at t (their sends are injected at t) and
go round again; otherwise run the event at T. Physics ticks step the world every dt, push positions
to the network every quantum, and latch commands after everything else at that instant.
"""

from __future__ import annotations

import time
from typing import Protocol

import numpy as np

from cosim.core.clock import Clock
from cosim.core.contact_log import ContactLog
from cosim.core.counters import Counters
from cosim.core.crashes import CrashRules
from cosim.core.delivery import Delivery
from cosim.core.population import Population
from cosim.core.recorder import Recorder
from cosim.core.reports import NEVER, Reports
from cosim.core.timeline import Priority
from cosim.core.timeunits import NS_PER_S
from cosim.core.transmitter import Transmitter
from netstack.backend import NetworkBackend
from physics.bodies.battery import Batteries
from physics.world import World


class Simulation(Protocol):
    """What the engine runs: the coordinator's Simulation, as the engine sees it."""

    world: World
    net: NetworkBackend | None
    clock: Clock
    population: Population
    counters: Counters
    recorder: Recorder
    reports: Reports
    transmitter: Transmitter
    delivery: Delivery
    batteries: Batteries | None
    collision_kills: np.ndarray | None
    crash_rules: CrashRules | None
    contact_log: ContactLog | None
    dt_ns: int
    quantum_ns: int
    duration_ns: int

    def kill(self, node: int, kind: str = "killed", detail: str = "") -> None: ...
    def sync_positions(self) -> None: ...


class EventEngine:
    """Runs a Simulation's timeline event by event; its first tick, latch and report are queued by
    `prime`, before the controllers' setup queues their timers (the order breaks ties)."""

    def __init__(self, sim: Simulation) -> None:
        self.sim = sim
        self.dt_s = sim.dt_ns / NS_PER_S
        self.tick_action = self.tick  # one bound method, so the queue's first entry can be recognised
        self.latch = sim.world.latch  # or coast, when a tick does nothing but step the world

    def prime(self, may_coast: bool) -> None:
        """Queue the first tick, latch and report; with `may_coast`, quiet stretches of ticks run in
        one World.run_steps call."""
        sim = self.sim
        if may_coast:
            self.latch = self.coast
        queue = sim.clock.queue
        queue.push(sim.dt_ns, Priority.PHYSICS_STEP, self.tick_action)
        queue.push(0, Priority.LATCH, self.latch)
        queue.push(sim.reports.next_ns(), Priority.SAMPLE, self.report)

    def tick(self) -> None:
        """One physics step and the duties that follow it: contacts, crashes, batteries, the sync."""
        sim = self.sim
        t = sim.clock.now_ns
        w0 = time.perf_counter()
        sim.world.step(self.dt_s)
        sim.counters.physics_steps += 1
        if sim.collision_kills is not None:  # a per-tick duty added here must also rule out Simulation._may_coast
            self.collision_faults()
        if sim.contact_log is not None:
            sim.contact_log.note(sim.world, sim.recorder, t)
        if sim.crash_rules is not None:
            for node, detail in sim.crash_rules.crashes(sim.world, sim.population.alive):
                sim.kill(node, "crash", detail)
        if sim.batteries is not None:
            batteries = sim.batteries
            thrust = sim.world.thrusts() if batteries.uses_thrust else None
            for node in batteries.drain(self.dt_s, sim.world.speeds(), sim.population.alive, thrust).tolist():
                sim.kill(node, "battery_empty")
        if sim.net is not None and t % sim.quantum_ns == 0:
            sim.sync_positions()
        sim.counters.wall_physics_s += time.perf_counter() - w0
        self.after_tick(t)

    def after_tick(self, t: int) -> None:
        """Queue this instant's latch and the next tick."""
        sim = self.sim
        queue = sim.clock.queue
        queue.push(t, Priority.LATCH, self.latch)
        if t + sim.dt_ns <= sim.duration_ns:
            queue.push(t + sim.dt_ns, Priority.PHYSICS_STEP, self.tick_action)

    def coast(self) -> None:
        """World.latch, and with it the ticks of a quiet stretch (nothing queued before the last of
        them) in one World.run_steps: the same calls in the same order, without the queue between."""
        sim = self.sim
        clock = sim.clock
        steps = clock.queue.quiet_ticks(clock.now_ns, sim.dt_ns, sim.duration_ns, self.tick_action)
        if not steps:
            sim.world.latch()
            return
        clock.queue.pop()
        w0 = time.perf_counter()
        sim.world.run_steps(self.dt_s, steps)
        counters = sim.counters
        counters.physics_steps += steps
        counters.events += 2 * steps - 1  # ticks and latches not queued
        counters.wall_physics_s += time.perf_counter() - w0
        clock.now_ns += steps * sim.dt_ns
        self.after_tick(clock.now_ns)

    def collision_faults(self) -> None:
        """Kill the robots whose collisions are fatal (obstacle or robot), each once."""
        sim = self.sim
        alive = sim.population.alive
        for i, j in sim.world.contacts():
            for me, other in ((i, j), (j, i)):
                if me >= 0 and sim.collision_kills[me] and alive[me]:
                    sim.kill(me, "collision", "obstacle" if other < 0 else f"robot {other}")

    def report(self) -> None:
        """Take the samples due now and queue the next."""
        sim = self.sim
        nxt = sim.reports.run(sim.clock.now_ns)
        if nxt != NEVER:
            sim.clock.queue.push(nxt, Priority.SAMPLE, self.report)

    def run(self, sim: Simulation, end_ns: int) -> None:
        """Run the queue and the network to `end_ns`, in time order (the network first at a tie)."""
        clock = sim.clock
        tx = sim.transmitter
        deliver = sim.delivery
        first = clock.queue.peek_time
        pop = clock.queue.pop
        net = sim.net
        never = end_ns + 1
        events = 0
        perf = time.perf_counter
        wall_net = 0.0
        try:
            net_next = never if net is None else _or(net.next_event_ns(), never)
            tx.sent = False
            while True:
                t = first()
                if t is None or t > end_ns:
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
            self.finish_at(end_ns)
        finally:
            sim.counters.events += events
            sim.counters.wall_network_s += wall_net

    def finish_at(self, end_ns: int) -> None:
        """The network's deliveries after the last queued event, up to `end_ns`, where the clock stops."""
        sim = self.sim
        while sim.net is not None:
            reached, ev = sim.net.advance(end_ns)
            if ev is None:
                break
            sim.clock.now_ns = reached
            sim.delivery(ev)
        sim.clock.now_ns = end_ns


def _or(value: int | None, default: int) -> int:
    return default if value is None else value
