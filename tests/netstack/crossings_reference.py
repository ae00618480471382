"""Line-of-sight crossings in numpy: every sender-receiver segment against every upright box and
vertical cylinder in one vectorised pass: the reference netstack.fast.crossings (compiled) must
count the same."""

from __future__ import annotations

import numpy as np

EPS = 1e-12


def crossings(a: np.ndarray, b: np.ndarray, box_c: np.ndarray, box_h: np.ndarray, box_yaw: np.ndarray,
              cyl_c: np.ndarray, cyl_r: np.ndarray, cyl_hh: np.ndarray) -> np.ndarray:
    """For each segment a[k] -> b[k] (K, 3), how many solids it passes through (K,) int."""
    n = np.zeros(len(a), dtype=np.int64)
    if len(a) == 0:
        return n
    if len(box_yaw):
        n += _box_hits(a, b, box_c, box_h, box_yaw).sum(axis=1)
    if len(cyl_r):
        n += _cylinder_hits(a, b, cyl_c, cyl_r, cyl_hh).sum(axis=1)
    return n


def _slab(p0: np.ndarray, d: np.ndarray, lo: np.ndarray, hi: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Parameter interval [t0, t1] of p0 + t d inside lo <= x <= hi, per element (empty: t0 > t1)."""
    flat = np.abs(d) < EPS
    inside = (p0 >= lo) & (p0 <= hi)
    with np.errstate(divide="ignore", invalid="ignore"):
        ta, tb = (lo - p0) / d, (hi - p0) / d
    t0 = np.where(flat, np.where(inside, -np.inf, np.inf), np.minimum(ta, tb))
    t1 = np.where(flat, np.where(inside, np.inf, -np.inf), np.maximum(ta, tb))
    return t0, t1


def _box_hits(a, b, box_c, box_h, box_yaw) -> np.ndarray:
    """(K, B) whether segment k passes through box j (slab test in the box's own frame)."""
    c, sn = np.cos(box_yaw), np.sin(box_yaw)

    def local(v):
        return np.stack([c * v[..., 0] + sn * v[..., 1], -sn * v[..., 0] + c * v[..., 1], v[..., 2]], axis=-1)

    p0 = local(a[:, None, :] - box_c[None])
    d = local(b[:, None, :] - box_c[None]) - p0
    t0, t1 = _slab(p0, d, -box_h[None], box_h[None])
    enter, leave = t0.max(axis=-1), t1.min(axis=-1)
    return (enter <= leave) & (leave >= 0.0) & (enter <= 1.0)


def _cylinder_hits(a, b, cyl_c, cyl_r, cyl_hh) -> np.ndarray:
    """(K, C) whether segment k passes through vertical cylinder j."""
    p0 = a[:, None, :] - cyl_c[None]
    d = (b - a)[:, None, :]
    qa = d[..., 0] ** 2 + d[..., 1] ** 2
    qb = 2.0 * (p0[..., 0] * d[..., 0] + p0[..., 1] * d[..., 1])
    qc = p0[..., 0] ** 2 + p0[..., 1] ** 2 - cyl_r[None] ** 2
    disc = qb * qb - 4.0 * qa * qc
    vertical = qa < EPS
    root = np.sqrt(np.maximum(disc, 0.0))
    with np.errstate(divide="ignore", invalid="ignore"):
        r0, r1 = (-qb - root) / (2.0 * qa), (-qb + root) / (2.0 * qa)
    inside_now = qc <= 0.0
    t0 = np.where(vertical, np.where(inside_now, -np.inf, np.inf), np.where(disc >= 0, r0, np.inf))
    t1 = np.where(vertical, np.where(inside_now, np.inf, -np.inf), np.where(disc >= 0, r1, -np.inf))
    z0, z1 = _slab(p0[..., 2], d[..., 2], -cyl_hh[None], cyl_hh[None])
    enter, leave = np.maximum(t0, z0), np.minimum(t1, z1)
    return (enter <= leave) & (leave >= 0.0) & (enter <= 1.0)
