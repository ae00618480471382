"""The population of robots as the coordinator's helpers see it: each node's controller, who is
alive, and which controllers the network must stop for."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from controllers import Controller


@dataclass(frozen=True)
class Population:
    """Per node: its controller, whether it lives (`alive` for arrays, `alive_list` the same, cheap to
    index from Python; both change in place when a robot dies), whether its controller takes
    on_message (`listens`) and on_outcome (`hears_outcomes`)."""

    controllers: list[Controller]
    alive: np.ndarray
    alive_list: list[bool]
    listens: np.ndarray
    hears_outcomes: list[bool]

    @classmethod
    def of(cls, controllers: list[Controller]) -> Population:
        """Every robot alive, each controller's own answers to listens() and hears_outcomes()."""
        n = len(controllers)
        return cls(controllers, np.ones(n, dtype=bool), [True] * n,
                   np.array([type(c).listens() for c in controllers], dtype=bool),
                   [type(c).hears_outcomes() for c in controllers])

    def __len__(self) -> int:
        return len(self.controllers)
