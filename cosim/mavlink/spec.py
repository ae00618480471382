"""The scenario's `mavlink` section: simulated robots served as vehicles, real vehicles as ghosts,
and the wall-clock pacing both need."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from cosim.mavlink.serve.failsafe import FailsafeAction, GcsFailsafe

PersonalityName = Literal["px4", "ardupilot", "ardupilot_rover"]
_ENV_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def _check_endpoint(port: int, first_sysid: int, key_env: str | None) -> None:
    if not 0 <= port <= 0xFFFF:
        raise ValueError(f"port must be within 0..65535, got {port}")
    if not 1 <= first_sysid <= 255:
        raise ValueError(f"first_sysid must be within 1..255 (MAVLink system ids), got {first_sysid}")
    if key_env is not None and not _ENV_NAME.match(key_env):
        raise ValueError(f"signing_key_env names an environment variable, got {key_env!r}")


MAX_WAYPOINT_M = 100_000.0
"""How far from the arena's origin a ghost's waypoint may lie (m)."""
MAX_MISSION_STEPS = 65_535 - 2
"""The most waypoints a ghost mission may hold: MAVLink's 16-bit item count, less take-off and end."""


@dataclass(frozen=True)
class ServeSpec:
    """Serve every robot of `group` (quadrotors, or diff_drive robots with ardupilot_rover) as a
    MAVLink 2 vehicle on UDP `host:port`, system ids first_sysid, first_sysid + 1, ...
    `signing_key_env` names an environment variable holding a signing key (hex or passphrase).
    Armed, with no ground-station heartbeat for `gcs_timeout`, a vehicle does `gcs_failsafe`:
    return (home, then land), land, hold, or off (cosim.mavlink.serve.failsafe)."""

    group: str
    """The group whose robots are served as vehicles."""
    port: int
    """The UDP port the group's vehicles are served on, all on this one, told apart by system id."""
    personality: PersonalityName = "px4"
    """The autopilot the vehicles behave as: `px4`, `ardupilot` or `ardupilot_rover` (modes, parameters, how
    they fly)."""
    host: str = "127.0.0.1"
    """The address the vehicles listen on (127.0.0.1 unless asked otherwise)."""
    first_sysid: int = 1
    """The first vehicle's MAVLink system id; the others count up from it."""
    signing_key_env: str | None = None
    """The environment variable holding the MAVLink 2 signing key (null: unsigned)."""
    gcs_timeout_ns: int = 5_000_000_000
    """How long an armed vehicle waits without a ground-station heartbeat before its failsafe."""
    gcs_failsafe: FailsafeAction = "return"
    """What it then does: `return` (home, then land), `land`, `hold` or `off`."""
    direct: bool = False
    """With `mavlink.ground_station`: also serve the vehicles on `port` (UDP, beside the simulated network;
    what they send goes out on both). Without a ground station the port is always served, and this is refused."""

    def __post_init__(self) -> None:
        _check_endpoint(self.port, self.first_sysid, self.signing_key_env)
        if self.gcs_timeout_ns <= 0:
            raise ValueError("gcs_timeout must be a positive duration")

    def failsafe(self) -> GcsFailsafe:
        return GcsFailsafe(self.gcs_timeout_ns / 1e9, self.gcs_failsafe)


@dataclass(frozen=True)
class MissionStep:
    """One waypoint of a ghost's mission: `at` is an arena position (m, z above the ground the
    vehicle starts from), held for `hold`; `radius` is its acceptance radius (m; 0: the vehicle's own)."""

    at: tuple[float, float, float]
    """The waypoint (m, arena x y, z above the ground the vehicle starts from)."""
    hold_ns: int = 0
    """How long the vehicle holds there."""
    radius: float = 0.0
    """Its acceptance radius (m; 0: the vehicle's own)."""

    def __post_init__(self) -> None:
        if self.at[2] <= 0:
            raise ValueError(f"a mission waypoint flies above the ground: at[2] must be > 0 m, got {self.at[2]}")
        if max(abs(self.at[0]), abs(self.at[1])) > MAX_WAYPOINT_M or self.at[2] > MAX_WAYPOINT_M:
            raise ValueError(f"a mission waypoint must lie within {MAX_WAYPOINT_M:,.0f} m of the arena's origin (positions "
                             f"become latitude and longitude on a local tangent plane), got {tuple(self.at)}")
        if self.hold_ns < 0 or self.radius < 0:
            raise ValueError("hold and radius must not be negative")


