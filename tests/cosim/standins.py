"""Loading a shipped config with stand-ins for what CI cannot have: MAVLink vehicles and the
ArduPilot firmware, each on a free port of 127.0.0.1."""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import Any

import cosim
from cosim.mavlink.frames import GeoOrigin
from cosim.mavlink.serve.standin import StandInVehicle
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
    if scenario.mavlink.ground_station is not None:
        overrides["mavlink.ground_station.port"] = free_udp_port()
    for k in range(len(scenario.mavlink.sitl)):
        port = free_udp_port()
        overrides[f"mavlink.sitl.{k}.port"] = port
        firmware = StandInFirmware(port).start()
        vehicles.callback(firmware.stop)
    return cosim.load(path, overrides)
