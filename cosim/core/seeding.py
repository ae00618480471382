"""One master seed per run; every consumer gets its own stream derived by a stable spawn key."""

from __future__ import annotations

import functools
import hashlib

import numpy as np


@functools.lru_cache(maxsize=256)
def _purpose_key(purpose: str) -> int:
    """A stable 32-bit integer for a purpose name (Python's hash() is salted per process)."""
    return int.from_bytes(hashlib.sha256(purpose.encode()).digest()[:4], "little")


class SeedStreams:
    """Derives independent, reproducible numpy Generators from (master seed, purpose, node)."""

    def __init__(self, master_seed: int) -> None:
        if master_seed < 0:
            raise ValueError(f"seed must be a non-negative integer, got {master_seed}")
        self.master_seed = master_seed

    def sequence(self, purpose: str, node: int | None = None) -> np.random.SeedSequence:
        key = (_purpose_key(purpose),) if node is None else (_purpose_key(purpose), node)
        return np.random.SeedSequence(self.master_seed, spawn_key=key)

    def generator(self, purpose: str, node: int | None = None) -> np.random.Generator:
        return np.random.Generator(np.random.PCG64(self.sequence(purpose, node)))

    def integer(self, purpose: str, bits: int = 31) -> int:
        """A derived integer seed, for engines that take one (ns-3 RngRun, pybullet)."""
        state = self.sequence(purpose).generate_state(1, np.uint64)[0]
        return int(state) & ((1 << bits) - 1)
