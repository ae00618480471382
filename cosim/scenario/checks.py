"""Checks across a scenario's sections, run after each section has validated itself: periods that
divide, node ids in range, backends that support what the groups ask for, controller classes."""

from __future__ import annotations

import os
from pathlib import Path

from controllers import Controller, GroupController
from cosim.core.timeunits import format_ns
from cosim.scenario.classes import import_class
from cosim.scenario.layouts import ListLayout
from cosim.scenario.mavlink_checks import check_mavlink, check_relay_group
from cosim.scenario.param_names import check_param_names
from cosim.scenario.schema import Mapper
from cosim.scenario.specs import ControllerSpec, GroupSpec, Scenario
from cosim.scenario.state_file import read_state
from cosim.scenario.world_spec import PhysicsSpec
from netstack.routing.direct import Direct
from netstack.routing.registry import NS3_PROTOCOLS, protocol_name
from physics.scene.obstacles import Mesh
from physics.sensors.onboard import SENSORS


def check(s: Scenario, m: Mapper) -> None:
    """Raise ScenarioError (through `m`) for the first inconsistency found."""
    if s.duration_ns <= 0:
        raise m.error("duration", "expected a positive duration")
    dt = s.physics.dt_ns
    q = s.quantum_ns
    if q <= 0:
        raise m.error("quantum", "expected a positive duration")
    if q > s.duration_ns:
        raise m.error("quantum", f"the quantum ({format_ns(q)}) is longer than the run ({format_ns(s.duration_ns)}): "
                                 "nothing would happen between its start and its end")
    if q % dt:
        raise m.error(
            "quantum", f"the physics step physics.dt ({format_ns(dt)}) must divide the quantum ({format_ns(q)}); "
            f"try a quantum of {format_ns(dt * max(1, round(q / dt)))}"
        )
    if not s.groups:
        raise m.error("groups", "expected at least one group of robots")
    _check_memory(s, m)
    _check_trace_rate(s, m)
    if s.watchdog_ns is not None and s.watchdog_ns <= 0:
        raise m.error("watchdog", f"expected a positive wall time (or null for none), got {format_ns(s.watchdog_ns)}")
    for k, kill in enumerate(s.kills):
        if kill.node >= s.n_nodes:
            raise m.error(f"kills[{k}].node", f"expected a node id below {s.n_nodes} (the scenario's robot count)")
    _check_routing(s, m)
    _check_group_controllers(s, m)
    if s.mavlink is not None:
        check_mavlink(s, m)
    _check_world(s, m)
    names: set[str] = set()
    for gi, g in enumerate(s.groups):
        _check_group(s, g, f"groups[{gi}]", names, m)


def _check_group(s: Scenario, g: GroupSpec, path: str, names: set[str], m: Mapper) -> None:
    """One group against the rest: its name unique, its controller, model, layout, sensors and faults."""
    dt = s.physics.dt_ns
    if g.name in names:
        raise m.error(f"{path}.name", f"group name {g.name!r} is used twice")
    names.add(g.name)
    if g.controller is None:
        check_relay_group(s, g, path, m)
    else:
        _check_controller(g, path, dt, m)
    if g.robot.model == "urdf" and s.physics.backend != "pybullet":
        raise m.error(f"{path}.robot.model", "urdf robots need physics.backend: pybullet")
    if g.robot.model != "quadrotor" and (g.faults.crash_speed is not None or g.faults.crash_tilt is not None):
        raise m.error(f"{path}.faults", "crash_speed and crash_tilt apply to quadrotors (robot.model: quadrotor)")
    if g.robot.model == "quadrotor":
        _check_quad_tick(s, g, path, dt, m)
    if isinstance(g.layout, ListLayout) and len(g.layout.points) != g.count:
        got = len(g.layout.points)
        raise m.error(f"{path}.layout.points", f"expected {g.count} positions (the group's count), got {got}")
    for sname, sopts in g.sensors.items():
        if sname not in SENSORS:
            raise m.error(f"{path}.sensors.{sname}", f"unknown sensor; expected one of: {', '.join(sorted(SENSORS))}")
        m.build(SENSORS[sname].Options, sopts, f"{path}.sensors.{sname}")


