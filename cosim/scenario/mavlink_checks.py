"""Checks of the scenario's `mavlink` section against its groups: every entry names a group bound
once, a body the personality serves, system ids within one port's range and key, the standard tick."""

from __future__ import annotations

from cosim.core.timeunits import format_ns
from cosim.scenario.schema import Mapper
from cosim.scenario.specs import GroupSpec, Scenario
from physics.bodies.quadrotor import TICK_NS

_SERVABLE = {"px4": "quadrotor", "ardupilot": "quadrotor", "ardupilot_rover": "diff_drive"}


def _check_sitl(s: Scenario, m: Mapper, used: dict[str, str]) -> None:
    groups = {g.name: g for g in s.groups}
    for path, e in s.mavlink.sitl_entries():
        g = groups.get(e.group)
        if g is None:
            raise m.error(f"{path}.group", f"no group named {e.group!r}; expected one of: {', '.join(groups)}")
        if e.group in used:
            raise m.error(f"{path}.group", f"group {e.group!r} is already bound to MAVLink at {used[e.group]}")
        used[e.group] = path
        if g.robot.model != "quadrotor":
            raise m.error(f"{path}.group", f"ArduPilot's JSON SITL flies quadrotors; group {e.group!r} has "
                                           f"robot.model: {g.robot.model}")
        _check_mavlink_tick(g, path, m)


def _check_mavlink_tick(g: GroupSpec, path: str, m: Mapper) -> None:
    if g.robot.model == "quadrotor" and g.robot.tick_ns != TICK_NS:
        raise m.error(f"{path}.group", f"vehicles flown over MAVLink run the {format_ns(TICK_NS)} control tick; "
                                       f"group {g.name!r} sets robot.control_hz: {g.robot.control_hz:g} (leave it out)")


def check_mavlink(s: Scenario, m: Mapper) -> None:
    """Raise ScenarioError (through `m`) for the first MAVLink entry its groups cannot honour."""
    groups = {g.name: g for g in s.groups}
    used: dict[str, str] = {}
    _check_sitl(s, m, used)
    ports: dict[tuple[str, int], list[tuple[int, int, str | None, str]]] = {}
    for path, e in s.mavlink.entries():
        g = groups.get(e.group)
        if g is None:
            raise m.error(f"{path}.group", f"no group named {e.group!r}; expected one of: {', '.join(groups)}")
        if e.group in used:
            raise m.error(f"{path}.group", f"group {e.group!r} is already bound to MAVLink at {used[e.group]}")
        used[e.group] = path
        _check_mavlink_tick(g, path, m)
        if s.physics.backend != "kinematic":
            raise m.error(path, "MAVLink vehicles need physics.backend: kinematic (a ghost's pose is set from telemetry, "
                                "which pybullet's force-driven bodies cannot take; served vehicles are not yet flown "
                                "as rigid bodies)")
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
