"""The scenario's `mavlink` section: simulated robots served as vehicles, real vehicles as ghosts,
and the wall-clock pacing both need."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from cosim.mavlink.failsafe import FailsafeAction, GcsFailsafe

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
    return (home, then land), land, hold, or off (cosim.mavlink.failsafe)."""

    group: str
    port: int
    personality: PersonalityName = "px4"
    host: str = "127.0.0.1"
    first_sysid: int = 1
    signing_key_env: str | None = None
    gcs_timeout_ns: int = 5_000_000_000
    gcs_failsafe: FailsafeAction = "return"

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
    hold_ns: int = 0
    radius: float = 0.0

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
    port: int
    personality: PersonalityName = "ardupilot"
    host: str = "127.0.0.1"
    mode: Literal["connect", "listen"] = "connect"
    first_sysid: int = 1
    altitude: float = 2.0
    land_at_end: bool = True
    stale_after_ns: int = 1_000_000_000
    connect_timeout_ns: int = 90_000_000_000
    signing_key_env: str | None = None
    mission: tuple[MissionStep, ...] = ()
    mission_end: Literal["rtl", "land", "hold"] = "rtl"

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
    """The quadrotors of `group` are flown by unmodified ArduPilot firmware over its JSON SITL
    interface (`arducopter --model JSON`), in lock-step with the simulation: robot k of the group
    listens on UDP `host:port + 10 k` (instance `-I k`). `connect_timeout` is how long the run waits
    for the firmware's first frame, `frame_timeout` for each next one (the firmware resends after about 1.1 s)."""

    group: str
    port: int = 9002
    host: str = "127.0.0.1"
    connect_timeout_ns: int = 60_000_000_000
    frame_timeout_ns: int = 15_000_000_000

    def __post_init__(self) -> None:
        if not 1 <= self.port <= 0xFFFF:
            raise ValueError(f"port must be within 1..65535, got {self.port}")
        if self.connect_timeout_ns <= 0 or self.frame_timeout_ns <= 0:
            raise ValueError("connect_timeout and frame_timeout must be positive durations")


@dataclass(frozen=True)
class MavlinkSpec:
    """MAVLink vehicles in a scenario. The run is paced to the wall clock at `speed` (1: real time;
    ghosts need 1) and the sockets are polled every `poll_every` of simulated time. `origin` is
    the arena origin's latitude, longitude (degrees) and altitude (m AMSL) for geodetic positions."""

    origin: tuple[float, float, float] = (47.3977, 8.5456, 488.0)
    speed: float = 1.0
    poll_every_ns: int = 20_000_000
    serve: tuple[ServeSpec, ...] = ()
    ghosts: tuple[GhostSpec, ...] = ()
    sitl: tuple[SitlSpec, ...] = ()

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
        if self.ghosts and self.speed != 1.0:
            raise ValueError("real vehicles fly in real time: a scenario with ghosts needs speed: 1")
        if not -90.0 <= self.origin[0] <= 90.0 or not -180.0 <= self.origin[1] <= 180.0:
            raise ValueError(f"origin is [latitude, longitude, altitude] in degrees and metres, got {list(self.origin)}")
