"""Scenario files: the typed specification of a run.

Durations are seconds (or strings such as '10 ms', '1/240 s', '250 Hz') in the file and integer
nanoseconds inside (fields named `*_ns`). Each spec rejects impossible values in `__post_init__`;
cross-field checks are in `cosim.scenario.checks`, reading YAML in `cosim.scenario.loading`.
"""

from __future__ import annotations

from dataclasses import MISSING, dataclass, field, fields
from typing import Any, Literal

from cosim.errors import KeyValueError
from cosim.mavlink.spec import MavlinkSpec
from cosim.scenario.layouts import LAYOUTS, RandomDiscLayout
from cosim.stream.spec import StreamSpec
from cosim.topology.spec import TopologySpec
from cosim.view.spec import ViewSpec
from netstack.radio import RadioSpec
from netstack.routing.registry import PARAMS as ROUTING_PARAMS
from physics.battery import BatterySpec
from physics.diff_drive import DriveSpec
from physics.obstacles import OBSTACLES
from physics.omni import OmniSpec
from physics.props import PROPS, Terrain
from physics.quadrotor import AIRFRAMES
from physics.urdf import UrdfSpec

MAX_CONTROL_HZ = 10_000
"""The fastest quadrotor control loop a scenario may ask for (Hz)."""
MAX_PACKET_RATE = 1_000_000
"""The most packets a traffic source may send per second."""
MAX_SESSIONS = 1_000_000
"""The most random traffic sessions one traffic entry may draw."""
MAX_SPEED = 1_000.0
"""The fastest a robot may be told to go (m/s): about three times the speed of sound."""
MAX_RADIUS = 1_000.0
"""The largest robot body (m)."""
MAX_MASS = 100_000.0
"""The heaviest robot body (kg): a hundred tonnes."""
MAX_COORDINATE = 1e6
"""The farthest an arena may reach from the origin (m): 1,000 km, where float64 positions still
resolve nanometres."""
MAX_SOLVER_ITERATIONS = 1_000
"""pybullet's contact solver: more iterations than this cost without converging further."""


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
    """The arena (robots are kept inside), static obstacles, optional wind on aerial robots, and
    (pybullet only) movable props and a terrain instead of the flat ground."""

    arena_lower: tuple[float, float, float] = (-500.0, -500.0, 0.0)
    arena_upper: tuple[float, float, float] = (500.0, 500.0, 100.0)
    obstacles: tuple[Any, ...] = field(default=(), metadata={"item_registry": OBSTACLES, "tag": "type"})
    wind: WindSpec | None = None
    props: tuple[Any, ...] = field(default=(), metadata={"item_registry": PROPS, "tag": "type"})
    terrain: Terrain | None = None

    def __post_init__(self) -> None:
        if max(abs(v) for v in (*self.arena_lower, *self.arena_upper)) > MAX_COORDINATE:
            raise ValueError(f"the arena must lie within {MAX_COORDINATE:,.0f} m of the origin on every axis, got "
                             f"arena_lower {list(self.arena_lower)} and arena_upper {list(self.arena_upper)}")
        if any(lo >= hi for lo, hi in zip(self.arena_lower, self.arena_upper)):
            raise ValueError(f"arena_lower {self.arena_lower} must be below arena_upper {self.arena_upper} on every axis")


@dataclass(frozen=True)
class PhysicsSpec:
    """World backend and its step. `kinematic` options: max_accel (m/s^2; null: no limit),
    collisions. `pybullet`: drag, solver_iterations. Each is refused on the other backend
    (cosim.scenario.checks), except at its default."""

    backend: Literal["kinematic", "pybullet"] = "kinematic"
    dt_ns: int = 10_000_000
    max_accel: float | None = None
    collisions: bool = True
    drag: float = 5.0
    solver_iterations: int = 10

    def __post_init__(self) -> None:
        if self.dt_ns <= 0:
            raise ValueError("dt must be a positive duration")
        if self.max_accel is not None and self.max_accel <= 0:
            raise ValueError(f"max_accel must be > 0 m/s^2, got {self.max_accel}")
        if not 0 < self.drag <= 1e4:
            raise ValueError(f"drag must be > 0 and at most 1e4 1/s, got {self.drag}")
        if not 1 <= self.solver_iterations <= MAX_SOLVER_ITERATIONS:
            raise KeyValueError("solver_iterations", f"solver_iterations must be within 1..{MAX_SOLVER_ITERATIONS:,} "
                                                     f"(the default is 10), got {self.solver_iterations:,}")


