"""The per-call parts a compiled robot borrows: its stream as a typed list (the generator itself, so
compiled draws advance the robot's own stream) and the record buffers, one set per thread."""

from __future__ import annotations

import threading
from dataclasses import dataclass

import numpy as np
from numba import njit

from controllers.compiled.codegen import program_module
from controllers.compiled.examples import Follower
from controllers.compiled.program import params_record
from controllers.compiled.scratch import record_buffers
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


def test_record_buffers_are_one_set_per_thread():
    mine = record_buffers()
    assert record_buffers() is mine and mine[0].shape == (4096, 3) and mine[2].shape == (1,)
    seen = []
    worker = threading.Thread(target=lambda: seen.append(record_buffers()))
    worker.start()
    worker.join()
    assert seen[0] is not mine and seen[0][0] is not mine[0]


@dataclass(frozen=True)
class Knobs:
    gain: float = 1.0
    steps: int = 3
    on: bool = True


def test_params_records_keep_each_values_type_and_are_not_shared():
    as_float, as_int = params_record(Knobs(gain=1.0)), params_record(Knobs(gain=1))  # equal dataclasses
    assert as_float.dtype["gain"] == np.float64 and as_int.dtype["gain"] == np.int64
    assert as_float.dtype["steps"] == np.int64 and as_float.dtype["on"] == np.bool_
    again = params_record(Knobs(gain=1.0))
    assert again is not as_float and again.tobytes() == as_float.tobytes()
    again[0]["steps"] = 9
    assert params_record(Knobs(gain=1.0))[0]["steps"] == 3


def test_a_class_entry_points_are_generated_once_per_process():
    assert program_module(Follower) is program_module(Follower)
