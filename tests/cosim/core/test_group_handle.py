"""A group's commands refuse numbers that are not finite: the run fails naming the command, and no
NaN reaches the physics or the trace."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pyarrow.parquet as pq
import pytest

from controllers.api.group import GroupController
from tests.conftest import base_scenario


class NaNGroup(GroupController):
    """Drives every robot, then gives robot 3 a NaN velocity at t = 0.5 s."""

    period = 0.1

    def step(self) -> None:
        vx = np.ones(self.group.n)
        if self.now >= 0.5:
            vx[3] = math.nan
        self.group.set_velocity(vx)


class InfiniteTurnGroup(GroupController):
    period = 0.1

    def step(self) -> None:
        self.group.turn(np.full(self.group.n, math.inf))


def test_a_nan_velocity_from_a_group_fails_the_run_naming_the_command(run_dict):
    data = base_scenario(duration=1.0)
    data["groups"][0]["controller"] = {"class": "tests.cosim.core.test_group_handle:NaNGroup"}
    result = run_dict(data)
    assert result.status == "failed"
    assert "group.set_velocity: vx must be a finite number" in result.error and "t = 0.5" in result.error


def test_an_infinite_turn_from_a_group_fails_the_run(run_dict):
    data = base_scenario(duration=1.0)
    data["groups"][0]["controller"] = {"class": "tests.cosim.core.test_group_handle:InfiniteTurnGroup"}
    result = run_dict(data)
    assert result.status == "failed" and "group.set_heading (or turn): heading must be a finite number" in result.error


class BadCall(GroupController):
    """Makes the one call named by its params at its first step."""

    @dataclass(frozen=True)
    class Params:
        call: str = ""

    period = 0.1

    def step(self) -> None:
        g = self.group
        calls = {
            "fraction": lambda: g.broadcast(np.array([0.5]), b"x"),
            "past_the_group": lambda: g.set_velocity(1.0, idx=np.array([g.n])),
            "negative": lambda: g.record("x", 1.0, idx=np.array([-1])),
            "short_mask": lambda: g.turn(0.1, idx=np.array([True, False])),
            "shape": lambda: g.set_velocity(np.zeros(3)),
        }
        calls[self.params.call]()


class MaskedGroup(GroupController):
    period = 0.1

    def step(self) -> None:
        mask = np.zeros(self.group.n, dtype=bool)
        mask[[1, 4]] = True
        self.group.record("picked", 1.0, idx=mask)


@pytest.mark.parametrize(("call", "message"), [
    ("fraction", "idx must be integer indices 0..19 into the group (or a boolean mask), got float64 values"),
    ("past_the_group", "idx must be indices 0..19 into the group, got values in 20..20"),
    ("negative", "idx must be indices 0..19 into the group, got values in -1..-1"),
    ("short_mask", "idx: a boolean mask needs one entry per robot of the group (20), got shape (2,)"),
    ("shape", "group.set_velocity: vx must be one number or one per robot (20), got shape (3,)"),
])
def test_robot_indices_and_shapes_that_numpy_would_bend_are_refused(run_dict, call, message):
    data = base_scenario(duration=0.5)
    data["groups"][0]["controller"] = {"class": "tests.cosim.core.test_group_handle:BadCall", "params": {"call": call}}
    result = run_dict(data)
    assert result.status == "failed" and message in result.error and "in BadCall.step" in result.error


def test_a_boolean_mask_picks_those_robots(run_dict):
    data = base_scenario(duration=0.2)
    data["groups"][0]["controller"] = {"class": "tests.cosim.core.test_group_handle:MaskedGroup"}
    result = run_dict(data)
    assert result.status == "ok"
    records = pq.read_table(result.directory / "trace" / "records.parquet").to_pydict()
    assert sorted(set(records["node"])) == [1, 4]