BACKEND_KEYS = {"max_accel": "kinematic", "collisions": "kinematic", "drag": "pybullet", "solver_iterations": "pybullet"}
"""The physics keys only one backend reads."""

PRIMARY_INTERFACE = "radio"
"""The name of the interface `network.backend` and `network.radio` configure."""


@dataclass(frozen=True)
class InterfaceSpec:
    """One more radio on some of the groups' robots: its name (what controllers send on and see
    messages come in on), its backend, its radio (netstack.radio), and the groups that carry it
    (None: all)."""

    name: str
    backend: Literal["fast", "ns3"] = "fast"
    radio: RadioSpec = field(default_factory=RadioSpec)
    groups: tuple[str, ...] | None = None

    def __post_init__(self) -> None:
        if not self.name.isidentifier() or self.name == PRIMARY_INTERFACE:
            raise ValueError(f"an interface name is an identifier other than {PRIMARY_INTERFACE!r} (the first radio's), "
                             f"got {self.name!r}")


@dataclass(frozen=True)
class NetworkSpec:
    """Network backend (`fast`, `ns3` or `none`), the radio both engines read (netstack.radio), and how
    long a heard node counts as a neighbour."""

    backend: Literal["fast", "ns3", "none"] = "fast"
    radio: RadioSpec = field(default_factory=RadioSpec)
    neighbor_timeout_ns: int = 2_000_000_000
    routing: Any = field(default=None, metadata={"registry": ROUTING_PARAMS, "tag": "protocol"})
    """None: controllers send raw link frames. Otherwise the per-node stack's protocol and its parameters."""
    interfaces: tuple[InterfaceSpec, ...] = ()
    """More radios beside the first (`radio`), each on its own backend (netstack.interfaces)."""

    @property
    def interface_names(self) -> tuple[str, ...]:
        return (PRIMARY_INTERFACE, *(i.name for i in self.interfaces))

    def __post_init__(self) -> None:
        if self.neighbor_timeout_ns <= 0:
            raise ValueError("neighbor_timeout must be > 0")


@dataclass(frozen=True)
class ControllerSpec:
    """Controller class by import string `package.module:Class`, its step period, phase and params
    (period and phase only for a class with a step: they time nothing else, so elsewhere they are refused)."""

    cls: str
    params: dict[str, Any] = field(default_factory=dict)
    period_ns: int | None = None
    phase_ns: int | None = None


