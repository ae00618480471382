"""Whether a built scenario can run on the fused engine, and why not when it cannot.

The fused engine covers: every robot runs a compiled kilolib `Program` (on a point robot), a
`CompiledController` (whose on_message does not read the RSSI), belongs to a `CompiledGroup` (on point
or differential-drive robots), or runs a Python controller that does not listen (its timers run in
Python between the compiled stretches, its sends go into the compiled radio); at least one robot runs
compiled code; the world is kinematic with no obstacles, wind, quadrotors or omnidirectional robots;
one fast radio on the unit disk with no contention model and no shadowing; no routing, faults,
batteries, sensors, MAVLink, live view or stream. Anything else runs on the event engine, unchanged.
"""

from __future__ import annotations

import inspect
import os

from controllers.compiled import CompiledController, Program
from controllers.compiled.group import CompiledGroup
from netstack.fast.backend import FastBackend
from netstack.fast.pathloss import UnitDisk
from physics.kinematic.world import KinematicWorld

ENGINE_ENV = "COSIM_ENGINE"
"""`event`: always the event engine; `auto` or unset: the fused engine wherever it applies."""


def engine_choice() -> str:
    value = os.environ.get(ENGINE_ENV, "auto").strip() or "auto"
    if value not in ("auto", "event"):
        raise ValueError(f"{ENGINE_ENV}={value!r}: expected auto (the fused engine where it applies) or event")
    return value


def compiled_parts(sim) -> bool:
    """Whether any robot runs compiled code the fused engine could take (a Program, a CompiledController
    or a CompiledGroup)."""
    return any(isinstance(c, (Program, CompiledController)) for c in sim.population.controllers) or any(
        isinstance(g, CompiledGroup) for g in sim.group_controllers)


def _robots(sim) -> str | None:
    """Why the robots' controllers keep the run on the event engine (None: they do not)."""
    if not all(isinstance(g, CompiledGroup) for g in sim.group_controllers):
        return "a group controller that is not compiled"
    rssi = [type(c).__name__ for c in sim.population.controllers if isinstance(c, CompiledController) and _reads_rssi(type(c))]
    if rssi:
        return (f"{rssi[0]}.on_message reads m.rssi_dbm, which the fused engine's compiled logarithm could give "
                "a last bit apart from numpy's")
    listening = [type(c).__name__ for c in sim.population.controllers
                 if not isinstance(c, (Program, CompiledController)) and type(c).listens()]
    if listening:
        return f"a Python controller that listens ({listening[0]}.on_message)"
    outcomes = [type(c).__name__ for c in sim.population.controllers if type(c).hears_outcomes()]
    if outcomes:
        return f"a controller that hears its unicasts' outcomes ({outcomes[0]}.on_outcome)"
    specs = sim.world.specs
    if any(isinstance(c, Program) and specs[i].drive is not None for i, c in enumerate(sim.population.controllers)):
        return "a compiled Program on a differential-drive body (Programs run on point robots)"
    return None


def _reads_rssi(cls: type) -> bool:
    """Whether a compiled controller's on_message mentions the message's RSSI."""
    fn = cls.callbacks.get("on_message")
    try:
        return fn is not None and "rssi_dbm" in inspect.getsource(fn.py_func)
    except (OSError, TypeError):
        return True  # no source to read: assume it does


def why_not_fused(s, sim, sensors: list[dict]) -> str | None:
    """None when the built simulation `sim` of scenario `s` can run fused, else the reason."""
    if engine_choice() == "event":
        return f"{ENGINE_ENV}=event"
    checks = (
        (not compiled_parts(sim), "no compiled Program or CompiledGroup"),
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
    reason = _robots(sim)
    if reason is not None:
        return reason
    w = sim.world
    net = sim.net
    if any(sp.airframe is not None or sp.omni is not None for sp in w.specs) or w.obstacles or w.wind is not None:
        return "quadrotors, omnidirectional robots, obstacles or wind"
    if not isinstance(net.config.pathloss, UnitDisk) or net.shadows:
        return "a radio model other than the unit disk"
    return None
