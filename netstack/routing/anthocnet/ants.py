"""AntHocNet's ants: forward ants sent, forwarded (along the pheromone or broadcast) and accepted per
generation, backward ants that lay pheromone on their way back.

A mixin of `AntHocNet` (netstack.routing.anthocnet.protocol), which owns the state it works on: the
generations seen `_gens` and the generation counter `_gen`; it lays pheromone through `_update` and
sends through `_unicast` and `_broadcast`."""

from __future__ import annotations

from netstack.routing.anthocnet.wire import (
    ANT_NAMES,
    BANT,
    BANT_FRAME,
    FANT,
    FANT_FRAME,
    PROACTIVE,
    REACTIVE,
    pack_path,
    path_of,
)


class AntHandling:
    """Forward and backward ants, as AntHocNet's path setup, repair and proactive maintenance send them."""

    def _new_generation(self) -> int:
        self._gen = (self._gen + 1) & 0xFFFFFFFF
        return self._gen

    def _send_forward_ant(self, dst: int, subtype: int) -> None:
        me = self.link.node
        gen = self._new_generation()
        time_s = self._hop_estimate()
        self.count(f"{ANT_NAMES[subtype]}_ants_sent")
        if subtype == PROACTIVE:
            cands = self._candidates(dst)
            if cands and not (self.link.rng.random() < self.params.proactive_broadcast_p):
                frame = FANT_FRAME.pack(FANT, subtype, me, dst, gen, 0, time_s) + pack_path([me])
                self._unicast(self._choose(cands, self.params.beta_ants), frame, "fant")
                return
        frame = FANT_FRAME.pack(FANT, subtype, me, dst, gen, 1, time_s) + pack_path([me])
        self._broadcast(frame, "fant")

    def _on_forward_ant(self, src: int, frame: bytes) -> None:
        _, subtype, origin, dst, gen, broadcasts, time_s = FANT_FRAME.unpack_from(frame)
        path = path_of(frame, FANT_FRAME.size)
        me = self.link.node
        hops = len(path)
        if me in path:
            self.count("ants_looped")
            return
        if not self._accepted(origin, gen, hops, time_s):
            return
        if me == dst:
            self.count("backward_ants_sent")
            back = BANT_FRAME.pack(BANT, subtype, origin, dst, gen, 0, 0.0, len(path) - 1) + pack_path(path)
            self._unicast(path[-1], back, "bant")
            return
        if hops >= self.params.max_hops:
            self.count("ants_expired")
            return
        p = self.params
        new_path = pack_path([*path, me])
        time_s += self._hop_estimate()
        cands = self._candidates(dst, path)
        if subtype == PROACTIVE:
            self._explore_or_follow(cands, (origin, dst, gen, broadcasts, time_s), new_path)
            return
        if cands:
            out = FANT_FRAME.pack(FANT, subtype, origin, dst, gen, broadcasts, time_s) + new_path
            self._unicast(self._choose(cands, p.beta_ants), out, "fant")
        elif subtype == REACTIVE or broadcasts < p.repair_max_broadcasts:
            self._broadcast(FANT_FRAME.pack(FANT, subtype, origin, dst, gen, min(broadcasts + 1, 255), time_s) + new_path, "fant")
        else:
            self.count("ants_stopped")

    def _on_backward_ant(self, src: int, frame: bytes) -> None:
        _, subtype, origin, dst, gen, hops, time_s, index = BANT_FRAME.unpack_from(frame)
        path = path_of(frame, BANT_FRAME.size)
        me = self.link.node
        if index >= len(path) or path[index] != me:
            self.count("backward_ants_misrouted")
            return
        time_s += self._hop_estimate()
        hops += 1
        self._update(dst, src, time_s, hops)
        if index == 0:
            self.count(f"{ANT_NAMES[subtype]}_paths_found")
            self._route_found(dst)
            return
        out = BANT_FRAME.pack(BANT, subtype, origin, dst, gen, min(hops, 255), time_s, index - 1) + pack_path(path)
        self._unicast(path[index - 1], out, "bant")

    def _accepted(self, origin: int, gen: int, hops: int, time_s: float) -> bool:
        """Whether a copy of generation (origin, gen) is within the acceptance factor of the best copy
        seen so far (hops and time), which it may improve (broadcasts of reactive, repair and exploring
        proactive ants arrive in several copies)."""
        key = (origin, gen)
        best = self._gens.get(key)
        if best is None:
            self._gens[key] = [hops, time_s, self.link.now_ns()]
            return True
        a1 = self.params.acceptance
        if best[0] < hops * a1 or best[1] < time_s * a1:
            self.count("ants_rejected")
            return False
        best[0] = min(best[0], hops)
        best[1] = min(best[1], time_s)
        return True

    def _explore_or_follow(self, cands: list[tuple[int, float]], ant: tuple[int, int, int, int, float], new_path: bytes) -> None:
        """A proactive ant (origin, dst, generation, broadcasts so far, time) goes on along the
        pheromone, or is broadcast to explore (with the configured chance, a bounded number of times)."""
        p = self.params
        origin, dst, gen, broadcasts, time_s = ant
        explore = broadcasts < p.proactive_max_broadcasts and self.link.rng.random() < p.proactive_broadcast_p
        if cands and not explore:
            out = FANT_FRAME.pack(FANT, PROACTIVE, origin, dst, gen, broadcasts, time_s) + new_path
            self._unicast(self._choose(cands, p.beta_ants), out, "fant")
        elif broadcasts < p.proactive_max_broadcasts:
            self._broadcast(FANT_FRAME.pack(FANT, PROACTIVE, origin, dst, gen, broadcasts + 1, time_s) + new_path, "fant")
        else:
            self.count("ants_stopped")
