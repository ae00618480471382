"""`FlockCoverage`: a leader-follower flock of camera quadrotors scouting a rectangle (paper 003,
section IV), re-covering the strip of a member that fails.

The area is a rectangle (`area_center`, `area_size` = length along `area_heading` and width
across it). The flock flies line abreast: robot k holds a slot `k` footprints across, so one pass
photographs a swath of `swarm_size` footprints; passes alternate direction (a lawnmower). The
leader (id 0) moves the formation's reference point along the plan and beacons it; followers fly to
their slot about it and beacon their own position. The leader keeps the coverage map (cells seen
by anyone's camera, from its own position and the beacons) and records `coverage` (fraction of the
area) every 2 s. A follower silent for `failure_timeout` is declared failed (`failure_detected`);
the leader then appends passes that put its own camera over the failed slot's strip, from the pass
where it failed to the last. Records `mission_done` when the plan ends.
"""

from __future__ import annotations

import math
import struct
from dataclasses import dataclass

import numpy as np

from controllers import Controller, Message

LEAD_BEACON = struct.Struct("<4sfffH")  # magic, reference x, y, lane heading, pass
FOLLOW_BEACON = struct.Struct("<4sHff")  # magic, id, x, y


def slot(k, swarm_size: int, footprint: float):
    """Robot k's camera offset across the passes (m), for one id or an array of them: ids run against
    the across direction so that robots starting on a line along x reach their slots without crossing paths."""
    return ((swarm_size - 1) / 2.0 - k) * footprint


def follower_target(ref: np.ndarray, offset, across: np.ndarray, lane, speed: float) -> tuple:
    """Where a follower flies (x, y): its slot `offset` across from the leader's reference point
    `ref`, half a second ahead along the lane heading at the flock's speed. For one follower (ref of
    shape (2,)) or many (rows of ref, offsets and lanes)."""
    ahead = speed * 0.5
    return (ref[..., 0] + offset * across[0] + ahead * np.cos(lane),
            ref[..., 1] + offset * across[1] + ahead * np.sin(lane))


