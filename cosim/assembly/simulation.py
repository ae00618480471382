"""Turn a validated Scenario into a ready Simulation: world, network, robots, controllers, streams.

Everything the Simulation holds is made first and handed to its constructor; then the events that
start the run are queued in a fixed order (faults, traffic, controller steps), so the same
scenario and seed give the same queue and the same trace.
"""

from __future__ import annotations

import dataclasses
import logging
import math
import traceback
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from controllers import Controller, GroupController
from controllers.compiled.refusals import ProgramError
from cosim.assembly import traffic
from cosim.assembly.network import make_network
from cosim.assembly.placement import start_positions
from cosim.assembly.watchers import watchers
from cosim.core.contact_log import ContactLog
from cosim.core.coordinator import Extension, Simulation
from cosim.core.crashes import CrashRules
from cosim.core.gc_pause import gc_paused
from cosim.core.group_handle import GroupTick
from cosim.core.net_handle import NetHandle
from cosim.core.plans import GroupPlan, RoutingPlan
from cosim.core.recorder import Recorder
from cosim.core.seeding import SeedStreams
from cosim.core.services import GroupServices, SimServices
from cosim.core.timeline import Priority
from cosim.scenario.checks import controller_period_ns
from cosim.scenario.classes import import_class
from cosim.scenario.robot_spec import RobotModelSpec
from cosim.scenario.schema import Mapper
from cosim.scenario.specs import Scenario
from cosim.scenario.state_file import RobotState, read_state
from netstack.backend import NetworkBackend
from netstack.routing.registry import PROTOCOL_OF_PARAMS
from physics.bodies.battery import Batteries
from physics.bodies.diff_drive import DriveSpec
from physics.bodies.quadrotor import AIRFRAMES, TICK_NS
from physics.robot import Robot
from physics.sensors.onboard import SENSORS
from physics.world import Arena, RobotSpec, World

if TYPE_CHECKING:
    from cosim.mavlink.bridge import MavlinkBridge

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class _Node:
    """One robot as planned: its controller, node id, group index and step period."""

    controller: Controller
    node: int
    group: int
    period_ns: int | None


def make_world(s: Scenario, batteries: Batteries | None = None) -> World:
    arena = Arena(s.world.arena_lower, s.world.arena_upper)
    shapes = tuple(s.world.obstacles)
    ph = s.physics
    w = s.world.wind
    tick_ns = next((g.robot.tick_ns for g in s.groups if g.robot.model == "quadrotor"), TICK_NS)
    wind = None if w is None else (w.mean, w.gust_std, w.gust_tau, SeedStreams(s.seed).generator("wind"), tick_ns / 1e9)
    if ph.backend == "pybullet":
        from physics.pybullet.world import PybulletWorld

        return PybulletWorld(arena, ph.dt_ns / 1e9, drag=ph.drag, obstacles=shapes, solver_iterations=ph.solver_iterations,
                             batteries=batteries, props=tuple(s.world.props), terrain=s.world.terrain, wind=wind)
    from physics.kinematic.world import KinematicWorld

    max_accel = math.inf if ph.max_accel is None else ph.max_accel
    return KinematicWorld(arena, max_accel=max_accel, collisions=ph.collisions, obstacles=shapes,
                          wind=wind, batteries=batteries)


def _groups(s: Scenario) -> dict[str, tuple[int, int]]:
    """Each group's (first node, count)."""
    groups = {}
    node = 0
    for g in s.groups:
        groups[g.name] = (node, g.count)
        node += g.count
    return groups


def _sitl(s: Scenario, mapper: Mapper) -> tuple[Extension, ...]:
    """ArduPilot firmware over JSON SITL, if the scenario has any (its sockets open here)."""
    if s.mavlink is None or not s.mavlink.sitl:
        return ()
    from cosim.mavlink.frames import GeoOrigin
    from cosim.mavlink.sitl.coupling import SitlCoupling, SitlPortBusy

    try:
        streams = SeedStreams(s.seed)
        return (SitlCoupling(s.mavlink.sitl, _groups(s), GeoOrigin(*s.mavlink.origin),
                             lambda node: streams.generator("sitl_sensors", node)),)
    except SitlPortBusy as exc:
        raise mapper.error(f"mavlink.sitl[{exc.entry}].port", str(exc)) from None


def _sitl_nodes(s: Scenario) -> set[int]:
    """The robots ArduPilot firmware flies over JSON SITL."""
    if s.mavlink is None:
        return set()
    groups = _groups(s)
    return {groups[e.group][0] + k for e in s.mavlink.sitl for k in range(groups[e.group][1])}


