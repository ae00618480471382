"""Compiled twins of general controllers: `ChainFollowerRobot` is
controllers.case_studies.kilobot.ChainFollower with its callbacks compiled (acting at each message),
`TickedChainFollowerRobot` is TickedChainFollower (acting at each control step); each gives its Python
twin's trace bit for bit (tests/controllers/compiled/test_controller.py)."""

from __future__ import annotations

import math
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
        row[0] = k.me & 0xFF
        row[1] = (k.me >> 8) & 0xFF

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


class TickedChainFollowerRobot(CompiledController):
    """TickedChainFollower compiled: steers at each of Kilombo's loop ticks by the last message from its
    predecessor (range and bearing measured at the tick), and transmits at the first tick at or after
    its message time; records `gap` (m) every 5 s from 5 s on."""

    Params = ChainParams
    period = 0.03225
    fields: ClassVar[dict] = {"next_tx": np.float64, "gap": np.float64, "last": np.int64}
    payload_bytes: ClassVar[int] = 2
    records: ClassVar[tuple] = ("gap",)
    timers: ClassVar[tuple] = ("report",)

    def setup(s, k):
        drive(k, 0.0, 0.0)
        s.next_tx = uniform(k) * k.params.message_period
        s.gap = np.nan
        s.last = -1
        every(k, "report", 5.0, 5.0)

    def report(s, k):
        record(k, "gap", s.gap)

    def on_message(s, k, m):
        if m.src == k.me - 1:
            s.last = m.src

    def step(s, k):
        p = k.params
        if s.last >= 0:
            src = s.last
            s.last = -1
            d = range_to(k, src)
            s.gap = d
            bearing = bearing_to(k, src)
            if d < p.follow_distance:
                drive(k, 0.0, 0.0)
            elif abs(bearing) < p.aim:
                drive(k, p.forward_speed, 0.0)
            else:
                drive(k, p.turn_speed, p.turn_rate if bearing > 0 else -p.turn_rate)
        if s.next_tx <= k.now:
            s.next_tx += p.message_period * math.ceil((k.now - s.next_tx) / p.message_period + 1e-12)
            row = broadcast(k)
            row[0] = k.me & 0xFF
            row[1] = (k.me >> 8) & 0xFF
