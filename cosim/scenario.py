"""Scenario files: the typed specification of a run, loaded from YAML and validated before anything runs.

Durations are seconds (or strings such as '10 ms', '1/240 s', '250 Hz') in the file and integer
nanoseconds inside. Unknown keys, wrong types, impossible values and unimportable classes raise
ScenarioError naming the file, the key path and what was expected.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import yaml

from controllers.base import Controller
from cosim.errors import ScenarioError
from cosim.layouts import LAYOUTS, ListLayout, RandomDiscLayout
from cosim.mavlink.spec import MavlinkSpec
from cosim.schema import Mapper
from cosim.timeunits import format_ns
from netstack.fast.backend import FastRadioConfig
from netstack.fast.pathloss import PATHLOSS_MODELS
from netstack.ns3.config import Ns3RadioConfig
from netstack.routing.registry import NS3_PROTOCOLS
from netstack.routing.registry import PARAMS as ROUTING_PARAMS
from physics import obstacles
from physics.battery import BatterySpec
from physics.diff_drive import DriveSpec
from physics.quadrotor import AIRFRAMES, TICK_NS
from physics.sensors import SENSORS

RADIO_CONFIGS: dict[str, type] = {"fast": FastRadioConfig, "ns3": Ns3RadioConfig, "none": FastRadioConfig}

for _name, _cls in PATHLOSS_MODELS.items():
    _cls._tag = ("model", _name)


@dataclass(frozen=True)
class BoxSpec:
    """A static box obstacle: centre and size (full extents) in metres."""

    center: tuple[float, float, float]
    size: tuple[float, float, float]

    def __post_init__(self) -> None:
        if min(self.size) <= 0:
            raise ValueError(f"box size must be positive on every axis, got {self.size}")

    def shape(self):
        return obstacles.Box(self.center, tuple(x / 2.0 for x in self.size))


@dataclass(frozen=True)
class CylinderSpec:
    """A vertical cylinder: centre (at mid-height), radius and height in metres."""

    center: tuple[float, float, float]
    radius: float
    height: float

    def __post_init__(self) -> None:
        if self.radius <= 0 or self.height <= 0:
            raise ValueError("cylinder radius and height must be > 0")

    def shape(self):
        return obstacles.Cylinder(self.center, self.radius, self.height / 2.0)


@dataclass(frozen=True)
class WallSpec:
    """A wall from `start` to `end` (x, y), `height` and `thickness` in metres, standing on `base`."""

    start: tuple[float, float]
    end: tuple[float, float]
    height: float = 2.0
    thickness: float = 0.2
    base: float = 0.0

    def __post_init__(self) -> None:
        if self.height <= 0 or self.thickness <= 0:
            raise ValueError("wall height and thickness must be > 0")
        if tuple(self.start) == tuple(self.end):
            raise ValueError("a wall needs two different end points")

    def shape(self):
        return obstacles.wall(self.start, self.end, self.height, self.thickness, self.base)


@dataclass(frozen=True)
class MeshSpec:
    """A static mesh from an OBJ or URDF `file` (pybullet world only), placed and scaled."""

    file: str
    position: tuple[float, float, float] = (0.0, 0.0, 0.0)
    yaw: float = 0.0
    scale: float = 1.0

    def __post_init__(self) -> None:
        if not self.file.lower().endswith((".obj", ".urdf")):
            raise ValueError(f"mesh file must be .obj or .urdf, got {self.file!r}")
        if not Path(self.file).is_file():
            raise ValueError(f"mesh file {self.file!r} does not exist")
        if self.scale <= 0:
            raise ValueError("scale must be > 0")

    def shape(self):
        return obstacles.Mesh(self.file, self.position, self.yaw, self.scale)


OBSTACLES: dict[str, type] = {"box": BoxSpec, "cylinder": CylinderSpec, "wall": WallSpec, "mesh": MeshSpec}
for _name, _cls in OBSTACLES.items():
    _cls._tag = ("type", _name)


@dataclass(frozen=True)
class WindSpec:
    """Wind on aerial robots: a constant `mean` (m/s, x y z) plus gusts with standard deviation
    `gust_std` (m/s) and correlation time `gust_tau` (s), drawn from the run's seeded streams."""

    mean: tuple[float, float, float] = (0.0, 0.0, 0.0)
    gust_std: float = 0.0
    gust_tau: float = 2.0

    def __post_init__(self) -> None:
        if self.gust_std < 0 or self.gust_tau <= 0:
            raise ValueError("gust_std must be >= 0 m/s and gust_tau > 0 s")


