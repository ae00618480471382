"""Contacts as trace events: each time a robot starts touching another robot, an obstacle, the
arena's walls or (pybullet) the ground, one `contact` event (output.trace.contacts)."""

from __future__ import annotations

from cosim.core.recorder import Recorder
from physics.world import World


class ContactLog:
    """Remembers the last step's contacts and records the ones that are new."""

    def __init__(self) -> None:
        self._touching: set[tuple[int, int]] = set()

    def note(self, world: World, recorder: Recorder, t_ns: int) -> None:
        now = set()
        for me, other in world.contacts():  # a pair between robots counts for both (worlds list it once or twice)
            now.add((me, other))
            if other >= 0:
                now.add((other, me))
        for me, other in sorted(now - self._touching):
            recorder.event(t_ns, me, "contact", "the ground, an obstacle or a wall" if other < 0 else f"robot {other}")
        self._touching = now
