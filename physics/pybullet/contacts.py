"""The contacts of one pybullet engine step: which robots touch what, and how fast quadrotors hit.

What a robot stands or drives on (the ground plane or the terrain) is no contact for `contacts()`
(bump sensors, contact events), as in the kinematic world, where a robot on the ground touches
nothing; it still counts as an impact for the quadrotors' crash rule (a touch-down).
"""

from __future__ import annotations

import numpy as np


def step_contacts(p, cid: int, robot_of: dict[int, int], floor: int) -> tuple[set[tuple[int, int]], set[tuple[int, int]]]:
    """Every (robot, other robot or -1) pair touching after one engine step, in one pybullet call;
    and the pairs of those that touch something besides the floor body (-1: none)."""
    every: set[tuple[int, int]] = set()
    off_floor: set[tuple[int, int]] = set()
    for c in p.getContactPoints(physicsClientId=cid):
        body_a = c[1]
        body_b = c[2]
        a = robot_of.get(body_a)
        b = robot_of.get(body_b)
        for me, other, other_body in ((a, b, body_b), (b, a, body_a)):
            if me is not None:
                pair = (me, -1 if other is None else other)
                every.add(pair)
                if other_body != floor:
                    off_floor.add(pair)
    return every, off_floor


def note_impacts(touched: set[tuple[int, int]], quad_slot: np.ndarray, vel: np.ndarray,
                 impacts: dict[tuple[int, int], float]) -> None:
    """Each quadrotor contact of one engine step with the vehicle's speed before it (the fastest
    over the physics step's engine steps), into `impacts`."""
    for me, other in touched:
        slot = quad_slot[me]
        if slot >= 0:
            speed = float(np.sqrt(vel[slot] @ vel[slot]))
            impacts[(me, other)] = max(speed, impacts.get((me, other), 0.0))
