"""One static shape's arithmetic, compiled: a ray's distance to a box, an oriented box (wall), a
cylinder or a sphere, a point's gap to a shape, and the push that takes a robot out of one.

Each is its numpy twin's in physics.scene.obstacles and physics.kinematic.raycast, operation by operation,
so the results are the same to the last bit (tests/physics/kinematic/test_scenery.py). Where numpy sums
three products with einsum it adds the first and the last, then the middle one; so do these.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

BOX = 0
ORIENTED = 1
CYLINDER = 2
INF = math.inf


@njit(cache=True, inline="always")
def sum3(a0: float, a1: float, a2: float) -> float:
    """einsum's order for a sum of three products."""
    return (a0 + a2) + a1



@njit(cache=True, inline="always")
def _nanmax_min(t1: float, t2: float, acc: float, seen: bool) -> tuple:
    """One axis of nanmax(minimum(t1, t2)): np.minimum propagates NaN, nanmax skips it."""
    m = t1 if (t1 < t2 or t1 != t1) else t2
    if m != m:
        return acc, seen
    return (m if not seen or m > acc else acc), True



@njit(cache=True, inline="always")
def _nanmin_max(t1: float, t2: float, acc: float, seen: bool) -> tuple:
    m = t1 if (t1 > t2 or t1 != t1) else t2
    if m != m:
        return acc, seen
    return (m if not seen or m < acc else acc), True



@njit(cache=True, error_model="numpy")
def ray_box(o0: float, o1: float, o2: float, d0: float, d1: float, d2: float, lo0: float, lo1: float, lo2: float,
            hi0: float, hi1: float, hi2: float) -> float:
    """raycast.ray_box_distances for one ray: the slab method, inf on a miss, 0 from inside."""
    lo_t = 0.0
    hi_t = 0.0
    s_lo = False
    s_hi = False
    for lo, hi, o, d in ((lo0, hi0, o0, d0), (lo1, hi1, o1, d1), (lo2, hi2, o2, d2)):
        inv = 1.0 / d
        t1 = (lo - o) * inv
        t2 = (hi - o) * inv
        lo_t, s_lo = _nanmax_min(t1, t2, lo_t, s_lo)
        hi_t, s_hi = _nanmin_max(t1, t2, hi_t, s_hi)
    tmin = lo_t if s_lo else math.nan
    tmax = hi_t if s_hi else math.nan
    start = tmin if (tmin > 0.0 or tmin != tmin) else 0.0  # np.maximum(tmin, 0) keeps a NaN
    return start if tmax >= start else INF



@njit(cache=True, error_model="numpy")
def ray_cylinder(o0: float, o1: float, o2: float, d0: float, d1: float, d2: float, p: np.ndarray) -> float:
    """obstacles.Cylinder.rays for one ray (p = centre, radius, half height)."""
    ox = o0 - p[0]
    oy = o1 - p[1]
    a = d0 * d0 + d1 * d1
    b = ox * d0 + oy * d1
    cc = ox * ox + oy * oy - p[3] * p[3]
    disc = b * b - a * cc
    root = math.sqrt(max(disc, 0.0))
    t_near = (-b - root) / a
    t_far = (-b + root) / a
    if cc <= 0.0:
        t = 0.0
    elif t_near >= 0.0:
        t = t_near
    elif t_far >= 0.0:
        t = t_far
    else:
        t = INF
    if not (disc >= 0.0 and a > 0.0):
        t = INF
    z = o2 + (t if math.isfinite(t) else 0.0) * d2
    return t if abs(z - p[2]) <= p[4] else INF



@njit(cache=True, inline="always")
def _local(p: np.ndarray, x0: float, x1: float) -> tuple:
    """OrientedBox._local of a vector's x and y (p[6], p[7] = cos, sin of the yaw)."""
    c = p[6]
    s = p[7]
    return c * x0 + s * x1, -s * x0 + c * x1



@njit(cache=True)
def gap(kind: int, p: np.ndarray, q0: float, q1: float, q2: float) -> float:
    """The shape's gap(point): a lower bound on its distance from the point."""
    if kind == CYLINDER:
        dxy = max(np.hypot(q0 - p[0], q1 - p[1]) - p[3], 0.0)
        dz = max(abs(q2 - p[2]) - p[4], 0.0)
        return np.hypot(dxy, dz)
    x0 = q0 - p[0]
    x1 = q1 - p[1]
    x2 = q2 - p[2]
    if kind == ORIENTED:
        x0, x1 = _local(p, x0, x1)
    e0 = max(abs(x0) - p[3], 0.0)
    e1 = max(abs(x1) - p[4], 0.0)
    e2 = max(abs(x2) - p[5], 0.0)
    return math.sqrt(e0 * e0 + e1 * e1 + e2 * e2)



