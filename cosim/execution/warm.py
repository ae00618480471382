"""`cosim warm`: compile ahead what scenarios' runs compile, into numba's on-disk cache (a cluster
image, a machine before a sweep), so that no run pays for it. Each scenario runs for a moment in
memory, and nothing is written but the cache.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path

from cosim.assembly.simulation import build
from cosim.scenario.loading import load
from jit.clock import CLOCK, watch

WARM_S = 1.0
"""Simulated seconds each scenario runs for (at most its own duration)."""


@dataclass(frozen=True)
class Warmed:
    """One scenario warmed: wall seconds in all, and of them compiling."""

    path: Path
    wall_s: float
    compile_s: float


def warm(path: Path, overrides: dict | None = None) -> Warmed:
    """Run `path` for WARM_S simulated seconds, then drop it."""
    scenario = load(path, overrides)
    short = load(path, {**(overrides or {}), "duration": min(WARM_S, scenario.duration_ns / 1e9),
                        "output.trace.positions_every": None})
    before = CLOCK.total_s
    t0 = time.perf_counter()
    sim = build(short)
    watch()
    try:
        sim.run()
    finally:
        sim.close()
    return Warmed(path, time.perf_counter() - t0, CLOCK.total_s - before)
