"""The scenery's compiled rays and push-outs give the per-shape numpy code's results, bit for bit."""

from __future__ import annotations

import math

import numpy as np
import pytest

from physics.kinematic.raycast import cast_among
from physics.kinematic.scenery import Scenery
from physics.kinematic.world import KinematicWorld
from physics.scene.obstacles import Box, Cylinder, Wall
from physics.world import Arena, RobotSpec

pytestmark = pytest.mark.kernels  # also run bounds-checked: `make test`, NUMBA_BOUNDSCHECK=1


def _scene(seed: int, n_shapes: int) -> tuple:
    rng = np.random.default_rng(seed)
    shapes: list = []
    for _ in range(n_shapes):
        x, y = rng.uniform(-10, 10, 2)
        kind = rng.integers(3)
        if kind == 0:
            shapes.append(Box((x, y, 0.5), tuple(rng.uniform(0.1, 1.5, 3))))
        elif kind == 1:
            a = rng.uniform(0, 2 * math.pi)
            length = rng.uniform(0.5, 4.0)
            shapes.append(Wall((x, y), (x + length * math.cos(a), y + length * math.sin(a)), thickness=rng.uniform(0.05, 0.3)))
        else:
            shapes.append(Cylinder((x, y, 0.5), rng.uniform(0.05, 0.8), rng.uniform(0.3, 2.0)))
    return rng, tuple(shapes)


def _world(rng, shapes: tuple, n: int) -> KinematicWorld:
    w = KinematicWorld(Arena((-12, -12, 0), (12, 12, 3)), collisions=False, obstacles=shapes)
    for _ in range(n):
        w.add_robot(RobotSpec((*rng.uniform(-11, 11, 2), rng.uniform(0.0, 1.2)), radius_m=float(rng.uniform(0.03, 0.3))))
    w.start()
    return w


def _fans(rng, n: int, level: bool) -> list[tuple[int, np.ndarray, float]]:
    out = []
    for i in range(n):
        a = rng.uniform(-math.pi, math.pi, int(rng.integers(1, 25)))
        if level:
            dirs = np.column_stack([np.cos(a), np.sin(a), np.zeros_like(a)])
        else:
            dirs = rng.normal(size=(len(a), 3))
            dirs /= np.linalg.norm(dirs, axis=1)[:, None]
        out.append((i, dirs, float(rng.choice([0.1, 0.5, 2.0, 8.0]))))
    return out


def _per_robot(w: KinematicWorld, requests: list[tuple[int, np.ndarray, float]]) -> list[np.ndarray]:
    """The numpy reference: one robot's rays at a time, shape by shape (physics.kinematic.raycast)."""
    pos, radius = w.positions(), np.asarray([s.radius_m for s in w.specs])
    out = []
    for i, d, r in requests:
        here = pos[i]
        out.append(cast_among(w.obstacles, pos, radius, i, here, here + d * radius[i], d, r + radius[i], r))
    return out


def _push_per_shape(shapes: tuple, pos: np.ndarray, vel: np.ndarray, radius: np.ndarray) -> list[int]:
    """The numpy reference of Scenery.push_out: each shape's own push-out, in the shapes' order."""
    hit: list[int] = []
    for shape in shapes:
        before: list[np.ndarray] = []
        idx = shape.push_out(pos, radius, before)
        if not len(idx):
            continue
        hit.extend(idx.tolist())
        moved = pos[idx] - before[0]
        norm = np.sqrt(np.einsum("ij,ij->i", moved, moved))
        normal = moved / np.maximum(norm, 1e-12)[:, None]
        into = np.einsum("ij,ij->i", vel[idx], normal)
        vel[idx] -= np.minimum(into, 0.0)[:, None] * normal
    return hit


@pytest.mark.parametrize("seed", [1, 2, 3])
@pytest.mark.parametrize("level", [True, False], ids=["level fans", "any direction"])
def test_rays_for_the_whole_swarm_are_the_per_robot_casts(seed, level):
    rng, shapes = _scene(seed, 60)
    w = _world(rng, shapes, 400)
    requests = _fans(rng, 400, level)
    want = _per_robot(w, requests)
    got = w.scenery.cast_requests(w.positions(), np.asarray([s.radius_m for s in w.specs]), requests)
    hits = sum(int((g < r).sum()) for g, (_, _, r) in zip(got, requests))
    assert hits > 200  # shapes and robots are hit, not only max range
    for g, x in zip(got, want):
        assert g.tobytes() == x.tobytes()


def test_the_world_casts_one_robot_or_many_as_the_reference_does():
    rng, shapes = _scene(7, 30)
    w = _world(rng, shapes, 100)
    requests = _fans(rng, 100, True)
    want = [x.tobytes() for x in _per_robot(w, requests)]
    assert [g.tobytes() for g in w.cast_rays_many(requests)] == want
    assert [w.cast_rays(i, d, r).tobytes() for i, d, r in requests] == want
    # a level fan given by its angles: the directions computed in the kernel, the same to the bit
    turned = [w.cast_fan(i, np.arctan2(d[:, 1], d[:, 0]), 0.0, r) for i, d, r in requests]
    dirs = [np.column_stack([np.cos(np.arctan2(d[:, 1], d[:, 0])), np.sin(np.arctan2(d[:, 1], d[:, 0])),
                             np.zeros(len(d))]) for _, d, _ in requests]
    assert [x.tobytes() for x in turned] == [x.tobytes() for x in _per_robot(w, [(i, e, r) for (i, _, r), e in
                                                                                    zip(requests, dirs)])]


@pytest.mark.parametrize("seed", [4, 5])
def test_push_outs_for_the_whole_swarm_are_the_per_shape_ones(seed):
    rng, shapes = _scene(seed, 80)
    pos = np.column_stack([rng.uniform(-11, 11, (2000, 2)), rng.uniform(0.0, 1.5, 2000)])
    vel = rng.normal(size=(2000, 3))
    radius = rng.uniform(0.02, 0.4, 2000)
    s = Scenery(shapes)
    p1, v1, p2, v2 = pos.copy(), vel.copy(), pos.copy(), vel.copy()
    want = _push_per_shape(shapes, p1, v1, radius)
    got = s.push_out(p2, v2, radius)
    assert len(want) > 300 and len(set(want)) < len(want)  # many pushes, some robots pushed twice
    assert got == want
    assert p2.tobytes() == p1.tobytes() and v2.tobytes() == v1.tobytes()


def test_robots_where_no_shape_is_are_left_alone_and_odd_positions_pass_through():
    s = Scenery((Box((0.0, 0.0, 0.5), (1.0, 1.0, 1.0)),))
    pos = np.array([[5.0, 5.0, 0.5], [math.nan, 0.0, 0.5], [math.inf, 0.0, 0.5], [0.1, 0.0, 0.5]])
    vel = np.zeros_like(pos)
    p1, p2 = pos.copy(), pos.copy()
    assert _push_per_shape(s.shapes, p1, vel.copy(), np.full(4, 0.1)) == [3]
    assert s.push_out(p2, vel.copy(), np.full(4, 0.1)) == [3]
    assert p1.tobytes() == p2.tobytes()
