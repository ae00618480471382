"""Loading a shipped config with stand-ins for what CI cannot have: MAVLink vehicles and the
ArduPilot firmware, each on a free port of 127.0.0.1."""

from __future__ import annotations

import contextlib
import socket
from pathlib import Path
from typing import Any

import cosim
from cosim.assembly.sitl_commands import firmware_commands
from cosim.mavlink.frames import GeoOrigin
from cosim.mavlink.serve.standin import StandInVehicle
from cosim.mavlink.sitl.px4_standin import StandInPx4
from cosim.mavlink.sitl.standin import StandInFirmware
from cosim.scenario.specs import Scenario
from tests.conftest import free_udp_port


def with_standins(path: Path, overrides: dict[str, Any], vehicles: contextlib.ExitStack) -> Scenario:
    """The scenario at `path` with `overrides`; its ghosts connect to stand-in vehicles, its served
    vehicles take free ports and its SITL entries talk to a stand-in firmware (closed by `vehicles`)."""
    scenario = cosim.load(path, overrides)
    if scenario.mavlink is None:
        return scenario
    overrides = dict(overrides)
    for k, ghost in enumerate(scenario.mavlink.ghosts):  # connect mode: we write first to the stand-in
        standin = vehicles.enter_context(StandInVehicle(ghost.personality, origin=GeoOrigin(*scenario.mavlink.origin)))
        overrides[f"mavlink.ghosts.{k}.port"] = standin.port
        overrides[f"mavlink.ghosts.{k}.mode"] = "connect"
    for k in range(len(scenario.mavlink.serve)):
        overrides[f"mavlink.serve.{k}.port"] = 0
    if scenario.mavlink.ground_station is not None and scenario.mavlink.ground_station.port is not None:
        overrides["mavlink.ground_station.port"] = free_udp_port()
    counts = {g.name: g.count for g in scenario.groups}
    for k, e in enumerate(scenario.mavlink.sitl):
        overrides[f"mavlink.sitl.{k}.port"] = free_udp_ports(counts[e.group]) if e.autopilot == "ardupilot" else \
            free_tcp_ports(counts[e.group])
        if e.mavlink_port is not None:
            overrides[f"mavlink.sitl.{k}.mavlink_port"] = free_udp_ports(counts[e.group], 1 if e.autopilot == "px4" else 10)
    scenario = cosim.load(path, overrides)
    if not scenario.mavlink.sitl:
        return scenario
    origin = GeoOrigin(*scenario.mavlink.origin)
    for e in scenario.mavlink.sitl:
        for k in range(counts[e.group]) if e.autopilot == "px4" else ():
            link = {} if e.mavlink_port is None else {"mavlink_port": e.mavlink_instance_port(k), "sysid": k + 1,
                                                      "home": (origin.lat, origin.lon, origin.alt)}
            vehicles.callback(StandInPx4(e.instance_port(k), **link).start().stop)
    ardupilot = [argv for argv in firmware_commands(scenario) if argv[0] != "env"]
    for argv, (port, mavlink_port, sysid) in zip(ardupilot, _instances(scenario)):
        home = tuple(float(v) for v in next(a for a in argv if a.startswith("--home="))[7:].split(",")[:3])
        firmware = StandInFirmware(port, mavlink_port=mavlink_port, sysid=sysid, home=home).start()
        vehicles.callback(firmware.stop)
    return scenario


def _instances(scenario: Scenario) -> list[tuple[int, int | None, int]]:
    """Each firmware-flown robot's JSON port, MAVLink port (or None) and system id, in node order."""
    counts = {g.name: g.count for g in scenario.groups}
    return [(e.instance_port(k), None if e.mavlink_port is None else e.mavlink_instance_port(k), e.first_sysid + k)
            for e in scenario.mavlink.sitl if e.autopilot == "ardupilot" for k in range(counts[e.group])]


def free_tcp_ports(count: int) -> int:
    """A port p of 127.0.0.1 with p, p + 1, ..., p + count - 1 free for TCP (PX4 instance k uses p + k)."""
    for _ in range(100):
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as first:
            first.bind(("127.0.0.1", 0))
            p = first.getsockname()[1]
        with contextlib.ExitStack() as held:
            try:
                for k in range(count):
                    sock = held.enter_context(socket.socket(socket.AF_INET, socket.SOCK_STREAM))
                    sock.bind(("127.0.0.1", p + k))
            except OSError:
                continue
            return p
    raise RuntimeError(f"no {count} consecutive free TCP ports")


def free_udp_ports(count: int, step: int = 10) -> int:
    """A port p of 127.0.0.1 with p, p + step, ..., p + step (count - 1) all free (robot k of a group uses
    p + 10 k for ArduPilot, p + k for PX4's MAVLink)."""
    for _ in range(100):
        p = free_udp_port()
        if p + step * count > 65535:
            continue
        with contextlib.ExitStack() as held:
            try:
                for k in range(1, count):
                    sock = held.enter_context(socket.socket(socket.AF_INET, socket.SOCK_DGRAM))
                    sock.bind(("127.0.0.1", p + step * k))
            except OSError:
                continue
            return p
    raise RuntimeError(f"no {count} free UDP ports {step} apart")
