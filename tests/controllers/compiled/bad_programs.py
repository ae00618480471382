"""Programs that leave the compiled subset, for the refusal tests, and small compiled groups that probe
the group helpers."""

from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from controllers.compiled import CompiledController, Program, core
from controllers.compiled.group import CompiledGroup, broadcast, send, set_velocity
from controllers.compiled.group import drive as group_drive
from controllers.compiled.group import record as group_record
from controllers.compiled.kilolib import record, set_motors


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


class GroupUsesADict(CompiledGroup):
    fields: ClassVar[dict] = {"n": np.int64}

    def tick(s, k):
        heard = {1: (2, 3), "two": 4.0}
        s[0].n = len(heard)


class GroupUnknownField(CompiledGroup):
    fields: ClassVar[dict] = {"n": np.int64}

    def tick(s, k):
        s[0].m = 3


class Chirper(CompiledGroup):
    """Broadcasts three bytes (7, 8, 9) every step."""

    payload_bytes: ClassVar[int] = 3
    period = 0.1

    def tick(s, k):
        for i in range(len(s)):
            row = broadcast(k, i)
            row[0], row[1], row[2] = 7, 8, 9


class Listener(CompiledGroup):
    """Keeps the length and the two bytes it reads of the last message each robot heard."""

    fields: ClassVar[dict] = {"length": np.int64, "first": np.int64, "second": np.int64, "heard": np.int64}
    payload_bytes: ClassVar[int] = 2
    period = 0.1

    def tick(s, k):
        for r in range(len(k.in_dst)):
            i = k.in_dst[r]
            s[i].length, s[i].first, s[i].second = k.in_len[r], k.in_payload[r, 0], k.in_payload[r, 1]
            s[i].heard += 1


class ControllerUsesADict(CompiledController):
    period = 0.1
    fields: ClassVar[dict] = {"n": np.int64}

    def step(s, k):
        heard = {1: (2, 3), "two": 4.0}
        s.n = len(heard)


class ControllerUnknownField(CompiledController):
    period = 0.1
    fields: ClassVar[dict] = {"n": np.int64}

    def step(s, k):
        s.count = 1


class ControllerUndeclaredRecord(CompiledController):
    period = 0.1

    def step(s, k):
        core.record(k, "altitude_ok", 1.0)


class ControllerUnlistedTimer(CompiledController):
    period = None

    def setup(s, k):
        core.every(k, "nap", 1.0, 0.0)


class GroupPinger(CompiledGroup):
    """Each step every robot sends its three bytes to node 0, moves at 0.1 m/s per robot index + 1 and
    records how many steps it took."""

    fields: ClassVar[dict] = {"count": np.int64}
    payload_bytes: ClassVar[int] = 3
    records: ClassVar[tuple] = ("steps_taken",)
    period = 0.1

    def tick(s, k):
        for i in range(len(s)):
            s[i].count += 1
            row = send(k, i, 0)
            row[0], row[1], row[2] = 7, 8, 9
            set_velocity(k, i, 0.1 * (i + 1), 0.0, 0.0)
            group_record(k, i, "steps_taken", s[i].count)


@dataclass(frozen=True)
class MisfitParams:
    command: int = 0
    """0: drive (refused on robots without wheels); 1: climb (refused on wheels); 2: a NaN speed."""


class GroupMisfit(CompiledGroup):
    """Gives its robots, at its first step, a command their bodies cannot take (see MisfitParams)."""

    Params = MisfitParams
    period = 0.1

    def tick(s, k):
        for i in range(len(s)):
            if k.params.command == 0:
                group_drive(k, i, 0.1, 0.0)
            else:
                set_velocity(k, i, 0.1, 0.0, 0.2 if k.params.command == 1 else np.nan)


class Chatter(CompiledGroup):
    """Each step: even rows send to node 0, odd rows broadcast, then row 0 broadcasts a second time; each
    message carries its row and a byte drawn from the group's stream, which is also recorded."""

    payload_bytes: ClassVar[int] = 2
    records: ClassVar[tuple] = ("draw",)
    period = 0.1

    def tick(s, k):
        for i in range(len(s)):
            row = send(k, i, 0) if i % 2 == 0 else broadcast(k, i)
            row[0], row[1] = i, int(core.uniform(k) * 256)
            group_record(k, i, "draw", row[1])
        row = broadcast(k, 0)
        row[0] = 99


class Napper(CompiledController):
    """Declares the timer `nap_group` (so that the name is known to compiled code)."""

    period = None
    timers: ClassVar[tuple] = ("nap_group",)

    def nap_group(s, k):
        pass


class GroupStartsATimer(CompiledGroup):
    period = 0.1

    def tick(s, k):
        core.every(k, "nap_group", 1.0, 0.0)


class GroupSetsMotors(CompiledGroup):
    """Calls kilolib's set_motors, which moves only a kilolib program's robot."""

    period = 0.1

    def tick(s, k):
        set_motors(k, 255, 255)


class ControllerPrints(CompiledController):
    period = 0.1
    fields: ClassVar[dict] = {"n": np.int64}

    def step(s, k):
        s.n += 1
        print("step", s.n)


class GroupPrints(CompiledGroup):
    def tick(s, k):
        print(k.now)


class ProgramPrints(Program):
    def loop(s, k):
        print(1)


class UsesSelf(Program):
    """Writes its state through `self`, as a Python controller would (a compiled callback's is `s`)."""

    fields: ClassVar[dict] = {"n": np.int64}

    def loop(s, k):
        self.n = 3  # noqa: F821


class RecordTypo(Program):
    """Records under a misspelt name."""

    fields: ClassVar[dict] = {"n": np.int64}
    records: ClassVar[tuple] = ("speed",)

    def loop(s, k):
        record(k, "sped", 1.0)


class GroupRecordTypo(CompiledGroup):
    """A group step recording under a name its `records` does not list."""

    records: ClassVar[tuple] = ("gap",)

    def tick(s, k):
        group_record(k, 0, "gaps", 1.0)