@dataclass(frozen=True)
class WorldSpec:
    """The arena (robots are kept inside), static obstacles, and optional wind on aerial robots."""

    arena_lower: tuple[float, float, float] = (-500.0, -500.0, 0.0)
    arena_upper: tuple[float, float, float] = (500.0, 500.0, 100.0)
    obstacles: tuple[Any, ...] = field(default=(), metadata={"item_registry": OBSTACLES, "tag": "type"})
    wind: WindSpec | None = None

    def __post_init__(self) -> None:
        if any(lo >= hi for lo, hi in zip(self.arena_lower, self.arena_upper)):
            raise ValueError(f"arena_lower {self.arena_lower} must be below arena_upper {self.arena_upper} on every axis")


@dataclass(frozen=True)
class PhysicsSpec:
    """World backend and its step. `kinematic` options: max_accel, collisions. `pybullet`: drag, solver_iterations."""

    backend: Literal["kinematic", "pybullet"] = "kinematic"
    dt_ns: int = 10_000_000
    max_accel: float = float("inf")
    collisions: bool = True
    drag: float = 5.0
    solver_iterations: int = 10

    def __post_init__(self) -> None:
        if self.dt_ns <= 0:
            raise ValueError("dt must be a positive duration")
        if self.max_accel <= 0:
            raise ValueError(f"max_accel must be > 0 m/s^2, got {self.max_accel}")
        if self.drag <= 0:
            raise ValueError(f"drag must be > 0 1/s, got {self.drag}")


@dataclass(frozen=True)
class NetworkSpec:
    """Network backend (`fast`, `ns3` or `none`), its radio settings (the backend's own schema), and how
    long a heard node counts as a neighbour."""

    backend: Literal["fast", "ns3", "none"] = "fast"
    radio: Any = field(default_factory=FastRadioConfig)
    neighbor_timeout_ns: int = 2_000_000_000
    routing: Any = field(default=None, metadata={"registry": ROUTING_PARAMS, "tag": "protocol"})
    """None: controllers send raw link frames. Otherwise the per-node stack's protocol and its parameters."""

    def __post_init__(self) -> None:
        if self.neighbor_timeout_ns <= 0:
            raise ValueError("neighbor_timeout must be > 0")


@dataclass(frozen=True)
class ControllerSpec:
    """Controller class by import string `package.module:Class`, its step period, phase and params."""

    cls: str
    params: dict[str, Any] = field(default_factory=dict)
    period_ns: int | None = None
    phase_ns: int | None = None


@dataclass(frozen=True)
class RobotModelSpec:
    """Body of each robot in a group (SI units). `point` is SimpleBee: velocity, turn, hover.
    `quadrotor` is a rigid body with rotors and cascaded PID (physics.quadrotor), of preset
    `airframe`; its mass comes from the preset. `diff_drive` is a two-wheeled ground robot
    (physics.diff_drive) with the `drive` settings."""

    model: Literal["point", "quadrotor", "diff_drive"] = "point"
    radius: float = 0.1
    mass: float = 0.05
    max_speed: float = 5.0
    heading: float = 0.0
    airframe: str = "crazyflie"
    drive: DriveSpec = field(default_factory=DriveSpec)
    """diff_drive only: wheel_base, max_wheel_speed, max_accel, friction, heading_gain."""

    def __post_init__(self) -> None:
        if self.model == "quadrotor" and self.airframe not in AIRFRAMES:
            raise ValueError(f"unknown airframe {self.airframe!r}; expected one of: {', '.join(sorted(AIRFRAMES))}")
        if self.radius <= 0 or self.mass <= 0:
            raise ValueError("radius and mass must be > 0")
        if self.max_speed < 0:
            raise ValueError("max_speed must be >= 0")


