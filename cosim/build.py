"""Turn a validated Scenario into a ready Simulation: world, network, robots, controllers, streams."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from controllers.base import Controller
from cosim import traffic
from cosim.coordinator import Simulation
from cosim.layouts import RandomBoxLayout, RandomDiscLayout
from cosim.node_services import NetHandle, NodeServices
from cosim.recorder import Recorder
from cosim.scenario import Scenario, controller_period_ns, import_class
from cosim.schema import Mapper
from cosim.seeding import SeedStreams
from cosim.stack_host import SimStackHost
from cosim.timeline import Priority
from netstack.fast.backend import FastBackend
from netstack.fast.neighbors import pairs_within
from netstack.routing.registry import NS3_PROTOCOLS, PROTOCOL_OF_PARAMS
from netstack.stack import NodeStack
from physics.battery import Batteries
from physics.quadrotor import AIRFRAMES, TICK_NS
from physics.robot import Robot
from physics.sensors import SENSORS
from physics.world import Arena, RobotSpec


def make_world(s: Scenario):
    arena = Arena(s.world.arena_lower, s.world.arena_upper)
    boxes = tuple(o.shape() for o in s.world.obstacles)
    ph = s.physics
    if ph.backend == "pybullet":
        from physics.pybullet_world import PybulletWorld

        return PybulletWorld(arena, ph.dt_ns / 1e9, drag=ph.drag, obstacles=boxes, solver_iterations=ph.solver_iterations)
    from physics.kinematic import KinematicWorld

    world = KinematicWorld(arena, max_accel=ph.max_accel, collisions=ph.collisions, pair_finder=pairs_within, obstacles=boxes)
    w = s.world.wind
    if w is not None:
        world.wind = (w.mean, w.gust_std, w.gust_tau, SeedStreams(s.seed).generator("wind"), TICK_NS / 1e9)
    return world


def make_network(s: Scenario, streams: SeedStreams, run_dir: Path | None = None):
    """The network backend the scenario names; ns-3 gets RngSeed/RngRun derived from the master seed."""
    if s.network.backend == "none":
        return None
    if s.network.backend == "ns3":
        from netstack.ns3.backend import Ns3Backend

        radio = s.network.radio
        pcap = str(run_dir / "pcap" / "node") if radio.pcap and run_dir is not None else None
        routing = s.network.routing
        ip = routing._tag[1] if routing is not None and routing._tag[1] in NS3_PROTOCOLS else None
        return Ns3Backend(radio, streams.integer("ns3.seed") or 1, streams.integer("ns3.run"), pcap_prefix=pcap,
                          ip_routing=ip)
    return FastBackend(s.network.radio, streams.generator("network"))


def _check_inside_arena(s: Scenario, gi: int, starts: np.ndarray, mapper: Mapper) -> None:
    lo, hi = np.array(s.world.arena_lower), np.array(s.world.arena_upper)
    outside = np.nonzero(np.any((starts < lo) | (starts > hi), axis=1))[0]
    if len(outside):
        k = int(outside[0])
        raise mapper.error(
            f"groups[{gi}].layout",
            f"{len(outside)} start positions lie outside the arena {tuple(map(float, lo))}..{tuple(map(float, hi))}, "
            f"e.g. robot {k} at {tuple(round(float(x), 3) for x in starts[k])}; move the layout or widen world.arena_*",
        )


RANDOM_LAYOUTS = (RandomBoxLayout, RandomDiscLayout)


def _clear_of_obstacles(s: Scenario, gi: int, starts: np.ndarray, rng: np.random.Generator, mapper: Mapper) -> np.ndarray:
    """Start positions that do not overlap an obstacle: random layouts draw again for the robots that
    do (from the same seeded stream); fixed layouts are an error naming the robot."""
    g = s.groups[gi]
    shapes = [o.shape() for o in s.world.obstacles]
    shapes = [sh for sh in shapes if hasattr(sh, "push_out")]  # meshes: pybullet resolves those
    if not shapes:
        return starts
    radius = np.full(len(starts), g.robot.radius)

    def overlapping(points: np.ndarray) -> np.ndarray:
        bad = np.zeros(len(points), dtype=bool)
        for sh in shapes:
            bad[sh.push_out(points.copy(), radius[: len(points)])] = True
        return bad

    bad = overlapping(starts)
    if not bad.any():
        return starts
    if not isinstance(g.layout, RANDOM_LAYOUTS):
        k = int(np.nonzero(bad)[0][0])
        raise mapper.error(f"groups[{gi}].layout", f"{int(bad.sum())} start positions overlap an obstacle, e.g. robot {k} at "
                                                   f"{tuple(round(float(x), 3) for x in starts[k])}; move them")
    starts = starts.copy()
    for _ in range(1000):
        idx = np.nonzero(bad)[0]
        if not len(idx):
            return starts
        starts[idx] = g.layout.positions(len(idx), rng)
        bad[idx] = overlapping(starts[idx])
    raise mapper.error(f"groups[{gi}].layout", "cannot place the robots clear of the obstacles: the free area is too small")


def _schedule_faults(s: Scenario, sim: Simulation, streams: SeedStreams, plans: list) -> None:
    """Collision kills, random failures (seeded exponential times) and scheduled kills."""
    kills = np.array([s.groups[gi].faults.collision_kills for _, _, gi, _ in plans], dtype=bool)
    if kills.any():
        sim.enable_collision_kills(kills)
    for _, node, gi, _ in plans:
        mttf = s.groups[gi].faults.mean_time_to_failure_ns
        if mttf is not None:
            t = round(streams.generator("faults", node).exponential(mttf))
            if t <= s.duration_ns:
                sim.queue.push(t, Priority.TIMER, lambda n=node: sim.kill(n, "random_failure"))
    for kill in s.kills:
        sim.queue.push(kill.at_ns, Priority.TIMER, lambda n=kill.node: sim.kill(n, "scheduled"))


def _install_stacks(s: Scenario, sim: Simulation, streams: SeedStreams) -> None:
    """One stack per node running the scenario's routing protocol, and the CBR traffic."""
    params = s.network.routing
    cls = PROTOCOL_OF_PARAMS[type(params)]
    host = SimStackHost(sim)
    sim.stack_host = host
    sim.stacks = [NodeStack(i, cls(params), host, streams.generator("routing", i)) for i in range(s.n_nodes)]
    traffic.schedule(sim, traffic.sessions_of(s.traffic, s.n_nodes, s.duration_ns, streams.generator("traffic")))


