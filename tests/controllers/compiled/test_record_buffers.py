"""The per-call parts a compiled robot borrows: the record buffers, one set per thread; its
parameters as a record; its entry points, generated once."""

from __future__ import annotations

import threading
from dataclasses import dataclass

import numpy as np

from controllers.case_studies.kilolib_programs_compiled import Follower
from controllers.compiled.codegen import program_module
from controllers.compiled.program import params_record
from controllers.compiled.record_buffers import record_buffers


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
