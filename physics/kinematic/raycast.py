"""Analytic ray casting for the kinematic world: rays against axis-aligned boxes and spheres, and
against a world's shapes and robots (the numpy reference the compiled scenery kernels match)."""

from __future__ import annotations

import numpy as np


def ray_box_distances(origins: np.ndarray, dirs: np.ndarray, lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    """Distance along each unit ray (R,3) to the box [lo, hi] (slab method); inf where it misses.
    A ray starting inside the box reports 0."""
    with np.errstate(divide="ignore", invalid="ignore"):
        inv = 1.0 / dirs
        t1 = (lo - origins) * inv
        t2 = (hi - origins) * inv
    tmin = np.nanmax(np.minimum(t1, t2), axis=1)
    tmax = np.nanmin(np.maximum(t1, t2), axis=1)
    hit = (tmax >= np.maximum(tmin, 0.0))
    return np.where(hit, np.maximum(tmin, 0.0), np.inf)


def ray_sphere_distances(origins: np.ndarray, dirs: np.ndarray, centers: np.ndarray, radii: np.ndarray) -> np.ndarray:
    """Distance along each unit ray (R,3) to the nearest of the spheres (S,3); inf where none is hit."""
    if len(centers) == 0:
        return np.full(len(origins), np.inf)
    oc = origins[:, None, :] - centers[None, :, :]  # (R,S,3)
    b = np.einsum("rsk,rk->rs", oc, dirs)
    c = np.einsum("rsk,rsk->rs", oc, oc) - radii[None, :] ** 2
    disc = b * b - c
    root = np.sqrt(np.maximum(disc, 0.0))
    t_near = -b - root
    t_far = -b + root
    t = np.where(t_near >= 0.0, t_near, np.where(t_far >= 0.0, 0.0, np.inf))
    t = np.where(disc >= 0.0, t, np.inf)
    return t.min(axis=1)


def cast_among(shapes: tuple, pos: np.ndarray, radius: np.ndarray, robot: int, here: np.ndarray, origins: np.ndarray,
               dirs: np.ndarray, reach: float, max_range: float) -> np.ndarray:
    """Distances along rays (origins, unit dirs) to the nearest of the shapes within `reach` of `here`
    or of the robots (centres pos, radii radius) other than `robot`; max_range where nothing is closer."""
    best = np.full(len(dirs), np.inf)
    for shape in shapes:
        if shape.gap(here) <= reach:  # only obstacles the rays can reach
            best = np.minimum(best, shape.rays(origins, dirs))
    if len(pos) > 1:
        d = pos - here
        limit = reach + radius
        near = np.einsum("ij,ij->i", d, d) <= limit * limit
        near[robot] = False
        if near.any():
            best = np.minimum(best, ray_sphere_distances(origins, dirs, pos[near], radius[near]))
    return np.minimum(best, max_range)


def cast_from_mounts(shapes: tuple, pos: np.ndarray, radius: np.ndarray,
                     requests: list[tuple[int, np.ndarray, np.ndarray, float]]) -> list[np.ndarray]:
    """Mounted sensors' rays: (robot, origin, unit directions (R,3), max range) each, to the nearest
    shape or other robot, max range where nothing is closer."""
    out = []
    for i, o, d, r in requests:
        o = np.asarray(o, dtype=float)
        out.append(cast_among(shapes, pos, radius, i, o, np.repeat(o[None], len(d), axis=0), d, r, r))
    return out
