"""The kept list of pairs that may touch gives a fresh search's pairs at every step, rebuilt only when
robots have moved far, and the same answer when a crowd does not fit in it."""

from __future__ import annotations

import numpy as np
import pytest

from physics.kinematic.verlet import Verlet, touching, verlet_of
from tests.physics.kinematic import pairs_reference as reference

pytestmark = pytest.mark.kernels  # also run bounds-checked: `make test`, NUMBA_BOUNDSCHECK=1


@pytest.mark.parametrize("speed", [0.001, 0.05])
def test_the_list_follows_moving_robots(speed):
    rng = np.random.default_rng(4)
    pos = rng.uniform(0, 6, (300, 3)) * [1, 1, 0]
    v = verlet_of(300)
    found = 0
    for step in range(200):
        pos += rng.normal(0, speed, pos.shape) * [1, 1, 0]
        pairs = touching(v, pos, 0.34)
        assert np.array_equal(pairs, reference.brute_pairs(pos, 0.34)), step
        found += len(pairs)
    assert found > 200 * 50
    assert v.state[1] == 1
    assert (v.state[2] < 5) if speed < 0.01 else (v.state[2] > 50)


def test_a_jump_rebuilds_the_list():
    rng = np.random.default_rng(11)
    pos = rng.uniform(0, 12, (400, 3)) * [1, 1, 0]
    v = verlet_of(400)
    touching(v, pos, 0.5)
    touching(v, pos, 0.5)
    assert v.state[2] == 1  # nobody moved: kept
    pos[0] += 5.0  # a teleported robot
    assert np.array_equal(touching(v, pos, 0.5), reference.brute_pairs(pos, 0.5))
    assert v.state[2] == 2


def test_a_crowd_too_big_for_the_list_is_searched_afresh_with_the_same_answer():
    rng = np.random.default_rng(5)
    pos = rng.normal(0, 0.3, (200, 3)) * [1, 1, 0]
    small = Verlet(np.zeros((200, 3)), np.zeros((10, 2), np.int64), np.zeros(3, np.int64))
    for _ in range(3):
        pos += rng.normal(0, 0.001, pos.shape) * [1, 1, 0]
        want = reference.brute_pairs(pos, 0.1)
        assert len(want) > 10
        assert np.array_equal(touching(small, pos, 0.1), want)
        assert small.state[1] == 0  # never kept: rebuilt at every call
    assert small.state[2] == 3


def test_no_reach_or_a_single_robot_touches_nothing():
    assert len(touching(verlet_of(5), np.zeros((5, 3)), 0.0)) == 0
    assert len(touching(verlet_of(1), np.zeros((1, 3)), 1.0)) == 0