@dataclass(frozen=True)
class FaultSpec:
    """Faults of a group's robots: die on any collision (robot, obstacle, wall, ground), and/or fail at
    random with an exponential time to failure of mean `mean_time_to_failure` (seconds)."""

    collision_kills: bool = False
    mean_time_to_failure_ns: int | None = None

    def __post_init__(self) -> None:
        if self.mean_time_to_failure_ns is not None and self.mean_time_to_failure_ns <= 0:
            raise ValueError("mean_time_to_failure must be a positive duration")


@dataclass(frozen=True)
class KillSpec:
    """A scheduled fault: node `node` dies at time `at`."""

    node: int
    at_ns: int

    def __post_init__(self) -> None:
        if self.node < 0 or self.at_ns < 0:
            raise ValueError(f"node and at must be >= 0, got node {self.node}, at {self.at_ns} ns")


@dataclass(frozen=True)
class GroupSpec:
    """A group of identical robots: how many, where they start, what runs on them."""

    name: str
    count: int
    controller: ControllerSpec
    layout: Any = field(default_factory=RandomDiscLayout, metadata={"registry": LAYOUTS, "tag": "type"})
    robot: RobotModelSpec = field(default_factory=RobotModelSpec)
    sensors: dict[str, Any] = field(default_factory=dict)
    faults: FaultSpec = field(default_factory=FaultSpec)
    battery: BatterySpec | None = None

    def __post_init__(self) -> None:
        if self.count < 1:
            raise ValueError(f"count must be >= 1, got {self.count}")


@dataclass(frozen=True)
class TraceSpec:
    """What the run records: positions every `positions_every` (None: never), network events, records."""

    positions_every_ns: int | None = 1_000_000_000
    network: bool = True
    records: bool = True

    def __post_init__(self) -> None:
        if self.positions_every_ns is not None and self.positions_every_ns <= 0:
            raise ValueError("positions_every must be a positive duration, or null for no position trace")


@dataclass(frozen=True)
class OutputSpec:
    dir: str = "runs"
    trace: TraceSpec = field(default_factory=TraceSpec)


@dataclass(frozen=True)
class CbrSpec:
    """Constant-bit-rate traffic: `size`-byte packets at `rate` per second from each source to its
    destination on `port`. Sessions are the listed `pairs` [source, destination], plus `sessions`
    random pairs drawn from the run's seeded stream. Each session starts at `start` plus a uniform
    random offset in [0, start_window) and stops at `stop` (default: the end of the run)."""

    rate: float = 1.0
    size: int = 64
    pairs: tuple[tuple[int, int], ...] = ()
    sessions: int = 0
    start_ns: int = 0
    start_window_ns: int = 0
    stop_ns: int | None = None
    port: int = 9

    def __post_init__(self) -> None:
        if not self.rate > 0:
            raise ValueError(f"rate must be > 0 packets per second, got {self.rate}")
        if self.size < 0:
            raise ValueError(f"size must be >= 0 bytes, got {self.size}")
        if self.sessions < 0:
            raise ValueError(f"sessions must be >= 0, got {self.sessions}")
        if not self.pairs and not self.sessions:
            raise ValueError("give `pairs` or a number of random `sessions`")
        if not 0 <= self.port <= 0xFFFF:
            raise ValueError(f"port must be within 0..65535, got {self.port}")
        if self.start_ns < 0 or self.start_window_ns < 0:
            raise ValueError("start and start_window must be >= 0")
        for a, b in self.pairs:
            if a == b or a < 0 or b < 0:
                raise ValueError(f"each pair is [source, destination], two different node ids >= 0; got [{a}, {b}]")


