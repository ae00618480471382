"""Fixed-radius pair search: the column cell list (physics.kinematic.pairs, the one the kinematic world's
Verlet list rebuilds with) against brute force, over N and radius; prints JSON lines.
Robots are uniform in a 20 m disc, as in Simbeeotic's workloads.
"""

from __future__ import annotations

import json
import sys
import timeit
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from physics.kinematic.pairs import brute_pairs, column_pairs


def disc(n: int, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    r = 20.0 * np.sqrt(rng.random(n))
    a = rng.random(n) * 2 * np.pi
    return np.stack([r * np.cos(a), r * np.sin(a), np.ones(n)], axis=1)


def best_ms(fn, repeat: int = 5) -> float:
    return min(timeit.repeat(fn, number=1, repeat=repeat)) * 1e3


def main() -> None:
    for n in (50, 200, 1000, 3000, 10000):
        pos = disc(n)
        for radius in (0.2, 2.0, 30.0):
            if n >= 3000 and radius == 30.0:
                continue  # millions of pairs; nobody resolves overlaps at radio range
            row = {"workload": "pairs_within", "N": n, "radius_m": radius,
                   "columns_ms": round(best_ms(lambda p=pos, r=radius: column_pairs(p, r)), 3)}
            if n <= 3000:
                row["brute_ms"] = round(best_ms(lambda p=pos, r=radius: brute_pairs(p, r), 2), 3)
            print(json.dumps(row), flush=True)


if __name__ == "__main__":
    main()
