"""The crash rule of quadrotors: an impact faster than a speed, or a tilt beyond an angle, kills."""

from __future__ import annotations

import math

import numpy as np

from physics.world import World


class CrashRules:
    """Per node: the impact speed (m/s) and the tilt (degrees) above which a quadrotor crashes
    (inf: no limit)."""

    def __init__(self, speed: np.ndarray, tilt_deg: np.ndarray) -> None:
        self.speed = np.asarray(speed, dtype=float)
        self.tilt_deg = np.asarray(tilt_deg, dtype=float)
        self._tilts = bool(np.isfinite(self.tilt_deg).any())

    def crashes(self, world: World, alive: np.ndarray) -> list[tuple[int, str]]:
        """(node, what happened) for every alive quadrotor the last physics step crashed."""
        out: dict[int, str] = {}
        for me, other, speed in world.quad_impacts():
            if alive[me] and speed > self.speed[me] and me not in out:
                what = "the ground or an obstacle" if other < 0 else f"robot {other}"
                out[me] = f"impact at {speed:.2f} m/s with {what}"
        if self._tilts and world.quads is not None:
            euler = world.quads.euler
            tilt = np.degrees(np.arccos(np.clip(np.cos(euler[:, 0]) * np.cos(euler[:, 1]), -1.0, 1.0)))
            for slot in np.nonzero(tilt > self.tilt_deg[world.quad_robots])[0].tolist():
                me = int(world.quad_robots[slot])
                if alive[me] and me not in out:
                    out[me] = f"tilted {tilt[slot]:.0f} degrees"
        return sorted(out.items())

    @staticmethod
    def of(speeds: list[float | None], tilts: list[float | None]) -> CrashRules | None:
        """Rules for nodes with these limits (None: none), or None when no node has any."""
        if all(s is None for s in speeds) and all(t is None for t in tilts):
            return None
        inf = math.inf
        return CrashRules(np.array([inf if s is None else s for s in speeds]), np.array([inf if t is None else t for t in tilts]))
