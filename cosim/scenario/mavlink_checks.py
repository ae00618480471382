"""Checks of the scenario's `mavlink` section against its groups: every entry names a group bound
once, a body the personality serves, system ids within one port's range and key, the standard tick."""

from __future__ import annotations

from cosim.core.timeunits import format_ns
from cosim.mavlink.spec import SitlSpec
from cosim.scenario.classes import import_class
from cosim.scenario.schema import Mapper
from cosim.scenario.specs import GroupSpec, Scenario
from physics.bodies.quadrotor import TICK_NS

_SERVABLE = {"px4": "quadrotor", "ardupilot": "quadrotor", "ardupilot_rover": "diff_drive"}


def _bind(groups: dict[str, GroupSpec], name: str, path: str, used: dict[str, str], m: Mapper) -> GroupSpec:
    """The group an entry at `path` names, bound to it (a group is bound to MAVLink once)."""
    g = groups.get(name)
    if g is None:
        raise m.error(f"{path}.group", f"no group named {name!r}; expected one of: {', '.join(groups)}")
    if name in used:
        raise m.error(f"{path}.group", f"group {name!r} is already bound to MAVLink at {used[name]}")
    used[name] = path
    return g


def _check_sitl(s: Scenario, m: Mapper, used: dict[str, str]) -> None:
    groups = {g.name: g for g in s.groups}
    for path, e in s.mavlink.sitl_entries():
        g = _bind(groups, e.group, path, used, m)
        if g.robot.model != "quadrotor":
            raise m.error(f"{path}.group", f"firmware in lock-step flies quadrotors; group {e.group!r} has "
                                           f"robot.model: {g.robot.model}")
        _check_mavlink_tick(g, path, m)
        if e.autopilot == "px4" and s.physics.dt_ns % 20_000_000:
            raise m.error("physics.dt", f"PX4 takes its sensors every 4 ms and the quadrotors tick every 2.5 ms: with "
                                        f"{path} the physics step must be a multiple of 20 ms, got {format_ns(s.physics.dt_ns)}")
        if e.autopilot == "px4" and e.mavlink_port is not None and e.first_sysid != 1:
            raise m.error(f"{path}.first_sysid", "PX4 instance k is MAVLink system k + 1 (its startup script sets "
                                                 "MAV_SYS_ID so): leave first_sysid out with autopilot: px4, "
                                                 f"got {e.first_sysid}")
        if e.mavlink_port is not None and s.mavlink.ground_station is None:
            raise m.error(f"{path}.mavlink_port", "mavlink_port carries the firmware's MAVLink through the simulated "
                                                  "network to mavlink.ground_station: add a ground station, or leave it "
                                                  "out (the firmware's own ports then carry its MAVLink)")
        if e.first_sysid + g.count - 1 > 255:
            raise m.error(f"{path}.first_sysid", f"{g.count} vehicles from system id {e.first_sysid} pass 255")
        _check_instance_ports(e, g.count, path, m)


def _check_instance_ports(e: SitlSpec, count: int, path: str, m: Mapper) -> None:
    """Each robot's firmware ports, counted up from the entry's, stay within 65535."""
    last = count - 1
    if e.instance_port(last) > 0xFFFF:
        raise m.error(f"{path}.port", f"robot {last} of group {e.group!r} would use port {e.instance_port(last)}, past "
                                      "65535: choose a lower port")
    if e.mavlink_port is not None and e.mavlink_instance_port(last) > 0xFFFF:
        raise m.error(f"{path}.mavlink_port", f"robot {last} of group {e.group!r} would use port "
                                              f"{e.mavlink_instance_port(last)}, past 65535: choose a lower mavlink_port")


def _check_mavlink_tick(g: GroupSpec, path: str, m: Mapper) -> None:
    if g.robot.model == "quadrotor" and g.robot.tick_ns != TICK_NS:
        raise m.error(f"{path}.group", f"vehicles flown over MAVLink run the {format_ns(TICK_NS)} control tick; "
                                       f"group {g.name!r} sets robot.control_hz: {g.robot.control_hz:g} (leave it out)")


def check_mavlink(s: Scenario, m: Mapper) -> None:
    """Raise ScenarioError (through `m`) for the first MAVLink entry its groups cannot honour."""
    groups = {g.name: g for g in s.groups}
    used: dict[str, str] = {}
    _check_sitl(s, m, used)
    if s.mavlink.ground_station is not None:
        _check_ground_station(s, m, groups, used)
    ports: dict[tuple[str, int], list[tuple[int, int, str | None, str]]] = {}
    for path, e in s.mavlink.entries():
        g = _bind(groups, e.group, path, used, m)
        _check_mavlink_tick(g, path, m)
        if s.physics.backend != "kinematic":
            raise m.error(path, "MAVLink vehicles need physics.backend: kinematic (a ghost's pose is set from telemetry, "
                                "which pybullet's force-driven bodies cannot take; served vehicles are not yet flown "
                                "as rigid bodies)")
        if e.first_sysid + g.count - 1 > 255:
            raise m.error(f"{path}.first_sysid", f"{g.count} vehicles from system id {e.first_sysid} pass 255")
        if path.startswith("mavlink.serve"):
            if e.direct and s.mavlink.ground_station is None:
                raise m.error(f"{path}.direct", "direct serves the port beside a ground station's radio link; without "
                                                "mavlink.ground_station the port is served anyway: leave it out")
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