def _check_physics_options(s: Scenario, m: Mapper) -> None:
    """Each backend's own options are refused on the other, where they would do nothing (their
    defaults pass, so a written-out scenario reloads on either)."""
    ph = s.physics
    default = PhysicsSpec()
    if ph.backend == "pybullet":
        if ph.max_accel is not None:
            raise m.error("physics.max_accel", "the kinematic world's acceleration limit does nothing in pybullet, where "
                                               "bodies accelerate under their forces (point robots: physics.drag; wheeled "
                                               "robots: robot.drive.max_accel); leave it out or use physics.backend: kinematic")
        if not ph.collisions:
            raise m.error("physics.collisions", "pybullet bodies always collide; collisions: false needs physics.backend: "
                                                "kinematic")
        return
    if ph.drag != default.drag:
        raise m.error("physics.drag", "point robots' drag toward their commanded velocity is pybullet's (physics.backend: "
                                      "pybullet); the kinematic world moves them at it (limit with physics.max_accel)")
    if ph.solver_iterations != default.solver_iterations:
        raise m.error("physics.solver_iterations", "the contact solver's iterations are pybullet's (physics.backend: "
                                                   "pybullet); the kinematic world has no solver")


def _check_world(s: Scenario, m: Mapper) -> None:
    """What the world holds against what the physics backend can represent."""
    _check_physics_options(s, m)
    if s.physics.backend == "kinematic":
        for k, o in enumerate(s.world.obstacles):
            if isinstance(o, Mesh):
                raise m.error(f"world.obstacles[{k}]", "mesh obstacles need physics.backend: pybullet")
        if s.world.props:
            raise m.error("world.props", "movable props need physics.backend: pybullet (the kinematic world has none)")
        if s.world.terrain is not None:
            raise m.error("world.terrain", "terrain needs physics.backend: pybullet (the kinematic world is flat)")
    _check_shadowing(s, m)
    _check_sizes(s, m)
    _check_interfaces(s, m)
    _check_initial_state(s, m)
    terrain = s.world.terrain
    if terrain is not None and terrain.mesh is None:
        x0, x1, y0, y1 = terrain.extent()
        (ax0, ay0, _), (ax1, ay1, _) = s.world.arena_lower, s.world.arena_upper
        if x0 > ax0 or x1 < ax1 or y0 > ay0 or y1 < ay1:
            raise m.error("world.terrain", f"the heightfield covers x {x0:g}..{x1:g}, y {y0:g}..{y1:g} m but the arena is "
                                           f"x {ax0:g}..{ax1:g}, y {ay0:g}..{ay1:g}: robots would fall off its edge")

def _check_sizes(s: Scenario, m: Mapper) -> None:
    """Wind needs something that flies; robots fit in the arena; a radio delivers within the run."""
    if s.world.wind is not None and not any(g.robot.model == "quadrotor" for g in s.groups):
        raise m.error("world.wind", "wind pushes quadrotors only, and no group here flies one (robot.model: quadrotor); "
                                    "remove wind or add a quadrotor group")
    room = min(hi - lo for lo, hi in zip(s.world.arena_lower[:2], s.world.arena_upper[:2]))
    for gi, g in enumerate(s.groups):
        if 2 * g.robot.radius > room:
            raise m.error(f"groups[{gi}].robot.radius", f"a robot of radius {g.robot.radius:g} m does not fit in the "
                                                        f"arena, {room:g} m across at its narrowest")
    latency = s.network.radio.fast.latency_ns
    if s.network.backend == "fast" and latency >= s.duration_ns:
        raise m.error("network.radio.fast.latency", f"a latency of {format_ns(latency)} is not shorter than the run "
                                                    f"({format_ns(s.duration_ns)}): nothing sent would arrive")


def _check_shadowing(s: Scenario, m: Mapper) -> None:
    """Obstacles that shadow radio links must be solids the radio model can cross."""
    radios = [s.network.radio, *(i.radio for i in s.network.interfaces)]
    if not any(r.shadowed for r in radios):
        return
    for k, o in enumerate(s.world.obstacles):
        if isinstance(o, Mesh):
            raise m.error(f"world.obstacles[{k}]", "a mesh obstacle cannot shadow radio links (network.radio."
                                                   "obstacle_loss_db / obstacles_block take boxes, walls and cylinders)")


def _check_initial_state(s: Scenario, m: Mapper) -> None:
    """A state file with the scenario's robots, group by group, inside the arena."""
    if s.initial_state is None:
        return
    try:
        robots = read_state(Path(s.initial_state))
    except ValueError as exc:
        raise m.error("initial_state", str(exc)) from None
    groups = [g.name for g in s.groups for _ in range(g.count)]
    if [r.group for r in robots] != groups:
        have = ", ".join(f"{g.name} ({g.count})" for g in s.groups)
        raise m.error("initial_state", f"{s.initial_state} has {len(robots)} robots in groups "
                                       f"{_runs([r.group for r in robots])}; the scenario has {have}")
    lo = s.world.arena_lower
    hi = s.world.arena_upper
    for r in robots:
        if any(not lo[k] <= r.position[k] <= hi[k] for k in range(3)):
            raise m.error("initial_state", f"robot {r.node} starts at {r.position}, outside the arena {lo}..{hi}")


