"""A random walker that counts its steps and keeps the count across runs (save_state/restore_state),
and one that keeps nothing but refuses nothing either (it never overrides restore_state)."""

from __future__ import annotations

from typing import Any

from controllers.library.random_walk import RandomWalk


class CountingWalker(RandomWalk):
    def setup(self) -> None:
        super().setup()
        self.steps = 0
        self.first_step: int | None = None

    def step(self) -> None:
        super().step()
        self.steps += 1
        if self.first_step is None:
            self.first_step = self.steps
            self.record("first_step_count", self.steps)

    def save_state(self) -> dict[str, Any]:
        return {"steps": self.steps, "note": f"robot {self.id}"}

    def restore_state(self, state: dict[str, Any]) -> None:
        self.steps = int(state["steps"])


class ForgetfulWalker(RandomWalk):
    """Saves state but cannot restore it."""

    def save_state(self) -> dict[str, Any]:
        return {"steps": 1}
