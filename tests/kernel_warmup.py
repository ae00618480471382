"""Compile the project's numba kernels into their on-disk cache before the test workers start.

On a fresh clone numba's cache (per user and per clone, jit/cache.py) is empty, and every pytest-xdist
worker that reaches a kernel first compiles it itself: the contention loop alone costs about 35 s
of CPU per process. tests/conftest.py runs the parts below side by side, once, before the
workers start; the workers then load the machine code from disk. Each part runs a few short example
scenarios with the compiled kernels forced, which compiles what the tests use, with the same
argument types.

    python -m tests.kernel_warmup 0      # the contention model and the radio's other kernels
    python -m tests.kernel_warmup 1      # physics, scenery, avoiders, quadrotors, the fused engine
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PARTS = (
    (("manet_contention.yaml", 0.5, {}), ("rosbuzz_barrier.yaml", 0.5, {}), ("two_radios.yaml", 0.3, {}),
     ("demo.yaml", 0.3, {"groups.0.count": 300, "groups.0.layout.radius": 190.0})),
    (("ground_robots.yaml", 0.3, {}), ("quadrotors.yaml", 0.3, {}), ("kilolib_follow_compiled.yaml", 0.3, {}),
     ("simbeeotic_gradient.yaml", 0.3, {}), ("kilombo_follow_group.yaml", 0.3, {})),
)
"""Two parts of about 45 s of CPU each on a fresh clone, one per core (a third part for the fused engine
alone measured no faster here). The compiled kilolib programs are cached per user
(controllers.compiled.codegen): where that cache is empty too, the second part takes about 100 s."""


def warm(part: int) -> None:
    """Run part `part`'s scenarios for a moment each."""
    sys.path.insert(0, str(ROOT / "benchmarks"))
    import argos

    import cosim

    for name, seconds, overrides in PARTS[part]:
        cosim.build(cosim.load(ROOT / "configs" / name, {"duration": seconds, **overrides})).run()
    if part == 1:  # the scenery's rays and push-outs, the avoiders, the compiled world step
        for controller in ("group", "per_robot"):
            cosim.build(argos.scenario(80, 0.3, controller, "kinematic")).run()


if __name__ == "__main__":
    warm(int(sys.argv[1]))