def _runs(groups: list[str]) -> str:
    """'a (3), b (2)' for [a, a, a, b, b]."""
    out: list[list] = []
    for g in groups:
        if out and out[-1][0] == g:
            out[-1][1] += 1
        else:
            out.append([g, 1])
    return ", ".join(f"{g} ({n})" for g, n in out) or "none"


def _check_interfaces(s: Scenario, m: Mapper) -> None:
    """More radios: distinct names, groups that exist, at most one ns-3 simulation in the run."""
    net = s.network
    if not net.interfaces:
        return
    if net.backend == "none":
        raise m.error("network.interfaces", "more radios need a first one: set network.backend to fast or ns3")
    if net.routing is not None and protocol_name(net.routing) in NS3_PROTOCOLS:
        raise m.error("network.interfaces", f"{protocol_name(net.routing)} runs inside ns-3 on the first radio only; "
                                            "use a Python routing protocol with several radios")
    groups = {g.name for g in s.groups}
    seen = {"radio"}
    ns3 = [net.backend == "ns3"]
    for k, i in enumerate(net.interfaces):
        if i.name in seen:
            raise m.error(f"network.interfaces[{k}].name", f"interface name {i.name!r} is used twice")
        seen.add(i.name)
        for name in i.groups or ():
            if name not in groups:
                raise m.error(f"network.interfaces[{k}].groups", f"no group {name!r}; the groups are {', '.join(sorted(groups))}")
        ns3.append(i.backend == "ns3")
        if sum(ns3) > 1:
            raise m.error(f"network.interfaces[{k}].backend", "one ns-3 radio per scenario: ns-3 runs one simulation "
                                                               "per process; give the other radios the fast backend")


def _check_routing(s: Scenario, m: Mapper) -> None:
    routing = s.network.routing
    name = None if routing is None else protocol_name(routing)
    if name in NS3_PROTOCOLS and not (s.network.backend == "ns3" and s.network.radio.is_wifi):
        raise m.error("network.routing.protocol", f"{name} runs inside ns-3: it needs network.backend: ns3 with an 802.11 radio")
    if isinstance(routing, Direct.Params) and routing.interface not in (None, *s.network.interface_names):
        raise m.error("network.routing.interface", f"no interface {routing.interface!r}; this scenario has "
                                                   f"{', '.join(s.network.interface_names)}")
    if routing is not None and s.network.backend == "none":
        raise m.error("network.routing", "routing needs a network; set network.backend to fast or ns3")
    if routing is not None and s.n_nodes >= 0xFFFF:
        raise m.error("network.routing", f"routed scenarios support at most 65,534 nodes, got {s.n_nodes}")
    for k, cbr in enumerate(s.traffic):
        if routing is None:
            raise m.error(f"traffic[{k}]", "traffic runs over the per-node stack: set network.routing (e.g. protocol: direct)")
        for a, b in cbr.pairs:
            if max(a, b) >= s.n_nodes:
                raise m.error(f"traffic[{k}].pairs", f"node ids must be below {s.n_nodes} (the robot count); got [{a}, {b}]")
        if cbr.sessions and s.n_nodes < 2:
            raise m.error(f"traffic[{k}].sessions", "random sessions need at least two robots")
        if cbr.start_ns >= s.duration_ns:
            raise m.error(f"traffic[{k}].start", f"the traffic starts at {format_ns(cbr.start_ns)}, when the run "
                                                 f"({format_ns(s.duration_ns)}) is over: it would send nothing")


def _check_quad_tick(s: Scenario, g, path: str, dt: int, m: Mapper) -> None:
    """All quadrotors share one control tick (one bank), and the physics step is a whole number of them."""
    first = next(q for q in s.groups if q.robot.model == "quadrotor")
    if g.robot.control_hz != first.robot.control_hz:
        raise m.error(f"{path}.robot.control_hz", f"all quadrotors share one control rate; group {first.name!r} has "
                                                  f"{first.robot.control_hz:g} Hz, this one {g.robot.control_hz:g} Hz")
    tick = g.robot.tick_ns
    if dt % tick:
        raise m.error("physics.dt", f"quadrotors need a physics step that is a multiple of their control tick "
                                    f"({format_ns(tick)}); got {format_ns(dt)}")


def _check_group_controllers(s: Scenario, m: Mapper) -> None:
    """Group controllers send raw link frames over a network; routed stacks and MAVLink are per robot."""
    for gi, g in enumerate(s.groups):
        if g.controller is None:
            continue
        try:
            cls = import_class(g.controller.cls, m.source)
        except Exception:  # reported with its key by _check_controller
            continue
        if not (isinstance(cls, type) and issubclass(cls, GroupController)):
            continue
        where = f"groups[{gi}].controller.class"
        if s.network.routing is not None:
            raise m.error(where, "group controllers send raw link frames: they do not run with network.routing "
                                 "(not yet); use a per-robot Controller")
        if s.mavlink is not None and any(e.group == g.name for _, e in s.mavlink.entries()):
            raise m.error(where, "MAVLink vehicles are flown by per-robot Controllers, not group controllers")


