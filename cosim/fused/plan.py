"""Whether a built scenario can run on the fused engine, and why not when it cannot.

The fused engine covers: every robot runs a compiled kilolib `Program`; the world is kinematic with
point robots only (no obstacles, wind, batteries or sensors); one fast radio on the unit disk with no
contention model and no shadowing; no routing, faults, MAVLink, live view or stream. Anything else
runs on the event engine, unchanged.
"""

from __future__ import annotations

import os

from controllers.compiled import Program
from netstack.fast.backend import FastBackend
from netstack.fast.pathloss import UnitDisk
from physics.kinematic import KinematicWorld

ENGINE_ENV = "COSIM_ENGINE"
"""`event`: always the event engine; `auto` or unset: the fused engine wherever it applies."""


def engine_choice() -> str:
    value = os.environ.get(ENGINE_ENV, "auto").strip() or "auto"
    if value not in ("auto", "event"):
        raise ValueError(f"{ENGINE_ENV}={value!r}: expected auto (the fused engine where it applies) or event")
    return value


def why_not_fused(s, sim, sensors: list[dict]) -> str | None:
    """None when the built simulation `sim` of scenario `s` can run fused, else the reason."""
    if engine_choice() == "event":
        return f"{ENGINE_ENV}=event"
    checks = (
        (not all(isinstance(c, Program) for c in sim.controllers), "not every robot runs a compiled Program"),
        (bool(sim.group_controllers), "group controllers"),
        (not isinstance(sim.world, KinematicWorld), "the world is not kinematic"),
        (type(sim.net) is not FastBackend, "the network is not the contention-free fast radio"),
        (sim.stacks is not None, "routing"),
        (bool(sim.extensions) or bool(sim.recorder.observers), "MAVLink, a live view or a stream"),
        (sim.batteries is not None or sim.collision_kills is not None or sim.crash_rules is not None
         or sim.contact_log is not None, "batteries, crashes or contacts"),
        (any(sensors), "sensors"),
        (bool(s.kills) or any(g.faults.mean_time_to_failure_ns is not None for g in s.groups), "faults"),
        (s.initial_state is not None, "an initial state"),
        (len(s.network.interface_names) != 1, "several radios"),
    )
    for failed, reason in checks:
        if failed:
            return reason
    w, net = sim.world, sim.net
    bodies = any(sp.airframe is not None or sp.drive is not None or sp.omni is not None for sp in w.specs)
    if bodies or w.obstacles or w.wind is not None:
        return "bodies other than point robots, obstacles or wind"
    if not isinstance(net.config.pathloss, UnitDisk) or net.shadows:
        return "a radio model other than the unit disk"
    return None