@dataclass(frozen=True)
class Scenario:
    """A whole run, resolved and validated."""

    duration_ns: int
    groups: tuple[GroupSpec, ...]
    name: str = "scenario"
    seed: int = 1
    quantum_ns: int = 10_000_000
    physics: PhysicsSpec = field(default_factory=PhysicsSpec)
    network: NetworkSpec = field(default_factory=NetworkSpec)
    world: WorldSpec = field(default_factory=WorldSpec)
    output: OutputSpec = field(default_factory=OutputSpec)
    kills: tuple[KillSpec, ...] = ()
    traffic: tuple[CbrSpec, ...] = ()
    mavlink: MavlinkSpec | None = None
    """Simulated robots served as MAVLink vehicles and real vehicles as ghosts (paced to the wall clock)."""
    source: str = field(default="<memory>", compare=False)

    @property
    def n_nodes(self) -> int:
        return sum(g.count for g in self.groups)


def import_class(spec: str) -> type:
    """Import `package.module:Class`."""
    module_name, sep, attr = spec.partition(":")
    if not sep or not module_name or not attr:
        raise ImportError(f"{spec!r} is not an import string of the form 'package.module:Class'")
    module = importlib.import_module(module_name)
    try:
        return getattr(module, attr)
    except AttributeError:
        raise ImportError(f"module {module_name!r} has no attribute {attr!r}") from None


def _controller_key_rename(data: Any) -> Any:
    # YAML says `class:` (a Python keyword); the dataclass field is `cls`.
    if isinstance(data, dict) and "class" in data:
        data = dict(data)
        data["cls"] = data.pop("class")
    return data


def from_dict(data: Any, source: str = "<memory>") -> Scenario:
    """Validate plain data (as parsed from YAML) into a Scenario; raises ScenarioError."""
    m = Mapper(source)
    if not isinstance(data, dict):
        raise m.error("", f"expected a mapping at the top level, got {type(data).__name__}")
    data = dict(data)
    groups = data.get("groups")
    if isinstance(groups, list):
        data["groups"] = [
            {**g, "controller": _controller_key_rename(g.get("controller"))} if isinstance(g, dict) else g for g in groups
        ]
    if "seed" in data and (not isinstance(data["seed"], int) or isinstance(data["seed"], bool) or data["seed"] < 0):
        raise m.error("seed", f"expected a non-negative integer, got {data['seed']!r}")
    if "world" in data:
        data["world"] = _world_section(data["world"], source, m)
    network = data.get("network")
    if isinstance(network, dict):
        # the radio section's schema depends on the backend named beside it
        network = dict(network)
        backend = network.get("backend", "fast")
        if backend in RADIO_CONFIGS:
            network["radio"] = m.build(RADIO_CONFIGS[backend], network.get("radio"), "network.radio")
        data["network"] = m.build(NetworkSpec, {k: v for k, v in network.items() if k != "radio"}, "network",
                                  extra={"radio": network.get("radio", RADIO_CONFIGS["fast"]())})
    scenario: Scenario = m.build(Scenario, data, "", extra={"source": source})
    _check(scenario, m)
    return scenario


def _world_section(world: Any, source: str, m: Mapper) -> Any:
    """Read `world: {file: ...}` (a separate world file, as Simbeeotic keeps it) and give untyped
    obstacles the type `box`; mesh paths are resolved against the file that names them."""
    if not isinstance(world, dict):
        return world
    base = Path(source).parent if source != "<memory>" else Path.cwd()
    if "file" in world:
        if set(world) != {"file"}:
            others = ", ".join(sorted(k for k in world if k != "file"))
            raise m.error("world", f"a world file replaces the whole section; move {others} into {world['file']}")
        path = base / str(world["file"])
        try:
            loaded = yaml.safe_load(path.read_text())
        except OSError as exc:
            raise m.error("world.file", f"cannot read the world file {str(path)!r}: {exc.strerror}") from None
        except yaml.YAMLError as exc:
            raise m.error("world.file", f"{path} is not valid YAML: {exc}") from None
        if not isinstance(loaded, dict):
            raise m.error("world.file", f"{path} must hold a mapping (arena_lower, arena_upper, obstacles, wind)")
        world, base = loaded, path.parent
    world = dict(world)
    items = world.get("obstacles")
    if isinstance(items, list):
        fixed = []
        for item in items:
            if isinstance(item, dict):
                item = {"type": "box", **item}
                if item["type"] == "mesh" and isinstance(item.get("file"), str):
                    item["file"] = str((base / item["file"]).resolve())
            fixed.append(item)
        world["obstacles"] = fixed
    return world