def _mavlink_bridge(s: Scenario, mapper: Mapper) -> MavlinkBridge:
    """The MAVLink bridge; sockets open here so that a busy port or a missing key fails before the run."""
    from cosim.mavlink.bridge import MavlinkBridge  # pymavlink loads only for scenarios that use it

    try:
        gcs = s.mavlink.ground_station
        scripted = gcs is not None and next(g for g in s.groups if g.name == gcs.group).controller is not None
        return MavlinkBridge(s.mavlink, _groups(s), scripted)
    except (OSError, ValueError) as exc:
        for path, e in s.mavlink.entries():
            if e.signing_key_env and str(e.signing_key_env) in str(exc):
                raise mapper.error(f"{path}.signing_key_env", str(exc)) from None
        gcs = s.mavlink.ground_station
        ports = [(f"mavlink.serve[{k}].port", e.host, e.port) for k, e in enumerate(s.mavlink.serve)]
        ports += [] if gcs is None else [("mavlink.ground_station.port", gcs.host, gcs.udp_port)]
        ports += [(f"mavlink.sitl[{k}].mavlink_port", e.host, e.mavlink_instance_port(j))
                  for k, e in enumerate(s.mavlink.sitl) if e.mavlink_port is not None
                  for j in range(_groups(s)[e.group][1])]
        where = next((key for key, host, port in ports if isinstance(exc, OSError) and f"{host}:{port}" in str(exc)),
                     "mavlink")
        raise mapper.error(where, f"cannot open the MAVLink endpoint: {exc}") from None


def _drive_of(robot: RobotModelSpec) -> DriveSpec | None:
    """The drive settings of a wheeled model (a URDF robot's wheel base is its declared track)."""
    if robot.model == "urdf":
        return dataclasses.replace(robot.drive, wheel_base=robot.urdf.track)
    return robot.drive if robot.model == "diff_drive" else None


def _place_robots(s: Scenario, world: World, net: NetworkBackend | None, streams: SeedStreams, mapper: Mapper,
                  groups: list[tuple[int, int, GroupController]], initial: list[RobotState] | None,
                  bridge: MavlinkBridge | None) -> list[_Node]:
    """Each group's robots into the world (and the network), each with its controller instance (a group
    without one: the MAVLink bridge's relay); a group controller's robots get a placeholder and the group
    (first node, count, controller) in `groups`. With an initial state, robots start where and as it says
    (the layout is drawn all the same)."""
    layout_rng = streams.generator("layout")
    nodes: list[_Node] = []
    for gi, g in enumerate(s.groups):
        relayed = g.controller is None
        cls = Controller if relayed else import_class(g.controller.cls, s.source)
        params = None if relayed else mapper.build(cls.Params, g.controller.params, f"groups[{gi}].controller.params")
        period = None if relayed else controller_period_ns(g.controller, cls, mapper, f"groups[{gi}].controller")
        grouped = issubclass(cls, GroupController)
        if grouped:
            groups.append((len(nodes), g.count, _construct(cls, params, gi, mapper)))
        starts = start_positions(s, gi, layout_rng, mapper)
        first = len(nodes)
        if initial is not None:
            starts = np.array([r.position for r in initial[first:first + g.count]])
        headings = [r.heading for r in initial[first:first + g.count]] if initial is not None else [g.robot.heading] * g.count
        quad = g.robot.model == "quadrotor"
        for k in range(g.count):
            spec = RobotSpec(tuple(float(x) for x in starts[k]), headings[k], g.robot.radius,
                             AIRFRAMES[g.robot.airframe].mass if quad else g.robot.mass, g.robot.max_speed,
                             airframe=g.robot.airframe if quad else None, control_tick_s=g.robot.tick_ns / 1e9,
                             drive=_drive_of(g.robot), omni=g.robot.omni if g.robot.model == "omni" else None,
                             urdf=g.robot.urdf)
            world.add_robot(spec)
            node = len(nodes)
            if net is not None:
                net.add_node(node)
            if relayed:
                controller = bridge.controller_for(node)
            else:
                controller = Controller() if grouped else _construct(cls, params, gi, mapper, _station_args(s, cls))
            nodes.append(_Node(controller, node, gi, None if grouped else period))
    return nodes


