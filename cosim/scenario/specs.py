"""Scenario files: the typed specification of a run.

Durations are seconds (or strings such as '10 ms', '1/240 s', '250 Hz') in the file and integer
nanoseconds inside (fields named `*_ns`). Each spec rejects impossible values in `__post_init__`;
cross-field checks are in `cosim.scenario.checks`, reading YAML in `cosim.scenario.loading`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from cosim.errors import KeyValueError
from cosim.mavlink.spec import MavlinkSpec
from cosim.scenario.layouts import LAYOUTS, RandomDiscLayout
from cosim.scenario.network_spec import CbrSpec, NetworkSpec
from cosim.scenario.output_spec import OutputSpec
from cosim.scenario.robot_spec import RobotModelSpec
from cosim.scenario.world_spec import PhysicsSpec, WorldSpec
from physics.bodies.battery import BatterySpec


@dataclass(frozen=True)
class ControllerSpec:
    """Controller class by import string `package.module:Class`, its step period, phase and params
    (period and phase only for a class with a step: they time nothing else, so elsewhere they are refused)."""

    cls: str
    """The controller class, as an import string `package.module:Class` (`controllers.library...` for the
    shipped ones)."""
    params: dict[str, Any] = field(default_factory=dict)
    """The class's parameters by name; each must be a field of the class's `Params` dataclass (unknown names
    are refused, listing the known ones)."""
    period_ns: int | None = None
    """How often the controller's step runs (null: the class's own period). Only for a class with a step."""
    phase_ns: int | None = None
    """When in its period the first step runs (null: a seeded random phase per robot, so robots do not step in
    unison)."""


@dataclass(frozen=True)
class FaultSpec:
    """Faults of a group's robots: die on any collision (robot, obstacle, wall, prop; standing on the
    ground is none), and/or fail at random with an exponential time to failure of mean
    `mean_time_to_failure` (seconds). Quadrotors can crash instead: on an impact faster than
    `crash_speed` (m/s, the vehicle's speed before the contact) or when tilted more than
    `crash_tilt` degrees from upright."""

    collision_kills: bool = False
    """A robot dies on its first contact with another robot, an obstacle, a wall or a prop (standing on the
    ground is not one)."""
    mean_time_to_failure_ns: int | None = None
    """Each robot fails at an exponentially distributed time with this mean, drawn from the run's seeded
    streams (null: never)."""
    crash_speed: float | None = None
    """Quadrotors only: an impact faster than this (m/s, its speed before the contact) kills the vehicle (null:
    none does)."""
    crash_tilt: float | None = None
    """Quadrotors only: tilting more than this many degrees from upright kills the vehicle (null: never)."""

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
    """The node id of the robot that dies (robots are numbered across groups in the order listed)."""
    at_ns: int
    """The simulated time it dies."""

    def __post_init__(self) -> None:
        if self.node < 0 or self.at_ns < 0:
            raise ValueError(f"node and at must be >= 0, got node {self.node}, at {self.at_ns} ns")


@dataclass(frozen=True)
class GroupSpec:
    """A group of identical robots: how many, where they start, what runs on them."""

    name: str
    """The group's name: it names its robots in the trace and the report, and other keys refer to the group by
    it."""
    count: int
    """How many robots the group has (at least 1)."""
    controller: ControllerSpec | None = None
    """What runs on each robot: a class and its parameters. Only a group whose robots relay MAVLink over
    the network (`mavlink.ground_station`: the ground station and the served vehicles) may leave it out."""
    layout: Any = field(default_factory=RandomDiscLayout, metadata={"registry": LAYOUTS, "tag": "type"})
    """Where the robots start: a layout type and its settings (default: uniform in a 20 m disc round the
    origin)."""
    robot: RobotModelSpec = field(default_factory=RobotModelSpec)
    """The body every robot of the group has (model and its settings)."""
    sensors: dict[str, Any] = field(default_factory=dict)
    """The sensors every robot carries, by name (gps, imu, compass, range, bump, battery), each with its noise
    and rate settings."""
    faults: FaultSpec = field(default_factory=FaultSpec)
    """How the group's robots die: on contact, at random, or (quadrotors) on a crash."""
    battery: BatterySpec | None = None
    """An energy budget per robot: the robot dies when it is spent (null: unlimited)."""

    def __post_init__(self) -> None:
        if not self.name.strip():
            raise KeyValueError("name", "expected a name for the group (it names the robots in the trace and the report)")
        if self.count < 1:
            raise ValueError(f"count must be >= 1, got {self.count}")


@dataclass(frozen=True)
class Scenario:
    """A whole run, resolved and validated."""

    duration_ns: int
    """How long the run lasts, in simulated time."""
    groups: tuple[GroupSpec, ...]
    """The robots, as groups of identical ones."""
    name: str = "scenario"
    """The scenario's name: it heads the report and names the run directory."""
    seed: int = 1
    """The seed of every random stream in the run: the same scenario and seed give the same trace, bit for bit."""
    quantum_ns: int = 10_000_000
    """How often positions flow to the network and the coordinator synchronises the two worlds."""
    physics: PhysicsSpec = field(default_factory=PhysicsSpec)
    """The physics backend and its step."""
    network: NetworkSpec = field(default_factory=NetworkSpec)
    """The network engine, its radio and routing."""
    world: WorldSpec = field(default_factory=WorldSpec)
    """The arena, obstacles, props, terrain and wind."""
    output: OutputSpec = field(default_factory=OutputSpec)
    """Where the run directory goes and what it records."""
    kills: tuple[KillSpec, ...] = ()
    """Robots that die at given times."""
    traffic: tuple[CbrSpec, ...] = ()
    """Constant-bit-rate traffic between nodes, besides what controllers send."""
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
