"""A group's commands refuse numbers that are not finite: the run fails naming the command, and no
NaN reaches the physics or the trace."""

from __future__ import annotations

import math

import numpy as np

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