class FlockCoverage(Controller):
    @dataclass(frozen=True)
    class Params:
        swarm_size: int = 10
        area_center: tuple[float, float] = (50.0, 50.0)
        area_size: tuple[float, float] = (80.0, 100.0)
        area_heading: float = 60.0
        """Degrees, counter-clockwise from east: the direction passes are flown in."""
        footprint: float = 6.0
        """Width (m) of ground one camera photographs; slots are this far apart."""
        altitude: float = 10.0
        speed: float = 3.0
        takeoff_time: float = 6.0
        beacon_period: float = 0.5
        failure_timeout: float = 3.0
        recover: bool = True
        cell: float = 2.0

        def __post_init__(self) -> None:
            if self.swarm_size < 1 or min(self.footprint, self.altitude, self.speed, self.cell) <= 0:
                raise ValueError("swarm_size >= 1; footprint, altitude, speed and cell must be > 0")
            if min(self.area_size) <= 0:
                raise ValueError("area_size must be positive")

    period = 0.1

    def setup(self) -> None:
        p = self.params
        th = math.radians(p.area_heading)
        self.u = np.array([math.cos(th), math.sin(th)])  # along the passes
        self.v = np.array([-math.sin(th), math.cos(th)])  # across them
        self.c = np.array(p.area_center, dtype=float)
        self.slot = slot(self.id, p.swarm_size, p.footprint)
        here = self.robot.position
        self.home = np.array([float(here[0]), float(here[1])])
        self.ref = self.home - self.slot * self.v
        self.lane_heading = math.atan2(self.u[1], self.u[0])
        self.pass_index = 0
        self.robot.fly("position", float(here[0]), float(here[1]), p.altitude)
        if self.id == 0:
            self._lead_setup()
        else:
            self.heard_leader = False
            self.every(p.beacon_period, self._follower_beacon, phase=float(self.rng.uniform(0, p.beacon_period)))

    # -- leader: the plan, the map, failures ------------------------------------------------------
    def _lead_setup(self) -> None:
        p = self.params
        length, width = p.area_size
        swath = p.swarm_size * p.footprint
        self.passes = max(1, math.ceil(width / swath))
        margin = p.footprint
        points = [self.ref.copy()]
        lanes = [0]
        for k in range(self.passes):
            lateral = -width / 2.0 + swath * (k + 0.5)
            a = -length / 2.0 - margin
            b = length / 2.0 + margin
            if k % 2:
                a, b = b, a
            for along in (a, b):  # the reference point runs down the pass's centre line
                points.append(self.c + along * self.u + lateral * self.v)
                lanes.append(k)
        self.plan = points
        self.plan_pass = lanes
        self._lengths()
        self.t0 = self.params.takeoff_time
        self.last_heard: dict[int, float] = {}
        self.positions: dict[int, tuple[float, float]] = {}
        self.failed: set[int] = set()
        self.done = False
        # coverage map: cell centres in the area's own frame
        na = max(1, round(length / p.cell))
        nb = max(1, round(width / p.cell))
        a = (np.arange(na) + 0.5) * (length / na) - length / 2.0
        b = (np.arange(nb) + 0.5) * (width / nb) - width / 2.0
        self.cells = np.stack(np.meshgrid(a, b, indexing="ij"), axis=-1).reshape(-1, 2)
        self.seen = np.zeros(len(self.cells), dtype=bool)
        self.every(p.beacon_period, self._leader_beacon)
        self.every(2.0, lambda: self.record("coverage", float(self.seen.mean())))

    def _lengths(self) -> None:
        seg = [float(np.linalg.norm(b - a)) for a, b in zip(self.plan[:-1], self.plan[1:])]
        self.cum = np.concatenate([[0.0], np.cumsum(seg)])

    def _ref_at(self, t: float) -> tuple[np.ndarray, int, bool]:
        s = max(0.0, t - self.t0) * self.params.speed
        if s >= self.cum[-1]:
            return self.plan[-1].copy(), self.plan_pass[-1], True
        k = int(np.searchsorted(self.cum, s, side="right")) - 1
        f = (s - self.cum[k]) / max(self.cum[k + 1] - self.cum[k], 1e-9)
        d = self.plan[k + 1] - self.plan[k]
        if np.linalg.norm(d) > 1e-9:
            self.lane_heading = math.atan2(d[1], d[0])
        return self.plan[k] + f * d, self.plan_pass[k + 1], False

    def _mark(self, x: float, y: float) -> None:
        """Cells within a square footprint under a camera at (x, y)."""
        rel = np.array([x, y]) - self.c
        local = np.array([rel @ self.u, rel @ self.v])
        d = np.abs(self.cells - local)
        half = self.params.footprint / 2.0
        self.seen |= (d[:, 0] <= half) & (d[:, 1] <= half)

    def _leader_beacon(self) -> None:
        self.net.broadcast(LEAD_BEACON.pack(b"LEAD", float(self.ref[0]), float(self.ref[1]), self.lane_heading, self.pass_index))

    def _check_failures(self) -> None:
        p = self.params
        if self.now < self.t0 + p.failure_timeout:
            return
        for k in range(1, p.swarm_size):
            if k in self.failed:
                continue
            if self.now - self.last_heard.get(k, self.t0) > p.failure_timeout:
                self.failed.add(k)
                self.record("failure_detected", k)
                if p.recover:
                    self._plan_recovery(k)

    def _plan_recovery(self, k: int) -> None:
        """Extra passes putting the leader's camera over robot k's strip, from the pass it failed in."""
        p = self.params
        length, width = p.area_size
        swath = p.swarm_size * p.footprint
        offset = slot(k, p.swarm_size, p.footprint)
        start_pass = self.pass_index
        last = self.plan[-1]
        for j, pas in enumerate(range(start_pass, self.passes)):
            lateral = -width / 2.0 + swath * (pas + 0.5) + offset
            a = -length / 2.0 - p.footprint
            b = length / 2.0 + p.footprint
            ends = [self.c + a * self.u + lateral * self.v - self.slot * self.v,
                    self.c + b * self.u + lateral * self.v - self.slot * self.v]
            if np.linalg.norm(ends[0] - last) > np.linalg.norm(ends[1] - last):
                ends.reverse()
            for e in ends:
                self.plan.append(e)
                self.plan_pass.append(self.passes + j)
            last = ends[-1]
        self._lengths()

    # -- everyone -----------------------------------------------------------------------------------
    def step(self) -> None:
        p = self.params
        if self.id == 0:
            self.ref, self.pass_index, end = self._ref_at(self.now)
            pos = self.robot.position
            if pos[2] > 0.8 * p.altitude:  # photographs from the mission altitude only
                self._mark(float(pos[0]), float(pos[1]))
                for k, (x, y) in self.positions.items():
                    if k not in self.failed:
                        self._mark(x, y)
            self.positions.clear()
            self._check_failures()
            if end and not self.done and self.now > self.t0:
                self.done = True
                self.record("mission_done", self.now)
                self.record("coverage", float(self.seen.mean()))
        if self.now < p.takeoff_time and self.id != 0:
            return
        if self.id == 0:
            target = self.ref + self.slot * self.v
            self.robot.fly("position", float(target[0]), float(target[1]), p.altitude, self.lane_heading)
        elif self.heard_leader:
            x, y = follower_target(self.ref, self.slot, self.v, self.lane_heading, p.speed)
            self.robot.fly("position", float(x), float(y), p.altitude, self.lane_heading)

    def _follower_beacon(self) -> None:
        pos = self.robot.position
        self.net.broadcast(FOLLOW_BEACON.pack(b"FOLW", self.id, float(pos[0]), float(pos[1])))

    def on_message(self, msg: Message) -> None:
        data = msg.payload
        if self.id == 0 and len(data) == FOLLOW_BEACON.size and data[:4] == b"FOLW":
            _, k, x, y = FOLLOW_BEACON.unpack(data)
            self.last_heard[k] = self.now
            self.positions[k] = (x, y)
        elif self.id != 0 and len(data) == LEAD_BEACON.size and data[:4] == b"LEAD":
            _, x, y, heading, pas = LEAD_BEACON.unpack(data)
            self.ref = np.array([x, y])
            self.lane_heading = heading
            self.pass_index = pas
            self.heard_leader = True
