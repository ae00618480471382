"""Controllers whose optional parts misbehave, for tests/cosim/execution/test_execute.py."""

from __future__ import annotations

import os
from typing import Any

import numpy as np

from controllers import Controller, GroupController
from controllers.library.random_walk import RandomWalk


class OddStates(RandomWalk):
    """Robot i's save_state(): a set, a raise, NaN, bytes, or a good dict, by i modulo 5."""

    def save_state(self) -> Any:
        kind = self.id % 5
        if kind == 1:
            raise RuntimeError("cannot say")
        return [{1, 2}, None, {"x": float("nan")}, b"raw", {"steps": self.id}][kind]


class RecordsAnInt(RandomWalk):
    def step(self) -> None:
        super().step()
        self.record(42, 1.0)


class RecordsText(RandomWalk):
    def step(self) -> None:
        super().step()
        self.record("speed", "1.5")


class GroupRecordsText(GroupController):
    period = 0.1

    def step(self) -> None:
        self.group.record("speed", np.array(["fast"] * len(self.group.ids)))


class LeavesTheFolder(RandomWalk):
    def setup(self) -> None:
        super().setup()
        os.chdir("/")


class WritesPoses(RandomWalk):
    """Writes NaN into the poses it is handed to read."""

    def step(self) -> None:
        if self.now > 0.25:  # once positions are in the trace
            pos, _ = self.net.poses()
            pos[self.id] = np.nan


class GroupWritesPositions(GroupController):
    period = 0.1

    def step(self) -> None:
        if self.now > 0.25:
            self.group.positions()[:, 0] = np.nan


class GroupFails(GroupController):
    period = 0.1

    def step(self) -> None:
        raise ValueError("no plan")


class BadConstructor(RandomWalk):
    def __init__(self, params: Any = None) -> None:
        raise RuntimeError("cannot start")


class Exits(RandomWalk):
    def step(self) -> None:
        super().step()
        if self.now > 0.25:
            raise SystemExit(3)


class RangesToMinusOne(RandomWalk):
    def step(self) -> None:
        self.net.range_to(-1)


class FasterThanLight(RandomWalk):
    def step(self) -> None:
        self.robot.set_velocity(1e308, 0.0, 0.0)


class GroupFasterThanLight(GroupController):
    period = 0.1

    def step(self) -> None:
        self.group.set_velocity(np.full(len(self.group.ids), 1e308))


class NeverReturns(RandomWalk):
    def step(self) -> None:
        super().step()
        while self.id == 3 and self.now > 0.25:
            pass


class SpeedInWords(RandomWalk):
    def step(self) -> None:
        self.robot.set_velocity("fast", 0.0, 0.0)


class RangeToHalf(RandomWalk):
    def step(self) -> None:
        self.net.range_to(1.5)


class EveryFive(Controller):
    def setup(self) -> None:
        self.every(1.0, 5)