def _check(s: Scenario, m: Mapper) -> None:
    if s.duration_ns <= 0:
        raise m.error("duration", "expected a positive duration")
    dt, q = s.physics.dt_ns, s.quantum_ns
    if q <= 0:
        raise m.error("quantum", "expected a positive duration")
    if q % dt:
        raise m.error(
            "quantum", f"the physics step ({format_ns(dt)}) must divide the quantum ({format_ns(q)}); "
            f"try a quantum of {format_ns(dt * max(1, round(q / dt)))}"
        )
    if not s.groups:
        raise m.error("groups", "expected at least one group of robots")
    for k, kill in enumerate(s.kills):
        if kill.node >= s.n_nodes:
            raise m.error(f"kills[{k}].node", f"expected a node id below {s.n_nodes} (the scenario's robot count)")
    _check_routing(s, m)
    if s.mavlink is not None:
        _check_mavlink(s, m)
    if s.physics.backend == "kinematic":
        for k, o in enumerate(s.world.obstacles):
            if isinstance(o, MeshSpec):
                raise m.error(f"world.obstacles[{k}]", "mesh obstacles need physics.backend: pybullet")
    names = set()
    for gi, g in enumerate(s.groups):
        path = f"groups[{gi}]"
        if g.name in names:
            raise m.error(f"{path}.name", f"group name {g.name!r} is used twice")
        names.add(g.name)
        _check_controller(g, path, dt, m)
        if g.robot.model == "diff_drive" and s.physics.backend != "kinematic":
            raise m.error(f"{path}.robot.model", "diff_drive robots run on physics.backend: kinematic (pybullet: not yet)")
        if g.robot.model == "quadrotor":
            if s.physics.backend != "kinematic":
                raise m.error(f"{path}.robot.model", "quadrotors run on physics.backend: kinematic (pybullet: not yet)")
            if dt % TICK_NS:
                raise m.error("physics.dt", f"quadrotors need a physics step that is a multiple of their control tick "
                                            f"({format_ns(TICK_NS)}); got {format_ns(dt)}")
        if isinstance(g.layout, ListLayout) and len(g.layout.points) != g.count:
            got = len(g.layout.points)
            raise m.error(f"{path}.layout.points", f"expected {g.count} positions (the group's count), got {got}")
        for sname, sopts in g.sensors.items():
            if sname == "imu" and s.physics.backend != "kinematic":
                raise m.error(f"{path}.sensors.imu", "the imu sensor needs physics.backend: kinematic (pybullet: not yet)")
            if sname not in SENSORS:
                raise m.error(f"{path}.sensors.{sname}", f"unknown sensor; expected one of: {', '.join(sorted(SENSORS))}")
            m.build(SENSORS[sname].Options, sopts, f"{path}.sensors.{sname}")


def _check_routing(s: Scenario, m: Mapper) -> None:
    routing = s.network.routing
    name = getattr(routing, "_tag", (None, None))[1]
    if name in NS3_PROTOCOLS and not (s.network.backend == "ns3" and s.network.radio.is_wifi):
        raise m.error("network.routing.protocol", f"{name} runs inside ns-3: it needs network.backend: ns3 with an 802.11 radio")
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


_SERVABLE = {"px4": "quadrotor", "ardupilot": "quadrotor", "ardupilot_rover": "diff_drive"}


