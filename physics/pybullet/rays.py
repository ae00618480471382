"""Ray casting in a pybullet world: many rays per rayTestBatch call (16,000 at most, pybullet's
limit), and rays from mounted sensors, which first leave their own robot's body."""

from __future__ import annotations

import numpy as np

BATCH = 16_000


def hit_fractions(p, cid: int, starts: np.ndarray, ends: np.ndarray) -> np.ndarray:
    """For each ray start -> end, the fraction of the way to the first body hit (1.0: none)."""
    starts = np.ascontiguousarray(starts, dtype=np.float64)  # pybullet reads numpy arrays faster than lists
    ends = np.ascontiguousarray(ends, dtype=np.float64)
    frac: list[float] = []
    for k in range(0, len(starts), BATCH):
        hits = p.rayTestBatch(starts[k:k + BATCH], ends[k:k + BATCH], numThreads=0, physicsClientId=cid)  # every core
        frac.extend(h[2] if h[0] >= 0 else 1.0 for h in hits)
    return np.array(frac)


def from_surface(p, cid: int, centre: np.ndarray, radius: float, dirs: np.ndarray, max_range: float) -> np.ndarray:
    """One robot's rays from just outside its bounding sphere (centre, radius) along unit directions
    (R,3): distances to the first body hit, max_range where none (one rayTestBatch call)."""
    starts = centre + dirs * (radius + 1e-4)
    f = hit_fractions(p, cid, starts, starts + dirs * max_range)
    return np.minimum(f * max_range + 1e-4, max_range)


def from_surfaces(p, cid: int, positions: np.ndarray, radii: np.ndarray,
                  requests: list[tuple[int, np.ndarray, float]]) -> list[np.ndarray]:
    """`from_surface` for many robots at once: (robot, directions, max range) each, in one rayTestBatch
    call per BATCH rays; the rays' ends in a few array operations."""
    if not requests:
        return []
    robots, dirs, reach = zip(*requests)
    counts = [len(d) for d in dirs]
    rows = np.repeat(np.array(robots, dtype=np.int64), counts)
    reach = np.repeat(np.array(reach, dtype=np.float64), counts)[:, None]
    dirs = np.concatenate(dirs)
    starts = positions[rows] + dirs * (radii[rows, None] + 1e-4)
    f = hit_fractions(p, cid, starts, starts + dirs * reach)[:, None]
    d = np.minimum(f * reach + 1e-4, reach)[:, 0]
    ends = np.cumsum(counts).tolist()
    return [d[a:b] for a, b in zip([0, *ends[:-1]], ends)]


def from_mounts(p, cid: int, requests: list[tuple[np.ndarray, float, np.ndarray, np.ndarray, float]]) -> list[np.ndarray]:
    """Distances from each request's origin along its directions to the first body hit, max_range
    where none: (robot centre, robot radius, origin, directions, max_range) each. A ray that starts
    inside its robot's bounding sphere is cast from where it leaves it, so the robot does not see
    itself; the distance still counts from the origin."""
    starts = []
    ends = []
    skips = []
    for centre, radius, origin, dirs, max_range in requests:
        oc = origin - centre
        b = dirs @ oc
        c = oc @ oc - radius * radius
        skip = np.where(c < 0, -b + np.sqrt(np.maximum(b * b - c, 0.0)), 0.0)
        skip = np.minimum(skip, max_range)
        starts.append(origin + dirs * skip[:, None])
        ends.append(origin + dirs * max_range)
        skips.append(skip)
    if not starts:
        return []
    f = hit_fractions(p, cid, np.concatenate(starts), np.concatenate(ends))
    out = []
    at = 0
    for (_, _, _, dirs, max_range), skip in zip(requests, skips):
        k = len(dirs)
        out.append(np.minimum(skip + f[at:at + k] * (max_range - skip), max_range))
        at += k
    return out