@dataclass(frozen=True)
class RobotModelSpec:
    """Body of each robot in a group (SI units). `point` is SimpleBee: velocity, turn, hover.
    `quadrotor` is a rigid body with rotors and cascaded PID (physics.quadrotor), of preset
    `airframe`; its mass comes from the preset. `diff_drive` is a two-wheeled ground robot
    (physics.diff_drive) with the `drive` settings. `omni` is BARAKA's three-wheeled omnidirectional
    Robertino (physics.omni) with the `omni` settings. `urdf` is your own model (physics.urdf: the
    file, its wheel joints, their radius and track), driven like a diff_drive robot with the
    `drive` limits; pybullet only."""

    model: Literal["point", "quadrotor", "diff_drive", "omni", "urdf"] = "point"
    radius: float = 0.1
    mass: float = 0.05
    max_speed: float = 5.0
    heading: float = 0.0
    airframe: str = "crazyflie"
    control_hz: float = 400.0
    """quadrotor only: the cascaded PID's rate (Hz), one second in whole nanoseconds (50, 100, 200,
    400, ...). The kinematic world integrates at this tick too; pybullet holds each tick's rotor
    wrench (in the body frame) over engine steps of at most 1/240 s, as gym-pybullet-drones does."""
    drive: DriveSpec = field(default_factory=DriveSpec)
    """diff_drive only: wheel_base, max_wheel_speed, max_accel, friction, heading_gain."""
    omni: OmniSpec = field(default_factory=OmniSpec)
    """omni only: max_wheel_speed, max_accel, friction, heading_gain."""
    urdf: UrdfSpec | None = None
    """urdf only: file, left_wheel, right_wheel, wheel_radius, track, scale."""

    @property
    def tick_ns(self) -> int:
        """A quadrotor's control tick (ns)."""
        return round(1e9 / self.control_hz)

    def __post_init__(self) -> None:
        if (self.model == "urdf") != (self.urdf is not None):
            raise KeyValueError("urdf", "model: urdf needs the `urdf` settings (file, wheels, wheel_radius, track), and only "
                                        "it takes them")
        if self.model == "urdf" and self.drive.wheel_base != DriveSpec().wheel_base:
            raise KeyValueError("drive.wheel_base", "a urdf robot's wheel base is urdf.track; leave drive.wheel_base out")
        if self.model == "quadrotor" and self.airframe not in AIRFRAMES:
            names = ", ".join(sorted(AIRFRAMES))
            raise KeyValueError("airframe", f"unknown airframe {self.airframe!r}; expected one of: {names}")
        if self.model != "quadrotor" and self.control_hz != 400.0:
            raise KeyValueError("control_hz", f"control_hz is the quadrotors' control rate; a {self.model} robot takes none")
        if self.control_hz > MAX_CONTROL_HZ:
            raise KeyValueError("control_hz", f"control_hz must be at most {MAX_CONTROL_HZ:,} Hz (autopilots run their "
                                              f"loops at up to a few kHz), got {self.control_hz:g}")
        if not self.control_hz > 0 or abs(1e9 / self.control_hz - round(1e9 / self.control_hz)) > 1e-6:
            raise KeyValueError("control_hz", "control_hz must divide one second into whole nanoseconds (50, 100, 200, 400, "
                                              f"...); got {self.control_hz}")
        if not 1e-4 <= self.radius <= MAX_RADIUS:
            raise KeyValueError("radius", f"radius must be within 0.0001..{MAX_RADIUS:,.0f} m, got {self.radius:g}")
        if not 1e-6 <= self.mass <= MAX_MASS:
            raise KeyValueError("mass", f"mass must be within 1e-06..{MAX_MASS:,.0f} kg, got {self.mass:g}")
        if not 0 <= self.max_speed <= MAX_SPEED:
            raise KeyValueError("max_speed", f"max_speed must be within 0..{MAX_SPEED:,.0f} m/s, got {self.max_speed:g}")
        self._check_model_keys()

    def _check_model_keys(self) -> None:
        """A key only other models use is refused, not ignored (at its default it passes, as a
        written-out scenario spells every key)."""
        for key, models in MODEL_KEYS.items():
            if self.model not in models and getattr(self, key) != _ROBOT_DEFAULTS[key]:
                article = "an" if self.model[0] in "aeiou" else "a"
                raise KeyValueError(key, f"does nothing for {article} {self.model} robot (only for {', '.join(models)}); "
                                         f"{_MODEL_HINTS[self.model]}")


MODEL_KEYS = {"airframe": ("quadrotor",), "drive": ("diff_drive", "urdf"), "omni": ("omni",),
               "max_speed": ("point",), "mass": ("point", "diff_drive", "omni")}
"""The robot keys each model uses (radius, heading: all; control_hz and urdf are checked above)."""
_MODEL_HINTS = {
    "quadrotor": "a quadrotor's mass and dynamics come from its airframe preset",
    "diff_drive": "its speed and acceleration limits are drive.max_wheel_speed and drive.max_accel",
    "omni": "its speed and acceleration limits are omni.max_wheel_speed and omni.max_accel",
    "urdf": "its masses come from the URDF file, its speed limits from drive",
    "point": "a point robot takes radius, mass, max_speed and heading",
}
_ROBOT_DEFAULTS = {f.name: f.default_factory() if f.default is MISSING else f.default for f in fields(RobotModelSpec)}


