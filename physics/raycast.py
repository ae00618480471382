"""Analytic ray casting for the kinematic world: rays against axis-aligned boxes and spheres."""

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
