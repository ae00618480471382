"""A program that draws from kilolib's rand_soft, compiled and in Python, for the draw tests."""

from typing import ClassVar

import numpy as np

from controllers.compiled import Program
from controllers.compiled.kilolib import RGB, rand_soft, record, set_color, set_motors
from controllers.kilolib import KiloProgram


class Dice(Program):
    """Each loop: a soft random byte, recorded; motors and colour from it."""

    fields: ClassVar[dict] = {"rolls": np.int64}
    records: ClassVar[tuple] = ("draw",)

    def loop(s, k):
        v = rand_soft(k)
        s.rolls += 1
        record(k, "draw", v)
        set_color(k, RGB(v & 3, (v >> 2) & 3, 0))
        set_motors(k, 70 if v & 1 else 0, 70 if v & 2 else 0)


class DicePy(KiloProgram):
    """Dice in Python."""

    def loop(self) -> None:
        v = self.rand_soft()
        self.record("draw", v)
        self.set_color(RGB(v & 3, (v >> 2) & 3, 0))
        self.set_motors(70 if v & 1 else 0, 70 if v & 2 else 0)
