"""AntHocNet's neighbour keeping: hellos, lost links and link failure notifications.

A mixin of `AntHocNet` (netstack.routing.anthocnet.protocol), which owns the state it works on: the
neighbour table `_nbr`, the pheromone table `_pher` and the delays of lost paths `_lost_delay`."""

from __future__ import annotations

from netstack.routing.anthocnet.wire import (
    GENERATION_MEMORY_NS,
    HELLO,
    HELLO_FRAME,
    LFN,
    LFN_FRAME,
    LFN_ITEM,
    LFN_MAX_ITEMS,
)


class LinkMaintenance:
    """Hellos every interval, neighbours lost after silence, notifications when a best path goes."""

    def _heard(self, src: int) -> None:
        if src not in self._nbr:
            self.count("neighbors_found")
            self._update(src, src, self._hop_estimate(), 1)
        self._nbr[src] = self.link.now_ns()

    def _hello(self) -> None:
        p = self.params
        self._hello_timer = self.link.after(p.hello_interval_ns, self._hello)
        self._broadcast(HELLO_FRAME.pack(HELLO, self.link.node), "hello")
        now = self.link.now_ns()
        timeout = p.allowed_hello_loss * p.hello_interval_ns
        for nb in [nb for nb, t in self._nbr.items() if now - t > timeout]:
            self._lose_neighbor(nb, "hello timeout")
        old = now - GENERATION_MEMORY_NS
        for key in [k for k, v in self._gens.items() if v[2] < old]:
            del self._gens[key]

    def _lose_neighbor(self, nb: int, why: str, repairing: int | None = None) -> None:
        self._nbr.pop(nb, None)
        self.count("links_lost")
        self.link.event("link_failure", f"neighbour {nb} ({why})")
        changes = []
        for dst in list(self._pher):
            entries = self._pher[dst]
            if nb not in entries:
                continue
            best_before = max(entries, key=lambda k: entries[k][0])
            lost = entries.pop(nb)
            if best_before != nb:
                continue
            self._lost_delay[dst] = lost[1]
            best = self._best(dst)
            if dst == nb:
                pass  # the lost neighbour itself: its other neighbours track it with their own hellos
            elif best is not None:
                changes.append((dst, best[1][1], int(best[1][2])))
            elif dst != repairing:
                changes.append((dst, -1.0, 0))
            if not entries:
                del self._pher[dst]
        if changes:
            self._notify(changes)

    def _notify(self, changes: list[tuple[int, float, int]]) -> None:
        self.count("notifications_sent")
        for k in range(0, len(changes), LFN_MAX_ITEMS):
            part = changes[k:k + LFN_MAX_ITEMS]
            body = b"".join(LFN_ITEM.pack(d, t, min(h, 255)) for d, t, h in part)
            self._broadcast(LFN_FRAME.pack(LFN, len(part)) + body, "lfn")

    def _on_notification(self, src: int, frame: bytes) -> None:
        _, count = LFN_FRAME.unpack_from(frame)
        self.count("notifications_received")
        changes = []
        for k in range(count):
            dst, time_s, hops = LFN_ITEM.unpack_from(frame, LFN_FRAME.size + k * LFN_ITEM.size)
            entries = self._pher.get(dst)
            if not entries or src not in entries:
                continue
            best_before = max(entries, key=lambda n: entries[n][0])
            if time_s < 0:
                lost = entries.pop(src)
                if best_before == src:
                    self._lost_delay[dst] = lost[1]
            else:
                t = time_s + self._hop_estimate()
                entries[src] = [2.0 / (t + (hops + 1) * self._t_hop), t, hops + 1]
            best = self._best(dst)
            if best is None:
                del self._pher[dst]
                changes.append((dst, -1.0, 0))
            elif best_before == src and best[0] != src:
                changes.append((dst, best[1][1], int(best[1][2])))
        if changes:
            self._notify(changes)