def _station_args(s: Scenario, cls: type) -> dict[str, Any]:
    """What a ground station written as a controller (on the ground-station robot, or on any other) is
    built with besides its parameters: the arena's geodetic origin, and each vehicle's system id, robot
    and autopilot (cosim.mavlink.ground_control)."""
    if s.mavlink is None:
        return {}
    from cosim.mavlink.ground_control import GroundControl  # pymavlink loads only for scenarios that use it
    from cosim.mavlink.personality import PERSONALITIES
    from physics.geodesy import GeoOrigin

    if not issubclass(cls, GroundControl):
        return {}
    groups = _groups(s)
    directory = {e.first_sysid + k: (groups[e.group][0] + k, PERSONALITIES[e.personality])
                 for e in s.mavlink.serve for k in range(groups[e.group][1])}
    directory |= {e.first_sysid + k: (groups[e.group][0] + k, PERSONALITIES[e.autopilot])
                  for e in s.mavlink.sitl for k in range(groups[e.group][1])}
    return {"origin": GeoOrigin(*s.mavlink.origin), "directory": directory}


def _construct(cls: type, params: Any, gi: int, mapper: Mapper, extra: dict[str, Any] | None = None) -> Any:
    """The group's controller class built with its parameters (and `extra` keywords); its failure names
    the class, the group and where it was raised (a compiled program's refusal names its file and line already)."""
    try:
        return cls(params, **(extra or {}))
    except ProgramError:
        raise
    except Exception as exc:
        where = traceback.extract_tb(exc.__traceback__)[-1]
        raise mapper.error(f"groups[{gi}].controller.class", f"{cls.__name__}(params) raised {type(exc).__name__}: "
                           f"{exc} (at {where.filename}:{where.lineno}, in {where.name})") from exc


def _program_states(nodes: list[_Node], initial: list[RobotState] | None, mapper: Mapper) -> list[dict | None]:
    """Each robot's program state from the initial state file (None where there is none)."""
    if initial is None:
        return []
    for n, r in zip(nodes, initial):
        if r.state is not None and n.period_ns is None and type(n.controller) is Controller:
            raise mapper.error("initial_state", f"robot {n.node} has program state, but a group controller runs it "
                                                "and group controllers cannot restore state yet")
    return [r.state for r in initial]


def _schedule_faults(s: Scenario, sim: Simulation, streams: SeedStreams, nodes: list[_Node]) -> None:
    """Random failures (seeded exponential times) and scheduled kills."""
    for n in nodes:
        mttf = s.groups[n.group].faults.mean_time_to_failure_ns
        if mttf is not None:
            t = round(streams.generator("faults", n.node).exponential(mttf))
            if t <= s.duration_ns:
                sim.clock.queue.push(t, Priority.TIMER, lambda i=n.node: sim.kill(i, "random_failure"))
    for kill in s.kills:
        sim.clock.queue.push(kill.at_ns, Priority.TIMER, lambda i=kill.node: sim.kill(i, "scheduled"))


def _make_sensors(s: Scenario, world: World, streams: SeedStreams, nodes: list[_Node], mapper: Mapper) -> list[dict]:
    """Each robot's sensors by name, each with its own seeded stream."""
    options = [{name: mapper.build(SENSORS[name].Options, opts, f"groups[{gi}].sensors.{name}")
                for name, opts in g.sensors.items()} for gi, g in enumerate(s.groups)]
    return [{name: SENSORS[name](world, n.node, opts, streams.generator(f"sensor.{name}", n.node))
             for name, opts in options[n.group].items()} for n in nodes]


def _bind_controllers(s: Scenario, sim: Simulation, streams: SeedStreams, nodes: list[_Node], sensors_of: list[dict],
                      bridge: MavlinkBridge | None) -> None:
    """Give each controller its robot (with sensors), net, streams and timers; queue its steps."""
    world = sim.world
    firmware = _sitl_nodes(s)
    for n in nodes:
        i = n.node
        sensors = sensors_of[i]
        services = SimServices(sim.clock, sim.population.alive_list, sim.recorder, i, streams.generator("timers", i))
        robot = Robot(world, i, sensors, sim.batteries) if bridge is None else bridge.robot_for(i, world, sensors, sim.batteries)
        if i in firmware:
            from cosim.mavlink.sitl.coupling import SitlRobot

            robot = SitlRobot(world, i, sensors, sim.batteries)
        n.controller.bind(i, robot, NetHandle(sim, i), streams.generator("controller", i), services)
        if n.period_ns is not None and type(n.controller).steps():
            services.every_ns(n.period_ns, n.controller.step, s.groups[n.group].controller.phase_ns)


def build(s: Scenario, run_dir: Path | None = None) -> Simulation:
    """Instantiate everything the scenario names; the random streams depend only on the seed.
    `run_dir` is where backends may write files of their own (pcap)."""
    with gc_paused():
        return _build(s, run_dir)


