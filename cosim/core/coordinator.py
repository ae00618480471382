"""The coordinator: a built scenario (world, network, controllers, recorder) on one timeline, and the
run around its engine (the event engine, cosim.core.event_engine, or the fused one handed the loop):
parts started, controllers set up, samples finished, failures reported with the time and robot.
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
from cosim.core.event_engine import EventEngine
from cosim.core.gc_pause import gc_paused
from cosim.core.group_handle import GroupRouter, SimGroup
from cosim.core.interruption import interruption
from cosim.core.ip_events import record_ip_events
from cosim.core.neighbor_table import NeighborTable
from cosim.core.plans import GroupPlan, PhaseFn, ProgressFn, RoutingPlan
from cosim.core.population import Population
from cosim.core.recorder import Recorder
from cosim.core.reports import Reports
from cosim.core.sampler import Sampler
from cosim.core.stack_host import SimStackHost
from cosim.core.timeline import EventQueue
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

    def sync_positions(self) -> None:
        """Hand the world's positions and velocities at this instant to the network."""
        now = self.clock.now_ns
        pos, vel = self.world.network_state(now / NS_PER_S)
        self.net.set_positions(now, pos, vel)

    # -- the loop ------------------------------------------------------------------------------
    def run(self, progress: ProgressFn | None = None, phase: PhaseFn | None = None) -> None:
        """Run to the scenario's duration, calling `progress(now_ns, end_ns, wall_s)` now and then and
        `phase(text)` for what happens outside the timeline (a vehicle coming up); raises
        SimulationError if user code fails."""
        end = self.duration_ns
        self.phase = phase
        self._start_parts()
        clock = self.clock
        engine = EventEngine(self)
        engine.prime(self._may_coast())
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
            (self._runner or engine).run(self, end)
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
            self.sync_positions()

    def close(self) -> None:
        """Release the world and the network; what the network counted of its own routing is kept."""
        self.world.close()
        if self.net is not None:
            self.ip_overhead = self.net.control_overhead()
            self.ip_frames_received = self.net.frames_received()
            self.counters.dropped += record_ip_events(self.recorder, self.net.ip_events())
            self.mac_counts = self.net.mac_counts()
            self.net.close()


def _node_stacks(routing: RoutingPlan, host: SimStackHost) -> list[NodeStack]:
    """A routing protocol's stack on every node, each with its own random stream."""
    return [NodeStack(i, routing.protocol(routing.params), host, rng) for i, rng in enumerate(routing.rngs)]
