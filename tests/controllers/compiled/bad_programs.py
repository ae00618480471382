"""Programs that leave the compiled subset, for the refusal tests."""

from typing import ClassVar

import numpy as np

from controllers.compiled import Program
from controllers.compiled.kilolib import record


class UsesADict(Program):
    fields: ClassVar[dict] = {"n": np.int64}

    def loop(s, k):
        heard = {1: (2, 3), "two": 4.0}
        s.n = len(heard)


class UndeclaredRecord(Program):
    fields: ClassVar[dict] = {"n": np.int64}

    def loop(s, k):
        record(k, "speed", 1.0)


class UnknownField(Program):
    fields: ClassVar[dict] = {"n": np.int64}

    def loop(s, k):
        s.m = 3