def _check_mavlink(s: Scenario, m: Mapper) -> None:
    groups = {g.name: g for g in s.groups}
    used: dict[str, str] = {}
    ports: dict[tuple[str, int], list[tuple[int, int, str | None, str]]] = {}
    for path, e in s.mavlink.entries():
        g = groups.get(e.group)
        if g is None:
            raise m.error(f"{path}.group", f"no group named {e.group!r}; expected one of: {', '.join(groups)}")
        if e.group in used:
            raise m.error(f"{path}.group", f"group {e.group!r} is already bound to MAVLink at {used[e.group]}")
        used[e.group] = path
        if s.physics.backend != "kinematic":
            raise m.error(path, "MAVLink vehicles need physics.backend: kinematic")
        if e.first_sysid + g.count - 1 > 255:
            raise m.error(f"{path}.first_sysid", f"{g.count} vehicles from system id {e.first_sysid} pass 255")
        if path.startswith("mavlink.serve"):
            want = _SERVABLE[e.personality]
            if g.robot.model != want:
                raise m.error(f"{path}.personality", f"the {e.personality} personality serves robot.model: {want}; "
                                                     f"group {e.group!r} has {g.robot.model}")
            span = (e.first_sysid, e.first_sysid + g.count - 1, e.signing_key_env, path)
            for lo, hi, key, other in ports.setdefault((e.host, e.port), []):
                if e.port and not (span[1] < lo or span[0] > hi):
                    raise m.error(f"{path}.first_sysid", f"system ids {span[0]}..{span[1]} overlap those of {other} on "
                                                         f"the same port {e.port}")
                if e.port and key != e.signing_key_env:
                    raise m.error(f"{path}.signing_key_env", f"one port has one signing key; {other} uses {key!r}")
            ports[(e.host, e.port)].append(span)
        elif g.robot.model != "point":
            raise m.error(f"groups[{s.groups.index(g)}].robot.model",
                          "a ghost's body is the real vehicle: give its group robot.model: point "
                          "(the twin only carries its pose)")


def _check_controller(g: GroupSpec, path: str, dt: int, m: Mapper) -> None:
    cpath = f"{path}.controller"
    try:
        cls = import_class(g.controller.cls)
    except Exception as exc:  # ImportError, or any error raised while importing user code
        raise m.error(f"{cpath}.class", f"cannot import {g.controller.cls!r}: {exc}") from None
    if not (isinstance(cls, type) and issubclass(cls, Controller)):
        raise m.error(f"{cpath}.class", f"{g.controller.cls!r} is not a subclass of controllers.Controller")
    m.build(cls.Params, g.controller.params, f"{cpath}.params")
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


def load(path: str | Path, overrides: dict[str, Any] | None = None) -> Scenario:
    """Read, override (dotted keys) and validate a scenario file."""
    path = Path(path)
    source = str(path)
    try:
        text = path.read_text()
    except OSError as exc:
        raise ScenarioError(source, "", f"cannot read the file: {exc.strerror}") from None
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise ScenarioError(source, "", f"not valid YAML: {exc}") from None
    if data is None:
        raise ScenarioError(source, "", "the file is empty; expected a scenario mapping")
    if isinstance(data, dict):
        data.setdefault("name", path.stem)
    for key, value in (overrides or {}).items():
        data = apply_override(data, key, value, source)
    return from_dict(data, source)


def apply_override(data: Any, dotted: str, value: Any, source: str) -> Any:
    """Set `a.b.0.c = value` in nested mappings/lists; list indices must exist."""
    if not isinstance(data, dict):
        raise ScenarioError(source, dotted, "cannot override: the scenario is not a mapping")
    parts = dotted.split(".")
    node: Any = data
    for i, part in enumerate(parts):
        last = i == len(parts) - 1
        here = ".".join(parts[: i + 1])
        if isinstance(node, list):
            if not part.isdigit() or int(part) >= len(node):
                raise ScenarioError(source, here, f"override: expected a list index below {len(node)}")
            if last:
                node[int(part)] = value
            else:
                node = node[int(part)]
        elif isinstance(node, dict):
            if last:
                node[part] = value
            else:
                if part not in node or node[part] is None:
                    node[part] = {}
                node = node[part]
        else:
            raise ScenarioError(source, here, f"override: {'.'.join(parts[:i])} is not a mapping or list")
    return data


def parse_set_option(text: str) -> tuple[str, Any]:
    """Read `dotted.key=value` (value parsed as YAML) from the command line."""
    key, sep, raw = text.partition("=")
    if not sep or not key:
        raise ValueError(f"--set expects dotted.key=value, got {text!r}")
    try:
        value = yaml.safe_load(raw)
    except yaml.YAMLError as exc:
        raise ValueError(f"--set {key}: cannot read value {raw!r}: {exc}") from None
    return key, value
