"""The answer's text (cosim.mavlink.sitl.json_wire.state_text) is, byte for byte, what json.dumps writes,
finite or not: the firmware's parser and the run's repeatability see no difference."""

from __future__ import annotations

import json
import math

import numpy as np

from cosim.mavlink.sitl.json_wire import State, parse_state, state_text


def _json(v: list[float]) -> bytes:
    gyro, accel, position, velocity, attitude = (v[k:k + 3] for k in range(1, 16, 3))
    body = {"timestamp": v[0], "imu": {"gyro": gyro, "accel_body": accel}, "position": position, "velocity": velocity,
            "attitude": attitude}
    return b"\n" + json.dumps(body, separators=(",", ":")).encode() + b"\n"


def test_the_answer_text_is_json_dumps_to_the_byte():
    rng = np.random.default_rng(5)
    scales = np.array([1e-300, 1e-9, 1.0, 1e3, 1e20, 5e-324])
    for _ in range(3000):
        v = (rng.normal(size=16) * rng.choice(scales, size=16)).tolist()
        v[rng.integers(16)] = [0.0, -0.0, 1.0][rng.integers(3)]
        assert state_text(v) == _json(v)
    for bad in ([math.nan] + [0.0] * 15, [0.0] * 15 + [math.inf], [math.inf, -math.inf] + [1.0] * 14, [1e308] * 16):
        assert state_text(bad) == _json(bad)  # NaN, Infinity, and an overflowing sum all as json.dumps writes them


def test_a_state_reads_back_as_it_was_written():
    s = State(12.5, (0.1, -0.2, 0.3), (0.0, 0.5, -9.81), (1.0, 2.0, -3.0), (0.25, 0.0, -0.5), (0.01, -0.02, 1.5))
    assert parse_state(s.encode()) == s


def test_a_state_of_numpy_numbers_is_written_as_of_floats():
    s = State(np.float64(1.5), *[tuple(np.array([0.5, -0.0, 2.0]))] * 5)
    assert s.encode() == _json([1.5] + [0.5, -0.0, 2.0] * 5)