def _mavlink_bridge(s: Scenario, mapper: Mapper):
    """The MAVLink bridge; sockets open here so that a busy port or a missing key fails before the run."""
    from cosim.mavlink.bridge import MavlinkBridge

    groups, node = {}, 0
    for g in s.groups:
        groups[g.name] = (node, g.count)
        node += g.count
    try:
        return MavlinkBridge(s.mavlink, groups)
    except (OSError, ValueError) as exc:
        for path, e in s.mavlink.entries():
            if e.signing_key_env and str(e.signing_key_env) in str(exc):
                raise mapper.error(f"{path}.signing_key_env", str(exc)) from None
        where = next((f"mavlink.serve[{k}].port" for k, e in enumerate(s.mavlink.serve)
                      if isinstance(exc, OSError) and f"{e.host}:{e.port}" in str(exc)), "mavlink")
        raise mapper.error(where, f"cannot open the MAVLink endpoint: {exc}") from None


def build(s: Scenario, run_dir: Path | None = None) -> Simulation:
    """Instantiate everything the scenario names; the random streams depend only on the seed.
    `run_dir` is where backends may write files of their own (pcap)."""
    streams = SeedStreams(s.seed)
    mapper = Mapper(s.source)
    world = make_world(s)
    net = make_network(s, streams, run_dir)
    layout_rng = streams.generator("layout")
    controllers = []
    plans = []  # (controller, node, group) for binding once the Simulation exists
    node = 0
    for gi, g in enumerate(s.groups):
        cls = import_class(g.controller.cls)
        params = mapper.build(cls.Params, g.controller.params, f"groups[{gi}].controller.params")
        period = controller_period_ns(g.controller, cls, mapper, f"groups[{gi}].controller")
        starts = g.layout.positions(g.count, layout_rng)
        _check_inside_arena(s, gi, starts, mapper)
        starts = _clear_of_obstacles(s, gi, starts, layout_rng, mapper)
        for k in range(g.count):
            quad = g.robot.model == "quadrotor"
            spec = RobotSpec(tuple(float(x) for x in starts[k]), g.robot.heading, g.robot.radius,
                             AIRFRAMES[g.robot.airframe].mass if quad else g.robot.mass, g.robot.max_speed,
                             g.robot.airframe if quad else None, g.robot.drive if g.robot.model == "diff_drive" else None)
            world.add_robot(spec)
            if net is not None:
                net.add_node(node)
            ctrl = cls(params)
            controllers.append(ctrl)
            plans.append((ctrl, node, gi, period))
            node += 1
    trace = s.output.trace
    sim = Simulation(
        world=world, net=net, controllers=controllers, dt_ns=s.physics.dt_ns, quantum_ns=s.quantum_ns,
        duration_ns=s.duration_ns, recorder=Recorder(trace.positions_every_ns is not None, trace.network, trace.records),
        neighbor_timeout_ns=s.network.neighbor_timeout_ns, positions_every_ns=trace.positions_every_ns,
    )
    sensor_options = [
        {name: mapper.build(SENSORS[name].Options, opts, f"groups[{gi}].sensors.{name}") for name, opts in g.sensors.items()}
        for gi, g in enumerate(s.groups)
    ]
    _schedule_faults(s, sim, streams, plans)
    battery_specs = [s.groups[gi].battery for _, _, gi, _ in plans]
    if any(b is not None for b in battery_specs):
        sim.batteries = Batteries(battery_specs)
        world.batteries = sim.batteries  # for battery gauges
    if s.network.routing is not None:
        _install_stacks(s, sim, streams)
    bridge = _mavlink_bridge(s, mapper) if s.mavlink is not None else None
    if bridge is not None:
        sim.extensions.append(bridge)
    for ctrl, i, gi, period in plans:
        g = s.groups[gi]
        sensors = {
            name: SENSORS[name](world, i, opts, streams.generator(f"sensor.{name}", i))
            for name, opts in sensor_options[gi].items()
        }
        services = NodeServices(sim, i, streams.generator("timers", i))
        robot = Robot(world, i, sensors, sim.batteries) if bridge is None else bridge.robot_for(i, world, sensors, sim.batteries)
        ctrl.bind(i, robot, NetHandle(sim, i), streams.generator("controller", i), services)
        if period is not None and type(ctrl).step is not Controller.step:
            services.every_ns(period, ctrl.step, g.controller.phase_ns)
    return sim
