"""One measure of neighbourhood for every protocol: how many other live nodes are within the
radio's nominal range, averaged over the position samples. It depends on positions and the radio
alone, so AntHocNet, ns-3's AODV and the rest are compared on the same number (the run's
`mean_neighbors` counts nodes heard recently, which depends on what the protocol transmits)."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np

from netstack.radio import RadioSpec


def nominal_range_m(radio: RadioSpec, backend: str) -> float:
    """The distance at which a frame is still received on this engine: ns-3's detection threshold,
    or the fast radio's threshold (or its unit disk)."""
    if backend == "ns3":
        from netstack.ns3.backend import effective_range_m

        return effective_range_m(radio.ns3_config())
    return float(radio.fast_config().max_range_m())


def mean_neighbors_in_range(positions: Path, range_m: float) -> float:
    """Mean count of live nodes within range_m of each live node, over the position trace (NaN without one)."""
    if not positions.exists() or not math.isfinite(range_m):
        return math.nan
    import pyarrow.parquet as pq

    t = pq.read_table(positions, columns=["t_ns", "x", "y", "z", "alive"]).to_pydict()
    times = np.asarray(t["t_ns"])
    xyz = np.stack([t["x"], t["y"], t["z"]], axis=1)
    alive = np.asarray(t["alive"], dtype=bool)
    counts = []
    for at in np.unique(times):
        p = xyz[(times == at) & alive]
        if len(p) < 2:
            continue
        d2 = ((p[:, None, :] - p[None, :, :]) ** 2).sum(axis=2)
        counts.append(((d2 <= range_m * range_m).sum() - len(p)) / len(p))
    return float(np.mean(counts)) if counts else math.nan