@dataclass(frozen=True)
class GhostSpec:
    """The robots of `group` are twins of real vehicles reached on UDP `host:port` (system ids
    first_sysid, ...); `mode: connect` writes to that address, `mode: listen` binds it and answers
    whoever sends there (SITL's or MAVProxy's `--out`). Their telemetry sets the twins' poses, and the group's controllers command
    them. At the start copters take off to `altitude` metres above where they stand (rovers arm
    and hold); at the end copters land if `land_at_end`. A twin whose telemetry is older than
    `stale_after` is flagged (an event in the trace) and stops moving until telemetry returns.
    With a `mission`, each vehicle of the group is instead given it (take-off to the first
    waypoint's height, the waypoints, then `mission_end`: rtl, land or hold), verified by download
    and started; its controller still senses and talks, but motion commands are refused."""

    group: str
    """The group whose robots are twins of the real vehicles."""
    port: int
    """The vehicles' UDP port (each told apart by its system id)."""
    personality: PersonalityName = "ardupilot"
    """The autopilot the vehicles run: `ardupilot`, `ardupilot_rover` or `px4`."""
    host: str = "127.0.0.1"
    """The vehicles' address."""
    mode: Literal["connect", "listen"] = "connect"
    """`connect`: write to host:port; `listen`: bind it and answer whoever sends there."""
    first_sysid: int = 1
    """The first vehicle's MAVLink system id; the others count up from it."""
    altitude: float = 2.0
    """Copters take off to this height (m) above where they stand at the start."""
    land_at_end: bool = True
    """Copters land at the end of the run."""
    stale_after_ns: int = 1_000_000_000
    """A twin whose telemetry is older than this is flagged and stops moving until telemetry returns."""
    connect_timeout_ns: int = 90_000_000_000
    """How long the run waits for each vehicle to answer before failing."""
    signing_key_env: str | None = None
    """The environment variable holding the MAVLink 2 signing key (null: unsigned)."""
    mission: tuple[MissionStep, ...] = ()
    """Waypoints each vehicle flies on its own (its controller's motion commands are then refused)."""
    mission_end: Literal["rtl", "land", "hold"] = "rtl"
    """What a vehicle does after the last waypoint: `rtl`, `land` or `hold`."""

    def __post_init__(self) -> None:
        _check_endpoint(self.port, self.first_sysid, self.signing_key_env)
        if len(self.mission) > MAX_MISSION_STEPS:
            raise ValueError(f"mission: at most {MAX_MISSION_STEPS:,} waypoints (the MAVLink mission protocol counts its "
                             f"items in 16 bits, with the take-off and the end), got {len(self.mission):,}")
        if self.mission and self.personality == "ardupilot_rover":
            raise ValueError("mission: the ghost missions here are copter missions (take-off, waypoints, return)")
        if self.altitude <= 0:
            raise ValueError(f"altitude must be > 0 m, got {self.altitude}")
        if self.stale_after_ns <= 0 or self.connect_timeout_ns <= 0:
            raise ValueError("stale_after and connect_timeout must be positive durations")


@dataclass(frozen=True)
class SitlSpec:
    """The quadrotors of `group` are flown by unmodified autopilot firmware in lock-step with the
    simulation: ArduPilot over its JSON SITL interface (`arducopter --model JSON`; robot k is instance
    `-I k` on UDP `host:port + 10 k`), or PX4 over its simulator interface (`simulator_mavlink`; robot k
    is instance `-i k`, connecting to TCP `host:port + k`). `connect_timeout` is how long the run waits
    for the firmware's first frame or connection, `frame_timeout` for each next frame."""

    group: str
    """The group whose quadrotors the firmware flies."""
    autopilot: Literal["ardupilot", "px4"] = "ardupilot"
    """The firmware: `ardupilot` (ArduCopter, JSON SITL) or `px4` (PX4 SITL, its simulator_mavlink)."""
    port: int | None = None
    """The first instance's port (null: ArduPilot's 9002, UDP; PX4's 4560, TCP); instance k uses
    port + 10 k (ArduPilot) or port + k (PX4)."""
    magnetic_field: tuple[float, float, float] = (0.2143, 0.0109, 0.4305)
    """PX4: the Earth's magnetic field at the origin, north, east, down (gauss; the default is the default
    origin's, Zurich). ArduPilot computes its own."""
    host: str = "127.0.0.1"
    """The address the run listens on for the firmware (127.0.0.1 unless asked otherwise)."""
    connect_timeout_ns: int = 60_000_000_000
    """How long the run waits for the firmware's first frame (wall time)."""
    frame_timeout_ns: int = 15_000_000_000
    """How long it waits for each next frame (wall time)."""
    mavlink_port: int | None = None
    """With `mavlink.ground_station`, the firmware's MAVLink goes through the simulated network. ArduPilot:
    robot k's firmware sends it to UDP host:mavlink_port + 10 k (start it with `--serial0
    udpclient:127.0.0.1:<that port>`). PX4: robot k's firmware listens on mavlink_port + k (its
    ground-station link; PX4's startup script gives 18570 + instance), and the run writes to it first.
    Null: the firmware's own ports carry its MAVLink (no ground station in the scenario)."""
    first_sysid: int = 1
    """Robot k's firmware is MAVLink system first_sysid + k (start it with `--sysid <first_sysid + k>`)."""

    def instance_port(self, k: int) -> int:
        """The port of robot k's firmware (its k-th instance)."""
        if self.autopilot == "px4":
            return (4560 if self.port is None else self.port) + k
        return (9002 if self.port is None else self.port) + 10 * k

    def mavlink_instance_port(self, k: int) -> int:
        """Robot k's MAVLink port: where its ArduPilot sends (mavlink_port + 10 k) or its PX4 listens
        (mavlink_port + k)."""
        return self.mavlink_port + (1 if self.autopilot == "px4" else 10) * k

    def __post_init__(self) -> None:
        if self.port is not None and not 1 <= self.port <= 0xFFFF:
            raise ValueError(f"port must be within 1..65535, got {self.port}")
        if self.mavlink_port is not None and not 1 <= self.mavlink_port <= 0xFFFF:
            raise ValueError(f"mavlink_port must be within 1..65535, got {self.mavlink_port}")
        if not 1 <= self.first_sysid <= 255:
            raise ValueError(f"first_sysid must be within 1..255 (MAVLink system ids), got {self.first_sysid}")
        if self.connect_timeout_ns <= 0 or self.frame_timeout_ns <= 0:
            raise ValueError("connect_timeout and frame_timeout must be positive durations")


