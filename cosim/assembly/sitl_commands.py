"""The command line that starts each firmware instance of a scenario's `mavlink.sitl` groups
(`cosim sitl-commands`), so that each starts where its robot stands and talks where the run listens.

Robot k of a group is ArduCopter instance `-I k` (its own eeprom and TCP ports), sending its servo
frames to `port + 10 k` (`--sim-port-out`), with `--home` at its robot's start (the layout drawn from
the scenario's seed, as the run draws it), its parameter defaults (`--defaults`: ArduPilot's stock
`copter.parm` and, over that file's plus frame, `copter-X.parm`, since the scenario's quadrotors are
quad X), free to run faster than the wall clock (`--speedup`: the physics paces it), its GPS clock
started at a fixed UTC time (`--start-time`; by default ArduPilot reads the host's clock, so its GPS
time and every message that carries it would differ from run to run) and, with
`mavlink_port`, its MAVLink to `mavlink_port + 10 k` as system `first_sysid + k`. PX4 instance k is
`PX4_SIM_MODEL=none_iris px4 -i k -d`: it connects to TCP 4560 + k and is placed by the GPS fixes the
run sends it; its ground-station link (18570 + k) is where the run writes, so its command line names no
MAVLink port. `-d` runs it without its interactive shell, which prints its prompt without end when its
input is not a terminal; PX4's `px4-commander` and other `px4-*` clients still reach it.
"""

from __future__ import annotations

from cosim.assembly.placement import start_positions
from cosim.core.seeding import SeedStreams
from cosim.mavlink.frames import GeoOrigin
from cosim.mavlink.sitl.ardupilot_defaults import frame_problem
from cosim.mavlink.sitl.coupling import yaw_deg
from cosim.scenario.schema import Mapper
from cosim.scenario.specs import Scenario

START_TIME_UTC = 1767225600
"""The firmware's UTC at simulated time 0 (UNIX seconds; 2026-01-01T00:00:00Z): fixed, so that runs repeat."""
DEFAULTS = "copter.parm,copter-X.parm"
"""ArduPilot's stock copter parameters, and the quad X frame over their plus (Tools/autotest/default_params)."""


def firmware_commands(s: Scenario, binary: str = "arducopter", defaults: str = DEFAULTS,
                      speedup: float = 100.0, px4_binary: str = "px4",
                      start_time: int | None = None) -> list[list[str]]:
    """One argument list per firmware-flown robot, in node order. `speedup` is the most the firmware may
    run ahead of the wall clock (SITL's own pacing; in lock-step it waits for the physics anyway);
    `start_time` its UTC when it starts, in UNIX seconds (None: START_TIME_UTC).
    `defaults` that would make ArduCopter mix for another frame than a quad X are refused."""
    if s.mavlink is None or not s.mavlink.sitl:
        raise ValueError(f"{s.source}: the scenario has no mavlink.sitl entries: no firmware to start")
    start_time = START_TIME_UTC if start_time is None else start_time
    if start_time < 0:
        raise ValueError(f"--start-time is UNIX seconds, 0 or more, got {start_time}")
    problem = frame_problem(defaults)
    if problem is not None and any(e.autopilot != "px4" for e in s.mavlink.sitl):
        raise ValueError(problem)
    origin = GeoOrigin(*s.mavlink.origin)
    rng = SeedStreams(s.seed).generator("layout")
    mapper = Mapper(s.source)
    starts = {g.name: start_positions(s, gi, rng, mapper) for gi, g in enumerate(s.groups)}
    headings = {g.name: g.robot.heading for g in s.groups}
    commands = []
    for e in s.mavlink.sitl:
        if e.autopilot == "px4":  # PX4 connects to 4560 + its instance, and takes its position from the GPS
            commands += [["env", "PX4_SIM_MODEL=none_iris", px4_binary, "-i", str(k), "-d"] for k in range(len(starts[e.group]))]
            continue
        for k, start in enumerate(starts[e.group]):
            lat, lon, alt = origin.to_geodetic(*(float(v) for v in start))
            argv = [binary, f"--model=JSON:{e.host}", f"--home={lat:.7f},{lon:.7f},{alt:.2f},{yaw_deg(headings[e.group]):.0f}",
                    f"--defaults={defaults}", f"-I{k}", f"--sim-port-out={e.instance_port(k)}", f"--speedup={speedup:g}",
                    f"--start-time={start_time}"]
            if e.mavlink_port is not None:
                argv += [f"--serial0=udpclient:{e.host}:{e.mavlink_instance_port(k)}", f"--sysid={e.first_sysid + k}"]
            commands.append(argv)
    return commands
