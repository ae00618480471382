"""Who a served vehicle talks to: addresses given up front, and senders of valid (with signing:
validly signed) MAVLink, bounded in number and forgotten when silent. Junk never makes a peer, so
a flood of datagrams cannot make the vehicle stream telemetry to thousands of addresses."""

from __future__ import annotations

from dataclasses import dataclass

MAX_PEERS = 16
"""Senders at most, besides the fixed ones: ground stations, companion computers, a few scripts."""
IDLE_S = 30.0
"""A sender silent this long (s) stops being a peer; a ground station's 1 Hz heartbeat keeps it."""
STALE_S = 3.0
"""A sender silent this long (s), three missed heartbeats, gives its slot to a newcomer when all are
taken: a restarted ground station is not locked out by senders that have gone quiet."""


@dataclass
class PeerStats:
    """Senders refused because every slot was taken by a live peer, peers forgotten after IDLE_S of
    silence, and stale peers (silent STALE_S) that gave their slot to a newcomer."""

    refused: int = 0
    expired: int = 0
    displaced: int = 0


class Peers:
    """The addresses telemetry goes to, in the order they joined. `fixed` ones stay for good;
    others join by sending a valid message (`heard`) while fewer than `limit` are present, or in
    place of the longest-silent one once it has been quiet for `stale_s`, and leave after `idle_s`
    of silence (`expire`)."""

    def __init__(self, limit: int = MAX_PEERS, idle_s: float = IDLE_S, stale_s: float = STALE_S) -> None:
        if limit < 1 or not idle_s > 0 or not 0 < stale_s <= idle_s:
            raise ValueError(f"a peer limit is >= 1, an idle time > 0 s and a stale time within (0, idle], got {limit}, "
                             f"{idle_s} and {stale_s}")
        self.limit = limit
        self.idle_s = idle_s
        self.stale_s = stale_s
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
        quiet, last = min(self._heard.items(), key=lambda item: item[1])
        if now - last < self.stale_s:
            self.stats.refused += 1
            return False
        del self._heard[quiet]
        self.stats.displaced += 1
        self._heard[addr] = now
        return True

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
