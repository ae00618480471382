"""Small drawn topologies for routing tests: named points, unit-disk links, a scenario around them."""

from __future__ import annotations

import itertools
import math

import numpy as np

import cosim
from cosim.assembly.simulation import build
from cosim.output.packet_invariants import packet_invariants

RANGE_M = 25.0


def links(points: dict[str, tuple[float, float]], range_m: float = RANGE_M) -> set[tuple[str, str]]:
    return {tuple(sorted((a, b))) for a, b in itertools.combinations(points, 2) if math.dist(points[a], points[b]) < range_m}


def scenario(points: dict[str, tuple[float, float]], protocol: dict, pairs: list[tuple[str, str]], *, duration: float,
             rate: float = 5.0, start: float = 2.0, kills: tuple = (), seed: int = 1) -> dict:
    """Stations at `points` (order = node ids), fast network with a 25 m unit disk, CBR between named pairs."""
    names = list(points)
    return {
        "name": "topology", "seed": seed, "duration": duration, "quantum": "10 ms",
        "physics": {"backend": "kinematic", "dt": "10 ms", "collisions": False},
        "network": {"backend": "fast", "routing": protocol,
                    "radio": {"pathloss": {"model": "unit_disk", "range_m": RANGE_M}, "bit_rate_bps": 1_000_000}},
        "groups": [{"name": "nodes", "count": len(names),
                    "layout": {"type": "list", "points": [[x, y, 1.0] for x, y in points.values()]},
                    "controller": {"class": "controllers.library.station:Station"}}],
        "traffic": [{"pairs": [[names.index(a), names.index(b)] for a, b in pairs], "rate": rate, "size": 64,
                     "start": start}],
        "kills": [{"node": names.index(n), "at": t} for n, t in kills],
    }


def run(data: dict):
    """Build and run in process; returns (simulation, trace tables). Every run's packet trace is
    checked: no packet comes back to a node, none is delivered twice."""
    sim = build(cosim.from_dict(data, source="topology.yaml"))
    sim.run()
    tables = sim.recorder.tables()
    if len(tables["packets"]["t_ns"]):
        assert packet_invariants(tables["packets"]) == {"revisits": 0, "duplicate_deliveries": 0}
    return sim, tables


def data_frames(tables: dict, src: int, after_ns: int = 0) -> dict[int, int]:
    """Data frames `src` transmitted after `after_ns`, counted per next hop."""
    p = tables["packets"]
    kind = np.asarray(p["kind"])
    sel = (np.asarray(p["node"]) == src) & (kind == 3) & (np.asarray(p["t_ns"]) > after_ns)
    sel &= np.array([d == "data" for d in p["detail"]])
    hops, counts = np.unique(np.asarray(p["dst"])[sel], return_counts=True)
    return dict(zip(hops.tolist(), counts.tolist()))
