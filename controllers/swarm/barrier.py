"""A barrier (ROSBuzz's consensus barrier) on a virtual stigmergy: each robot that enters writes
its id under the barrier's name; a robot passes when the table holds `size` of them, or when
another has written that the barrier is done (which it then writes too, so late robots pass even
if they never hear all the ids). It releases exactly once per robot.

Message cost: the table's, about 6 bytes per robot that entered plus the done mark.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable

from controllers.swarm.stigmergy import Entry, VirtualStigmergy

DONE = "done"


class Barrier:
    """Robot `table.me`'s side of barrier `name` for `size` robots; `on_release` runs once."""

    def __init__(self, table: VirtualStigmergy, size: int, on_release: Callable[[], None]) -> None:
        if size < 1:
            raise ValueError(f"a barrier needs size >= 1, got {size}")
        self.table = table
        self.size = size
        self._on_release = on_release
        self.entered = False
        self.released = False

    def enter(self) -> None:
        self.entered = True
        self.table.put(self.table.me, True)
        self.check()

    def arrived(self) -> list[int]:
        """Robots known to have entered."""
        return sorted(k for k in self.table.keys() if isinstance(k, int))

    def check(self, key: Hashable | None = None, entry: Entry | None = None) -> None:
        """Release if the barrier is full or marked done (called on every change of the table)."""
        if not self.entered or self.released:
            return
        if len(self.arrived()) >= self.size or self.table.get(DONE):
            self.released = True
            self.table.put(DONE, True)
            self._on_release()
