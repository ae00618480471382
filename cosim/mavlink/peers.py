"""Who a served vehicle talks to: addresses given up front, and senders of valid (with signing:
validly signed) MAVLink, bounded in number and forgotten when silent. Junk never makes a peer, so
a flood of datagrams cannot make the vehicle stream telemetry to thousands of addresses."""

from __future__ import annotations

from dataclasses import dataclass

MAX_PEERS = 16
"""Senders at most, besides the fixed ones: ground stations, companion computers, a few scripts."""
IDLE_S = 30.0
"""A sender silent this long (s) stops being a peer; a ground station's 1 Hz heartbeat keeps it."""


@dataclass
class PeerStats:
    """Senders refused because every slot was taken, and peers forgotten after IDLE_S of silence."""

    refused: int = 0
    expired: int = 0


class Peers:
    """The addresses telemetry goes to, in the order they joined. `fixed` ones stay for good;
    others join by sending a valid message (`heard`), while fewer than `limit` are present, and
    leave after `idle_s` of silence (`expire`)."""

    def __init__(self, limit: int = MAX_PEERS, idle_s: float = IDLE_S) -> None:
        if limit < 1 or not idle_s > 0:
            raise ValueError(f"a peer limit is >= 1 and an idle time > 0 s, got {limit} and {idle_s}")
        self.limit = limit
        self.idle_s = idle_s
        self.stats = PeerStats()
        self._fixed: list[tuple[str, int]] = []
        self._heard: dict[tuple[str, int], float] = {}  # sender -> when last heard (s)

    def add_fixed(self, addr: tuple[str, int]) -> None:
        if addr not in self._fixed:
            self._fixed.append(addr)

    def heard(self, addr: tuple[str, int], now: float) -> bool:
        """`addr` sent a valid message at `now`: it is (or stays) a peer, unless all slots are taken."""
        if addr in self._fixed:
            return True
        if addr in self._heard or len(self._heard) < self.limit:
            self._heard[addr] = now
            return True
        self.stats.refused += 1
        return False

    def expire(self, now: float) -> list[tuple[str, int]]:
        """Forget the senders silent for more than idle_s; returns them."""
        gone = [a for a, t in self._heard.items() if now - t > self.idle_s]
        for a in gone:
            del self._heard[a]
        self.stats.expired += len(gone)
        return gone

    def addresses(self) -> list[tuple[str, int]]:
        return self._fixed + [a for a in self._heard if a not in self._fixed]

    def __len__(self) -> int:
        return len(self.addresses())

    def __contains__(self, addr: object) -> bool:
        return addr in self._heard or addr in self._fixed