@dataclass(frozen=True)
class GroundStationSpec:
    """A ground station in the scenario: the one robot of `group` talks MAVLink through the simulated
    network to and from the served vehicles (their own ports then carry nothing). Without a controller
    the robot relays an outside ground station (QGroundControl, MAVProxy, MAVSDK, pymavlink) that
    connects to UDP `host:port` (cosim.mavlink.radio_link); with a GroundControl subclass as its
    controller, that is the ground station, on the simulated clock (cosim.mavlink.ground_control)."""

    group: str
    """The group whose one robot is the ground station."""
    port: int | None = None
    """The UDP port an outside ground station connects to (null: 14550; refused when the group's controller is
    the ground station)."""
    host: str = "127.0.0.1"
    """The address it listens on (127.0.0.1 unless asked otherwise)."""

    def __post_init__(self) -> None:
        if self.port is not None and not 1 <= self.port <= 0xFFFF:
            raise ValueError(f"port must be within 1..65535, got {self.port}")

    @property
    def udp_port(self) -> int:
        """The port an outside ground station connects to."""
        return 14550 if self.port is None else self.port


@dataclass(frozen=True)
class MavlinkSpec:
    """MAVLink vehicles in a scenario. The run is paced to the wall clock at `speed` (1: real time;
    ghosts need 1), or not at all with `paced: false`, and the sockets are polled every `poll_every`
    of simulated time. `origin` is the arena origin's latitude, longitude (degrees) and altitude (m
    AMSL) for geodetic positions."""

    origin: tuple[float, float, float] = (47.3977, 8.5456, 488.0)
    """The arena origin's latitude, longitude (degrees) and altitude (m above mean sea level)."""
    speed: float = 1.0
    """The pace against the wall clock (1: real time; ghosts need 1)."""
    paced: bool = True
    """False: the run is not held to the wall clock at all, for runs that nothing outside them talks to
    (a ground station written as a controller, lock-stepped firmware): no waits, no lateness warnings."""
    poll_every_ns: int = 20_000_000
    """How often, in simulated time, the vehicles' sockets are read."""
    serve: tuple[ServeSpec, ...] = ()
    """Groups served as MAVLink vehicles."""
    ghosts: tuple[GhostSpec, ...] = ()
    """Groups that mirror real vehicles."""
    sitl: tuple[SitlSpec, ...] = ()
    """Groups flown by ArduPilot firmware in lock-step."""
    ground_station: GroundStationSpec | None = None
    """A ground station robot whose MAVLink to the served vehicles goes through the simulated network (null:
    the vehicles' own UDP ports)."""

    def entries(self) -> list[tuple[str, ServeSpec | GhostSpec]]:
        """Every served and ghost group with its key path (for error messages)."""
        return [(f"mavlink.serve[{k}]", e) for k, e in enumerate(self.serve)] + \
            [(f"mavlink.ghosts[{k}]", e) for k, e in enumerate(self.ghosts)]

    def sitl_entries(self) -> list[tuple[str, SitlSpec]]:
        return [(f"mavlink.sitl[{k}]", e) for k, e in enumerate(self.sitl)]

    def __post_init__(self) -> None:
        if not self.speed > 0:
            raise ValueError(f"speed must be > 0 (simulated seconds per wall second), got {self.speed}")
        if self.poll_every_ns <= 0:
            raise ValueError("poll_every must be a positive duration")
        if self.ghosts and (self.speed != 1.0 or not self.paced):
            raise ValueError("real vehicles fly in real time: a scenario with ghosts needs speed: 1 and paced: true")
        if not self.paced and self.speed != 1.0:
            raise ValueError(f"speed {self.speed:g} is a pace against the wall clock, but paced is false: give one or "
                             "the other")
        if not -90.0 <= self.origin[0] <= 90.0 or not -180.0 <= self.origin[1] <= 180.0:
            raise ValueError(f"origin is [latitude, longitude, altitude] in degrees and metres, got {list(self.origin)}")