@njit(cache=True, error_model="numpy")
def ray_shape(kind: int, p: np.ndarray, o0: float, o1: float, o2: float, d0: float, d1: float, d2: float) -> float:
    """The shape's rays() for one ray; p holds centre, half extents, then lo and hi (a box) or the
    yaw's cos and sin (an oriented box), or centre, radius and half height (a cylinder)."""
    if kind == CYLINDER:
        return ray_cylinder(o0, o1, o2, d0, d1, d2, p)
    if kind == BOX:
        return ray_box(o0, o1, o2, d0, d1, d2, p[6], p[7], p[8], p[9], p[10], p[11])
    l0, l1 = _local(p, o0 - p[0], o1 - p[1])
    e0, e1 = _local(p, d0, d1)
    return ray_box(l0, l1, o2 - p[2], e0, e1, d2, -p[3], -p[4], -p[5], p[3], p[4], p[5])



@njit(cache=True, error_model="numpy")
def ray_sphere(o0: float, o1: float, o2: float, d0: float, d1: float, d2: float, c0: float, c1: float, c2: float,
               r: float) -> float:
    """raycast.ray_sphere_distances for one ray and one sphere."""
    x0 = o0 - c0
    x1 = o1 - c1
    x2 = o2 - c2
    b = sum3(x0 * d0, x1 * d1, x2 * d2)
    c = sum3(x0 * x0, x1 * x1, x2 * x2) - r * r
    disc = b * b - c
    root = math.sqrt(max(disc, 0.0))
    t_near = -b - root
    t_far = -b + root
    t = t_near if t_near >= 0.0 else (0.0 if t_far >= 0.0 else INF)
    return t if disc >= 0.0 else INF



@njit(cache=True, inline="always")
def _push_box(kind: int, p: np.ndarray, pos: np.ndarray, i: int, r: float) -> bool:
    """Box.push_out (OrientedBox.push_out: in the box's frame, then back) for robot i."""
    x0 = pos[i, 0] - p[0]
    x1 = pos[i, 1] - p[1]
    x2 = pos[i, 2] - p[2]
    if kind == ORIENTED:
        x0, x1 = _local(p, x0, x1)
    r0 = p[3] + r
    r1 = p[4] + r
    r2 = p[5] + r
    e0 = r0 - abs(x0)
    e1 = r1 - abs(x1)
    e2 = r2 - abs(x2)
    if not (e0 > 0.0 and e1 > 0.0 and e2 > 0.0):
        return False
    axis = 0 if (e0 <= e1 and e0 <= e2) else (1 if e1 <= e2 else 2)  # argmin: the first on a tie
    if axis == 0:
        x0 = (1.0 if x0 >= 0.0 else -1.0) * r0
    elif axis == 1:
        x1 = (1.0 if x1 >= 0.0 else -1.0) * r1
    else:
        x2 = (1.0 if x2 >= 0.0 else -1.0) * r2
    if kind == ORIENTED:  # the whole position comes back from the box's frame
        c = p[6]
        s = p[7]
        pos[i, 0] = (c * x0 - s * x1) + p[0]
        pos[i, 1] = (s * x0 + c * x1) + p[1]
        pos[i, 2] = x2 + p[2]
    else:  # only the axis pushed along is written
        pos[i, axis] = p[axis] + (x0 if axis == 0 else (x1 if axis == 1 else x2))
    return True



@njit(cache=True, inline="always")
def _push_cylinder(p: np.ndarray, pos: np.ndarray, i: int, r: float) -> bool:
    """Cylinder.push_out for robot i: out through the side or the nearer cap."""
    x0 = pos[i, 0] - p[0]
    x1 = pos[i, 1] - p[1]
    x2 = pos[i, 2] - p[2]
    dist = np.hypot(x0, x1)
    reach = p[3] + r
    side = reach - dist
    top = (p[4] + r) - abs(x2)
    if not (side > 0.0 and top > 0.0):
        return False
    if side <= top:
        d = max(dist, 1e-9)
        ux = x0 / d if dist > 1e-9 else 1.0
        uy = x1 / d if dist > 1e-9 else 0.0
        pos[i, 0] = p[0] + ux * reach
        pos[i, 1] = p[1] + uy * reach
    else:
        pos[i, 2] = p[2] + (1.0 if x2 >= 0.0 else -1.0) * (p[4] + r)
    return True



@njit(cache=True, error_model="numpy", inline="always")
def push_one(kind: int, p: np.ndarray, pos: np.ndarray, vel: np.ndarray, r: float, i: int) -> bool:
    """One shape's push_out of robot i and KinematicWorld._push_out_of's velocity correction (what
    pointed into the surface is removed). Returns whether the robot was inside."""
    b0 = pos[i, 0]
    b1 = pos[i, 1]
    b2 = pos[i, 2]
    inside = _push_cylinder(p, pos, i, r) if kind == CYLINDER else _push_box(kind, p, pos, i, r)
    if not inside:
        return False
    m0 = pos[i, 0] - b0
    m1 = pos[i, 1] - b1
    m2 = pos[i, 2] - b2
    den = max(math.sqrt(sum3(m0 * m0, m1 * m1, m2 * m2)), 1e-12)
    n0 = m0 / den
    n1 = m1 / den
    n2 = m2 / den
    f = min(sum3(vel[i, 0] * n0, vel[i, 1] * n1, vel[i, 2] * n2), 0.0)
    vel[i, 0], vel[i, 1], vel[i, 2] = vel[i, 0] - f * n0, vel[i, 1] - f * n1, vel[i, 2] - f * n2
    return True