def _check_controller(g: GroupSpec, path: str, dt: int, m: Mapper) -> None:
    cpath = f"{path}.controller"
    try:
        cls = import_class(g.controller.cls, m.source)
    except Exception as exc:  # ImportError, or any error raised while importing user code
        raise m.error(f"{cpath}.class", f"cannot import {g.controller.cls!r}: {exc}") from None
    if not (isinstance(cls, type) and issubclass(cls, (Controller, GroupController))):
        raise m.error(f"{cpath}.class", f"{g.controller.cls!r} is not a subclass of controllers.Controller "
                                        "or controllers.GroupController")
    check_param_names(cls, g.controller.params, f"{cpath}.params", m)
    m.build(cls.Params, g.controller.params, f"{cpath}.params")
    if not cls.steps():
        for key, value in (("period", g.controller.period_ns), ("phase", g.controller.phase_ns)):
            if value is not None:
                raise m.error(f"{cpath}.{key}", f"{cls.__name__} has no step() for a {key} to time: remove the key "
                                                "(its own timers keep their own periods and phases)")
    period = controller_period_ns(g.controller, cls, m, cpath)
    if period is not None and period % dt:
        raise m.error(
            f"{cpath}.period",
            f"the controller period ({format_ns(period)}) must be a multiple of the physics step ({format_ns(dt)})",
        )
    if g.controller.phase_ns is not None and period is not None and not 0 <= g.controller.phase_ns < period:
        raise m.error(f"{cpath}.phase", f"expected a phase in [0, period) = [0, {format_ns(period)})")


def controller_period_ns(spec: ControllerSpec, cls: type, m: Mapper, path: str) -> int | None:
    """The step period: the scenario's, else the class default; None if the class has no step."""
    if spec.period_ns is not None:
        if spec.period_ns <= 0:
            raise m.error(f"{path}.period", "expected a positive duration")
        return spec.period_ns
    if cls.period is None:
        return None
    return m.duration(cls.period, f"{path}.period (class default of {cls.__name__})")


MAX_ROBOTS = 1_000_000
"""The most robots one scenario may hold."""
ROBOT_BYTES = 8 * 1024
"""Memory a robot needs at the least (measured: 7 to 15 KiB each on the kinematic world)."""


def _check_memory(s: Scenario, m: Mapper) -> None:
    """Refuse a robot count this machine cannot hold, before anything is allocated."""
    total = os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    need = s.n_nodes * ROBOT_BYTES
    if need > total:
        big = max(range(len(s.groups)), key=lambda k: s.groups[k].count)
        raise m.error(f"groups[{big}].count", f"{s.n_nodes:,} robots need at least {need / 2**30:,.0f} GiB "
                                              f"({ROBOT_BYTES // 1024} KiB each); this machine has {total / 2**30:,.0f} GiB")
    if s.n_nodes > MAX_ROBOTS:
        big = max(range(len(s.groups)), key=lambda k: s.groups[k].count)
        raise m.error(f"groups[{big}].count", f"{s.n_nodes:,} robots: at most {MAX_ROBOTS:,} in one scenario (building "
                                              "each robot is Python work; split a larger swarm over several runs)")


MAX_SAMPLES = 100_000_000
"""Position samples one run may take (each is an event; a day at 1 kHz is 86 million)."""
MAX_TRACE_ROWS = 10_000_000_000
"""Position rows one run may write (about 400 GB of Parquet)."""


def _check_trace_rate(s: Scenario, m: Mapper) -> None:
    """Refuse a position trace that cannot finish: too many samples, or too many rows to write."""
    every = s.output.trace.positions_every_ns
    if every is None:
        return
    samples = s.duration_ns // every + 1
    if samples > MAX_SAMPLES:
        raise m.error("output.trace.positions_every", f"every {format_ns(every)} over {format_ns(s.duration_ns)} is "
                      f"{samples:,} samples, more than {MAX_SAMPLES:,}; positions change once per physics step "
                      f"({format_ns(s.physics.dt_ns)}): sample less often")
    if samples * s.n_nodes > MAX_TRACE_ROWS:
        raise m.error("output.trace.positions_every", f"{samples:,} samples of {s.n_nodes:,} robots are "
                      f"{samples * s.n_nodes:,} rows (about {samples * s.n_nodes * 40 / 1e9:,.0f} GB), more than "
                      f"{MAX_TRACE_ROWS:,}: sample less often")