@dataclass(frozen=True)
class FaultSpec:
    """Faults of a group's robots: die on any collision (robot, obstacle, wall, prop; standing on the
    ground is none), and/or fail at random with an exponential time to failure of mean
    `mean_time_to_failure` (seconds). Quadrotors can crash instead: on an impact faster than
    `crash_speed` (m/s, the vehicle's speed before the contact) or when tilted more than
    `crash_tilt` degrees from upright."""

    collision_kills: bool = False
    mean_time_to_failure_ns: int | None = None
    crash_speed: float | None = None
    crash_tilt: float | None = None

    def __post_init__(self) -> None:
        if self.mean_time_to_failure_ns is not None and self.mean_time_to_failure_ns <= 0:
            raise ValueError("mean_time_to_failure must be a positive duration")
        if self.crash_speed is not None and self.crash_speed <= 0:
            raise ValueError(f"crash_speed must be > 0 m/s, got {self.crash_speed}")
        if self.crash_tilt is not None and not 0 < self.crash_tilt <= 180:
            raise ValueError(f"crash_tilt must be in (0, 180] degrees, got {self.crash_tilt}")


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
        if not self.name.strip():
            raise KeyValueError("name", "expected a name for the group (it names the robots in the trace and the report)")
        if self.count < 1:
            raise ValueError(f"count must be >= 1, got {self.count}")


@dataclass(frozen=True)
class TraceSpec:
    """What the run records: positions every `positions_every` (None: never), network events,
    records, and `contacts`: an event each time a robot starts touching something."""

    positions_every_ns: int | None = 1_000_000_000
    network: bool = True
    records: bool = True
    contacts: bool = False

    def __post_init__(self) -> None:
        if self.positions_every_ns is not None and self.positions_every_ns <= 0:
            raise ValueError("positions_every must be a positive duration, or null for no position trace")


@dataclass(frozen=True)
class OutputSpec:
    """Where the run directory goes and what it holds; `view` adds a Rerun recording, `stream` a
    live ZeroMQ publication, `topology` link-graph analytics (none changes the run's results)."""

    dir: str = "runs"
    trace: TraceSpec = field(default_factory=TraceSpec)
    view: ViewSpec | None = None
    stream: StreamSpec | None = None
    topology: TopologySpec | None = None

    def __post_init__(self) -> None:
        if not self.dir.strip():
            raise KeyValueError("dir", "expected a folder for the run directories, got ''")


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
        if not 1e-6 <= self.rate <= MAX_PACKET_RATE:
            raise ValueError(f"rate must be at least 1e-06 (one packet in 11.6 days) and at most {MAX_PACKET_RATE:,} "
                             "packets per second per source "
                             f"(a gigabit link carries about 80,000 full frames a second), got {self.rate:g}")
        if not 0 <= self.size <= 0xFFFF:
            raise ValueError(f"size must be within 0..65535 bytes, got {self.size:,}")
        if not 0 <= self.sessions <= MAX_SESSIONS:
            raise ValueError(f"sessions must be within 0..{MAX_SESSIONS:,}, got {self.sessions:,}")
        if not self.pairs and not self.sessions:
            raise ValueError("give `pairs` or a number of random `sessions`")
        if not 0 <= self.port <= 0xFFFF:
            raise ValueError(f"port must be within 0..65535, got {self.port}")
        if self.start_ns < 0 or self.start_window_ns < 0:
            raise ValueError("start and start_window must be >= 0")
        if self.stop_ns is not None and self.stop_ns <= self.start_ns:
            raise ValueError(f"stop ({self.stop_ns / 1e9:g} s) must come after start ({self.start_ns / 1e9:g} s): no "
                             "session would send anything")
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
    initial_state: str | None = None
    """A state file (a run's final_state.json; cosim.scenario.state_file): where the robots start,
    which way they face, who is dead, and each controller's state. The path is resolved against the
    scenario file."""
    watchdog_ns: int | None = None
    """Wall time (not simulated) that simulated time may stand still, as when a controller's code never
    returns; past it the run stops, naming the robot whose code was running. None: no limit."""
    source: str = field(default="<memory>", compare=False)

    @property
    def n_nodes(self) -> int:
        return sum(g.count for g in self.groups)