def _check_ground_station(s: Scenario, m: Mapper, groups: dict[str, GroupSpec], used: dict[str, str]) -> None:
    """The ground station is one robot of a network; the vehicles it reaches relay through their robots
    (no controller of their own), unsigned, each system id once."""
    path = "mavlink.ground_station"
    gcs = s.mavlink.ground_station
    g = _bind(groups, gcs.group, path, used, m)
    if g.count != 1:
        raise m.error(f"{path}.group", f"the ground station is one robot; group {g.name!r} has {g.count}")
    if s.network.backend == "none":
        raise m.error(path, "the ground station talks through the simulated network: set network.backend (fast or ns3)")
    if not s.mavlink.serve and not s.mavlink.sitl:
        raise m.error(path, "a ground station needs vehicles to talk to: add mavlink.serve or mavlink.sitl entries")
    if g.controller is not None:
        _check_scripted(g, gcs.port, path, m)
    sysids: dict[int, str] = {}
    _check_relayed_firmware(s, m, groups, sysids)
    for k, e in enumerate(s.mavlink.serve):
        served = groups.get(e.group)
        where = f"mavlink.serve[{k}]"
        if e.signing_key_env is not None:
            raise m.error(f"{where}.signing_key_env", "MAVLink signing over the simulated network is not supported "
                                                      "(yet): leave it out with mavlink.ground_station")
        _check_relayed(s, m, served, where, e.first_sysid, "a served vehicle's robot", sysids)


def _check_relayed_firmware(s: Scenario, m: Mapper, groups: dict[str, GroupSpec], sysids: dict[int, str]) -> None:
    """Under a ground station each firmware's MAVLink comes to a port of the run and is relayed by its robot."""
    for path, e in s.mavlink.sitl_entries():
        g = groups.get(e.group)
        if e.mavlink_port is None:
            raise m.error(f"{path}.mavlink_port", "missing: with mavlink.ground_station the firmware's MAVLink goes "
                                                  "through the simulated network; give the UDP port it sends to (robot "
                                                  "k: mavlink_port + 10 k, `--serial0 udpclient:127.0.0.1:<port>`)")
        _check_relayed(s, m, g, path, e.first_sysid, "a firmware-flown robot", sysids)


def _check_relayed(s: Scenario, m: Mapper, g: GroupSpec | None, path: str, first_sysid: int, who: str,
                   sysids: dict[int, str]) -> None:
    """A group whose robots relay MAVLink names no controller, and its system ids are no other entry's."""
    if g is not None and g.controller is not None:
        raise m.error(f"groups[{s.groups.index(g)}].controller",
                      f"with mavlink.ground_station {who} relays its MAVLink over the network: leave the group's "
                      "controller out")
    for sysid in range(first_sysid, first_sysid + (g.count if g is not None else 1)):
        if sysid in sysids:
            raise m.error(f"{path}.first_sysid", f"system id {sysid} is also {sysids[sysid]}'s: the ground station "
                                                 "tells its vehicles apart by system id")
        sysids[sysid] = path


def check_relay_group(s: Scenario, g: GroupSpec, path: str, m: Mapper) -> None:
    """A group without a controller relays MAVLink over the network: the ground station's, or served vehicles
    with a ground station in the scenario."""
    gcs = s.mavlink.ground_station if s.mavlink is not None else None
    relayed = [e.group for e in s.mavlink.serve] + [e.group for e in s.mavlink.sitl] if gcs is not None else []
    if gcs is None or (g.name != gcs.group and g.name not in relayed):
        raise m.error(f"{path}.controller", "missing: the controller every robot of the group runs ({class: "
                                            "package.module:Class}); only the ground station's group and the served or "
                                            "firmware-flown vehicles' with mavlink.ground_station may leave it out")


def _check_scripted(g: GroupSpec, port: int | None, path: str, m: Mapper) -> None:
    """A ground-station group that names a controller: it is the ground station (a GroundControl), so no
    outside one connects."""
    from cosim.mavlink.ground_control import GroundControl  # pymavlink loads only for scenarios that use it

    try:
        cls = import_class(g.controller.cls, m.source)
    except Exception:  # reported with its key by the group's own checks
        return
    if not (isinstance(cls, type) and issubclass(cls, GroundControl)):
        raise m.error(f"{path}.group", f"the ground station's robot runs {g.controller.cls!r}, which is not a "
                                       "cosim.mavlink.ground_control:GroundControl: leave its controller out to relay an "
                                       "outside ground station, or subclass GroundControl")
    if port is not None:
        raise m.error(f"{path}.port", "the group's controller is the ground station: no outside one connects, so "
                                      "there is no port to open; leave it out")
