"""Compiled twins of general controllers: `ChainFollowerRobot` is
controllers.case_studies.kilobot.ChainFollower with its callbacks compiled; it gives that controller's
trace bit for bit (tests/controllers/compiled/test_controller.py)."""

from __future__ import annotations

from typing import ClassVar

import numpy as np

from controllers.case_studies.kilobot import ChainParams
from controllers.compiled.controller import CompiledController
from controllers.compiled.core import bearing_to, broadcast, drive, every, normal, range_to, record, uniform


class ChainFollowerRobot(CompiledController):
    """Follows robot id - 1, steering by each message's range and bearing (see ChainFollower); sends
    its id twice a second and records `gap` (m) every 5 s."""

    Params = ChainParams
    period = None
    fields: ClassVar[dict] = {"gap": np.float64}
    payload_bytes: ClassVar[int] = 2
    records: ClassVar[tuple] = ("gap",)
    timers: ClassVar[tuple] = ("transmit", "report")

    def setup(s, k):
        p = k.params
        drive(k, 0.0, 0.0)
        every(k, "transmit", p.message_period, uniform(k) * p.message_period)
        s.gap = np.nan
        every(k, "report", 5.0, np.nan)

    def transmit(s, k):
        row = broadcast(k)
        row[0], row[1] = k.me & 0xFF, (k.me >> 8) & 0xFF

    def report(s, k):
        record(k, "gap", s.gap)

    def on_message(s, k, m):
        if m.src != k.me - 1:
            return
        p = k.params
        d = range_to(k, m.src)
        if p.distance_noise:
            d += normal(k, 0.0, p.distance_noise)
        s.gap = d
        if d < p.follow_distance:
            drive(k, 0.0, 0.0)
            return
        bearing = bearing_to(k, m.src)
        if abs(bearing) < p.aim:
            drive(k, p.forward_speed, 0.0)
        elif bearing > 0:
            drive(k, p.turn_speed, p.turn_rate)
        else:
            drive(k, p.turn_speed, -p.turn_rate)
