"""Buzz's neighbour operations: the robots heard recently, with range and bearing as a
range-and-bearing board measures them (Gaussian noise), and map / reduce / filter / kin over them."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Peer:
    """A neighbour: its id, measured distance (m) and bearing (rad, robot frame, counter-clockwise)."""

    id: int
    distance: float
    azimuth: float


class Neighbors:
    """An immutable set of neighbours, ordered by id; operations return new sets or values."""

    def __init__(self, peers: list[Peer], groups_of: Callable[[int], frozenset[int]]) -> None:
        self._peers = sorted(peers, key=lambda p: p.id)
        self._groups_of = groups_of

    def __iter__(self) -> Iterator[Peer]:
        return iter(self._peers)

    def __len__(self) -> int:
        return len(self._peers)

    def ids(self) -> list[int]:
        return [p.id for p in self._peers]

    def map(self, fn: Callable[[Peer], Any]) -> dict[int, Any]:
        """{id: fn(peer)} for every neighbour."""
        return {p.id: fn(p) for p in self._peers}

    def reduce(self, fn: Callable[[Peer, Any], Any], start: Any) -> Any:
        """fn(peer, accumulator) over the neighbours in id order, from `start`."""
        acc = start
        for p in self._peers:
            acc = fn(p, acc)
        return acc

    def filter(self, keep: Callable[[Peer], bool]) -> Neighbors:
        return Neighbors([p for p in self._peers if keep(p)], self._groups_of)

    def kin(self, group: int) -> Neighbors:
        """Neighbours known to be in swarm group `group`."""
        return self.filter(lambda p: group in self._groups_of(p.id))

    def nonkin(self, group: int) -> Neighbors:
        """Neighbours not known to be in `group`."""
        return self.filter(lambda p: group not in self._groups_of(p.id))