def _build(s: Scenario, run_dir: Path | None) -> Simulation:
    streams = SeedStreams(s.seed)
    mapper = Mapper(s.source)
    per_node = [g for g in s.groups for _ in range(g.count)]
    batteries = Batteries([g.battery for g in per_node]) if any(g.battery is not None for g in per_node) else None
    world = make_world(s, batteries)
    net = make_network(s, streams, run_dir)
    grouped: list[tuple[int, int, GroupController]] = []
    initial = read_state(Path(s.initial_state)) if s.initial_state is not None else None
    bridged = s.mavlink is not None and (s.mavlink.entries() or s.mavlink.ground_station is not None)
    bridge = _mavlink_bridge(s, mapper) if bridged else None
    nodes = _place_robots(s, world, net, streams, mapper, grouped, initial, bridge)
    states = _program_states(nodes, initial, mapper)
    sensors = _make_sensors(s, world, streams, nodes, mapper)
    group_plans = [GroupPlan(first, count, ctrl, lambda node: streams.generator("controller", node), sensors[first:first + count])
                   for first, count, ctrl in grouped]
    routing = s.network.routing
    plan = None if routing is None else RoutingPlan(PROTOCOL_OF_PARAMS[type(routing)], routing,
                                                    [streams.generator("routing", i) for i in range(s.n_nodes)])
    watching = watchers(s, run_dir)
    extensions: tuple[Extension, ...] = (() if bridge is None else (bridge,)) + _sitl(s, mapper) + watching
    trace = s.output.trace
    sim = Simulation(
        world=world, net=net, controllers=[n.controller for n in nodes], dt_ns=s.physics.dt_ns, quantum_ns=s.quantum_ns,
        duration_ns=s.duration_ns,
        recorder=Recorder(trace.positions_every_ns is not None, trace.network, trace.records, observers=watching,
                          interfaces=s.network.interface_names),
        neighbor_timeout_ns=s.network.neighbor_timeout_ns, positions_every_ns=trace.positions_every_ns,
        batteries=batteries, collision_kills=np.array([g.faults.collision_kills for g in per_node], dtype=bool),
        contact_log=ContactLog() if trace.contacts else None,
        crash_rules=CrashRules.of([g.faults.crash_speed for g in per_node], [g.faults.crash_tilt for g in per_node]),
        routing=plan, extensions=extensions, groups=group_plans, interfaces=s.network.interface_names,
        program_states=states,
    )
    _schedule_faults(s, sim, streams, nodes)
    for r in initial or ():
        if not r.alive:
            sim.clock.queue.push(0, Priority.TIMER, lambda i=r.node: sim.kill(i, "dead", "in the initial state"))
    if plan is not None:
        traffic.schedule(sim, traffic.sessions_of(s.traffic, s.n_nodes, s.duration_ns, streams.generator("traffic")))
    _bind_controllers(s, sim, streams, nodes, sensors, bridge)
    _bind_groups(s, sim, streams, mapper)
    _choose_engine(s, sim, sensors)
    return sim


def _choose_engine(s: Scenario, sim: Simulation, sensors: list[dict]) -> None:
    """The fused engine where it applies (cosim.fused_engine.plan), else the event loop; when compiled programs
    could not run fused, the run says why (the log, metrics.json's slower_paths, summary.txt)."""
    from cosim.fused_engine.plan import compiled_parts, why_not_fused

    if not compiled_parts(sim):
        return
    reason = why_not_fused(s, sim, sensors)
    if reason is None:
        from cosim.fused_engine.runner import FusedLoop

        sim.hand_loop_to(FusedLoop())
    else:
        log.info("compiled programs run on the event engine: %s", reason)
        sim.counters.slower_paths.append(f"compiled programs on the event engine, not the fused one: {reason}")


def _bind_groups(s: Scenario, sim: Simulation, streams: SeedStreams, mapper: Mapper) -> None:
    """Give each group controller its group, stream and timers; queue its ticks (phase 0 unless pinned)."""
    spans = {}
    first = 0
    for gi, g in enumerate(s.groups):
        spans[first] = gi
        first += g.count
    for group, ctrl in zip(sim.groups, sim.group_controllers):
        gi = spans[group.first]
        spec = s.groups[gi].controller
        services = GroupServices(sim.clock, sim.population.alive_list, sim.recorder,
                                 streams.generator("group.timers", group.first))
        ctrl.bind(group, streams.generator("group", group.first), services)
        period = controller_period_ns(spec, type(ctrl), mapper, f"groups[{gi}].controller")
        if period is not None and type(ctrl).steps():
            services.every_ns(period, GroupTick(ctrl, group, s.groups[gi].name), spec.phase_ns or 0)
