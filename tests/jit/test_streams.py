"""Random streams as typed lists (jit.streams): the generator itself, so compiled draws advance the
same stream numpy's draws do, one list per robot joined in order."""

from __future__ import annotations

import numpy as np
from numba import njit

from jit.streams import joined, own_stream


@njit(cache=True)
def _draw(gens):
    return gens[0].random()


def test_the_typed_list_holds_the_generator_itself():
    rng, twin = np.random.default_rng(7), np.random.default_rng(7)
    first, second = own_stream(rng), own_stream(rng)  # the second call takes the machine code directly
    assert len(first) == len(second) == 1
    drawn = [_draw(first), _draw(second), float(rng.random())]
    assert drawn == [float(x) for x in twin.random(3)]  # one stream, advanced by compiled and Python draws alike


@njit(cache=True)
def _draw_at(gens, i):
    return gens[i].random()


def test_joined_streams_keep_each_robots_generator_in_order():
    rngs = [np.random.default_rng(seed) for seed in (3, 4, 5)]
    twins = [np.random.default_rng(seed) for seed in (3, 4, 5)]
    for _ in range(2):  # the first call compiles; the second takes the machine code directly
        out = joined([own_stream(r) for r in rngs])
        assert len(out) == 3
        assert [_draw_at(out, i) for i in (2, 0, 1)] == [float(twins[i].random()) for i in (2, 0, 1)]
    idle = own_stream(np.random.default_rng(0))
    shared = joined([idle, own_stream(rngs[1]), idle])  # one stream may stand for several robots
    _draw_at(shared, 0)
    assert _draw_at(shared, 2) == float(np.random.default_rng(0).random(2)[1])
