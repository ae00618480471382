"""AntHocNet sets up a route on every connected static topology of a seeded random set: 12 nodes
dropped in a 60 m square with a 25 m radio range, the pair farthest apart in hops talking."""

import itertools
import math
from collections import deque

import numpy as np

from tests.netstack.routing.topology import RANGE_M, run, scenario

TOPOLOGIES = 30


def hop_distances(points: dict[str, tuple[float, float]], start: str) -> dict[str, int]:
    dist, queue = {start: 0}, deque([start])
    while queue:
        a = queue.popleft()
        for b in points:
            if b not in dist and math.dist(points[a], points[b]) < RANGE_M:
                dist[b] = dist[a] + 1
                queue.append(b)
    return dist


def random_topologies(seed: int = 2026):
    rng = np.random.default_rng(seed)
    for _ in range(TOPOLOGIES):
        points = {f"n{k}": tuple(map(float, rng.uniform(0, 60, 2))) for k in range(12)}
        yield points, {a: hop_distances(points, a) for a in points}


def test_route_setup_succeeds_on_every_connected_random_topology():
    connected = 0
    for k, (points, dist) in enumerate(random_topologies()):
        if len(dist["n0"]) < len(points):
            continue  # not connected: no protocol could
        connected += 1
        a, b = max(itertools.permutations(points, 2), key=lambda ab: dist[ab[0]][ab[1]])
        data = scenario(points, {"protocol": "anthocnet"}, [(a, b)], duration=8.0, rate=5.0, start=1.0, seed=k + 1)
        _, tables = run(data)
        p, e = tables["packets"], tables.get("events", {"kind": []})
        delivered = sum(1 for kind in p["kind"] if kind == 1)
        sent = sum(1 for kind in p["kind"] if kind == 0)
        assert "route_failed" not in e["kind"], (k, a, b, dist[a][b])
        assert delivered >= 0.9 * sent, (k, a, b, dist[a][b], delivered, sent)
    assert connected >= 15  # the set is meaningful: how many of the 30 were connected
