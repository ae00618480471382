"""pybullet itself, imported once without its build-time banner (it writes one to stderr on import,
which is noise in `cosim validate` and in every run's log), and a new engine set up for a world."""

from __future__ import annotations

import os
import sys
from types import ModuleType


def connect(pybullet: ModuleType, gravity: float, dt_s: float, solver_iterations: int) -> int:
    """A new DIRECT-mode engine (its client id): gravity (m/s^2) down, time step `dt_s`, and overlapping
    pairs in a deterministic order (the same run gives the same contacts)."""
    cid = pybullet.connect(pybullet.DIRECT)
    pybullet.resetSimulation(physicsClientId=cid)
    pybullet.setGravity(0, 0, -gravity, physicsClientId=cid)
    pybullet.setTimeStep(dt_s, physicsClientId=cid)
    pybullet.setPhysicsEngineParameter(numSolverIterations=solver_iterations, deterministicOverlappingPairs=1,
                                       physicsClientId=cid)
    return cid


def pybullet_module() -> ModuleType:
    """The pybullet module; its first import runs with stderr (the file descriptor) silenced."""
    if "pybullet" in sys.modules:
        return sys.modules["pybullet"]
    sys.stderr.flush()
    saved = os.dup(2)
    try:
        with open(os.devnull, "w") as null:
            os.dup2(null.fileno(), 2)
            import pybullet
    finally:
        os.dup2(saved, 2)
        os.close(saved)
    return pybullet
