"""Compiled twins of group controllers: `ChainFollowerCompiled` is
controllers.case_studies.kilobot_group.ChainFollowerGroup with its step compiled; it gives that
controller's trace bit for bit (tests/controllers/compiled/test_group.py)."""

from __future__ import annotations

import math
from typing import ClassVar

import numpy as np

from controllers.case_studies.kilobot import ChainParams
from controllers.case_studies.kilobot_group import KILOMBO_TICK
from controllers.compiled.group import CompiledGroup, bearing_to, broadcast, drive, range_to


class ChainFollowerCompiled(CompiledGroup):
    """Each robot follows the robot whose node id is one below its own (see ChainFollowerGroup)."""

    Params = ChainParams
    period = KILOMBO_TICK
    fields: ClassVar[dict] = {"next_tx": np.float64, "gap": np.float64, "motion_v": np.float64, "motion_w": np.float64}
    payload_bytes: ClassVar[int] = 2

    def setup(self) -> None:
        g = self.group
        p = self.params
        s = self.state
        s["next_tx"] = [float(g.robot_rng(i).random()) * p.message_period for i in range(g.n)]
        s["gap"] = np.nan
        g.drive(s["motion_v"], s["motion_w"])
        self.every(5.0, lambda: self.group.record("gap", self.state["gap"]), phase=5.0)

    def tick(s, k):
        p = k.params
        n = len(s)
        last = np.full(n, -1)
        for r in range(len(k.in_dst)):  # each robot's last message from its predecessor
            if k.in_src[r] == k.me + k.in_dst[r] - 1:
                last[k.in_dst[r]] = r
        for i in range(n):
            if last[i] < 0:
                continue
            src = k.in_src[last[i]]
            d = range_to(k, i, src)
            s[i].gap = d
            bearing = bearing_to(k, i, src)
            ahead = abs(bearing) < p.aim
            if d < p.follow_distance:
                v = 0.0
                w = 0.0
            elif ahead:
                v = p.forward_speed
                w = 0.0
            else:
                v = p.turn_speed
                w = p.turn_rate if bearing > 0 else -p.turn_rate
            if v != s[i].motion_v or w != s[i].motion_w:
                drive(k, i, v, w)
            s[i].motion_v = v
            s[i].motion_w = w
        for i in range(n):
            if s[i].next_tx <= k.now and k.alive[i]:
                s[i].next_tx += p.message_period * math.ceil((k.now - s[i].next_tx) / p.message_period + 1e-12)
                row = broadcast(k, i)  # its node id, two bytes little-endian
                row[0] = (k.me + i) & 0xFF
                row[1] = ((k.me + i) >> 8) & 0xFF
