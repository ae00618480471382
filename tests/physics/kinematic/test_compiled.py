"""The kinematic world's compiled latch and step (one call) give its kernel-by-kernel step's results
(the step worlds with quadrotors or omnidirectional robots take), bit for bit."""

from __future__ import annotations

import math

import numpy as np
import pytest

from physics.bodies.diff_drive import DriveSpec
from physics.kinematic import compiled as kc
from physics.kinematic.world import KinematicWorld
from physics.scene.obstacles import Cylinder, Wall
from physics.world import Arena, Box, RobotSpec

pytestmark = pytest.mark.kernels  # also run bounds-checked: `make test`, NUMBA_BOUNDSCHECK=1

SCENERY = (Box((3, 0, 0.5), (1, 1, 1)), Cylinder((-2, 2, 0.5), 0.4, 1.0), Wall((-4, -3), (4, -3), height=1.0, thickness=0.1),
           Box((0, 4, 0.5), (0.5, 0.5, 1)))


def _world(compiled: bool, drives: bool, obstacles: tuple, max_accel: float, monkeypatch) -> KinematicWorld:
    rng = np.random.default_rng(3)
    w = KinematicWorld(Arena((-5, -5, 0), (5, 5, 2)), max_accel=max_accel, obstacles=obstacles)
    for k in range(90):
        xy = rng.uniform(-4.5, 4.5, 2)
        drive = DriveSpec(wheel_base=0.14, max_wheel_speed=0.8, max_accel=3.0) if drives and k % 3 else None
        w.add_robot(RobotSpec((xy[0], xy[1], 0.1), heading=float(rng.uniform(-3, 3)), radius_m=0.12, max_speed=1.0,
                              drive=drive))
    with monkeypatch.context() as m:
        if not compiled:
            m.setattr(KinematicWorld, "_compiled_step", lambda self: None)
        w.start()
    return w


def _command(w: KinematicWorld, rng: np.random.Generator, step: int) -> None:
    """What controllers do between latches: velocities, headings, wheel commands, a death now and then."""
    n = w.n
    pick = rng.random(n) < 0.3
    w.cmd_vel[pick] = rng.normal(0, 0.8, (int(pick.sum()), 3)) * [1, 1, 0]
    w.cmd_heading[pick] = rng.uniform(-math.pi, math.pi, int(pick.sum()))
    wheeled = (w.drive_slot >= 0) & (rng.random(n) < 0.15)
    for i in np.nonzero(wheeled)[0].tolist():
        w.drive(i, None) if rng.random() < 0.3 else w.drive(i, float(rng.normal(0, 0.5)), float(rng.normal(0, 2)))
    if step % 97 == 50:
        w.kill(int(rng.integers(n)))


def _state(w: KinematicWorld) -> list[np.ndarray]:
    d = [w.drives.wheels, w.drives.pos, w.drives.heading] if w.drives is not None else []
    return [w.positions(), w.velocities(), w.headings(), w.active_vel, w.cmd_heading, *d]


def _same(worlds: list[KinematicWorld], step: int) -> None:
    for x, y in zip(_state(worlds[0]), _state(worlds[1])):
        assert np.array_equal(x.view(np.uint8), y.view(np.uint8)), step


@pytest.mark.parametrize("drives, obstacles, max_accel", [(True, SCENERY, math.inf), (True, (), 2.5), (True, SCENERY, 2.5),
                                                          (False, SCENERY, 4.0), (False, (), math.inf)])
def test_compiled_step_is_the_kernel_by_kernel_one(drives, obstacles, max_accel, monkeypatch):
    calls = []
    run = kc.run
    monkeypatch.setattr(kc, "run", lambda *a: calls.append(1) or run(*a))
    worlds = [_world(c, drives, obstacles, max_accel, monkeypatch) for c in (True, False)]
    rngs = [np.random.default_rng(11), np.random.default_rng(11)]
    for step in range(400):
        for w, rng in zip(worlds, rngs):
            if step % 10 == 0:
                _command(w, rng, step)
            w.latch()
        _same(worlds, step)  # what a sensor sees between the latch and the step
        for w in worlds:
            w.step(0.01)
        _same(worlds, step)
    assert len(calls) == 400  # the first world took the compiled step at every step, the second never
    moved = np.abs(worlds[0].positions() - _world(True, drives, obstacles, max_accel, monkeypatch).positions())
    assert (moved.max(axis=1) > 0.05).sum() > 30  # robots really moved


def test_contacts_and_external_robots_take_the_numpy_driven_step(monkeypatch):
    calls = []
    monkeypatch.setattr(kc, "run", lambda *a: calls.append(1))
    w = _world(True, True, SCENERY, math.inf, monkeypatch)
    w.want_contacts()
    w.step(0.01)
    w.run_steps(0.01, 3)
    w.track_contacts = False
    w.make_external([0])
    w.step(0.01)
    w.run_steps(0.01, 3)
    assert calls == []


@pytest.mark.parametrize("drives, obstacles", [(True, SCENERY), (False, ())])
def test_a_quiet_stretch_is_its_steps_one_by_one(drives, obstacles, monkeypatch):
    """run_steps(dt, m) in one compiled call gives the kernel-by-kernel world's m latches and steps,
    whatever m; the pair search's Verlet list carries over from call to call."""
    calls = []
    run = kc.run
    monkeypatch.setattr(kc, "run", lambda *a: calls.append(a[0]) or run(*a))
    worlds = [_world(c, drives, obstacles, 2.5, monkeypatch) for c in (True, False)]
    rngs = [np.random.default_rng(5), np.random.default_rng(5)]
    lengths = np.random.default_rng(8).integers(1, 12, 60).tolist()
    for k, m in enumerate(lengths):
        for w, rng in zip(worlds, rngs):
            _command(w, rng, 10 * k)
        worlds[0].run_steps(0.01, m)
        for _ in range(m):
            worlds[1].latch()
            worlds[1].step(0.01)
        _same(worlds, k)
        assert worlds[0].t_s == worlds[1].t_s
    assert calls == lengths
