"""Line-of-sight crossings compiled with numba: how many solids each segment passes through, one
segment and one solid at a time (tests/netstack/crossings_reference.py is the numpy reference)."""

from __future__ import annotations

import math

import numpy as np
from numba import njit

EPS = 1e-12


@njit(cache=True)
def _slab(p0: float, d: float, lo: float, hi: float) -> tuple[float, float]:
    if abs(d) < EPS:
        if lo <= p0 <= hi:
            return -np.inf, np.inf
        return np.inf, -np.inf
    ta = (lo - p0) / d
    tb = (hi - p0) / d
    return min(ta, tb), max(ta, tb)


@njit(cache=True)
def crosses_box(a, b, c, h, yaw) -> bool:
    co = math.cos(yaw)
    si = math.sin(yaw)
    ax = a[0] - c[0]
    ay = a[1] - c[1]
    bx = b[0] - c[0]
    by = b[1] - c[1]
    p = (co * ax + si * ay, -si * ax + co * ay, a[2] - c[2])
    q = (co * bx + si * by, -si * bx + co * by, b[2] - c[2])
    enter = -np.inf
    leave = np.inf
    for i in range(3):
        t0, t1 = _slab(p[i], q[i] - p[i], -h[i], h[i])
        enter = max(enter, t0)
        leave = min(leave, t1)
    return enter <= leave and leave >= 0.0 and enter <= 1.0


@njit(cache=True)
def crosses_cylinder(a, b, c, r, hh) -> bool:
    px = a[0] - c[0]
    py = a[1] - c[1]
    pz = a[2] - c[2]
    dx = b[0] - a[0]
    dy = b[1] - a[1]
    dz = b[2] - a[2]
    qa = dx * dx + dy * dy
    qb = 2.0 * (px * dx + py * dy)
    qc = px * px + py * py - r * r
    if qa < EPS:
        t0, t1 = (-np.inf, np.inf) if qc <= 0.0 else (np.inf, -np.inf)
    else:
        disc = qb * qb - 4.0 * qa * qc
        root = math.sqrt(max(disc, 0.0))
        t0 = (-qb - root) / (2.0 * qa) if disc >= 0 else np.inf
        t1 = (-qb + root) / (2.0 * qa) if disc >= 0 else -np.inf
    z0, z1 = _slab(pz, dz, -hh, hh)
    enter = max(t0, z0)
    leave = min(t1, z1)
    return enter <= leave and leave >= 0.0 and enter <= 1.0


@njit(cache=True)
def crossings(a, b, box_c, box_h, box_yaw, cyl_c, cyl_r, cyl_hh) -> np.ndarray:
    n = np.zeros(len(a), dtype=np.int64)
    for k in range(len(a)):
        for j in range(len(box_yaw)):
            if crosses_box(a[k], b[k], box_c[j], box_h[j], box_yaw[j]):
                n[k] += 1
        for j in range(len(cyl_r)):
            if crosses_cylinder(a[k], b[k], cyl_c[j], cyl_r[j], cyl_hh[j]):
                n[k] += 1
    return n
