"""AntHocNet: hybrid ant-colony routing for mobile ad hoc networks.

After G. Di Caro, F. Ducatelle and L. M. Gambardella, "AntHocNet: an ant-based hybrid routing
algorithm for mobile ad hoc networks", PPSN VIII (2004), and "AntHocNet: an adaptive
nature-inspired algorithm for routing in mobile ad hoc networks", European Transactions on
Telecommunications 16(5), 2005 (below: ETT). What each node does:

- **Reactive path setup.** A source with data for a destination it has no pheromone for buffers the
  data and broadcasts a reactive forward ant. A node with pheromone for the destination unicasts
  the ant to a next hop drawn with probability proportional to pheromone**beta_ants; a node
  without broadcasts it. Copies of one ant generation reach a node over several paths: a copy is
  forwarded only if both its hop count and its travel time are within the acceptance factor a1 of
  the best copy seen (best / this >= a1). The destination answers every accepted copy with a
  backward ant that retraces the path.
- **Backward ants and pheromone.** Going back, each node i adds its own estimate of the time to
  send one packet to the next hop, (Q_mac + 1) * T_mac, where T_mac is the running average
  (factor alpha) of the time its MAC takes per unicast frame and Q_mac the frames it has queued.
  With T the time estimate to the destination and h the hop count, the path's value is
  tau = ((T + h * T_hop) / 2)^-1, and the pheromone of the hop the ant came from becomes
  gamma * old + (1 - gamma) * tau.
- **Data** is forwarded stochastically, with probability proportional to pheromone**beta_data
  (more greedy than the ants), avoiding the previous hop when another exists.
- **Proactive maintenance.** While a session runs, its source sends one proactive forward ant per
  `proactive_every` data packets. It travels like a reactive ant with pheromone, but at each node
  it is broadcast with probability `proactive_broadcast_p` (at most `proactive_max_broadcasts`
  times), to explore; copies of one proactive generation meet the same acceptance test.
- **Hello messages** every `hello_interval`; a neighbour not heard for `allowed_hello_loss`
  intervals is lost, as is one that does not acknowledge a unicast frame.
- **Link failure notification.** A node that loses a neighbour drops its pheromone entries and
  broadcasts, for each destination (other than that neighbour) whose best hop that was, its new
  best time estimate (or that it has no route left); neighbours update and propagate when their
  own best changes.
- **Local repair.** A node that cannot forward a data packet (its link broke and no other hop
  exists) buffers it and broadcasts a repair ant (at most `repair_max_broadcasts` broadcasts). It
  waits at most `repair_wait_factor` times the lost path's estimated delay for the backward repair
  ant; then it drops the packets and notifies its neighbours.

Sources of the defaults: ETT section 3 and the PPSN paper's experimental setup (alpha, gamma,
T_hop, beta, a1, hello interval and loss, proactive rate and broadcast probability, repair
factor and broadcast limit, setup retries). The broadcast jitter and the buffer and memory sizes
are this implementation's own (the papers ran on QualNet, which supplies them).
"""

from __future__ import annotations

import struct
from collections import OrderedDict
from dataclasses import dataclass

from netstack.routing.base import BROADCAST, Packet, RouteEntry, RoutingProtocol
from netstack.routing.wire import pack_data, unpack_data

DATA, HELLO, FANT, BANT, LFN = 0, 1, 2, 3, 4
REACTIVE, PROACTIVE, REPAIR = 0, 1, 2
ANT_NAMES = {REACTIVE: "reactive", PROACTIVE: "proactive", REPAIR: "repair"}

_HELLO = struct.Struct("<BH")
_FANT = struct.Struct("<BBHHIBf")  # kind, subtype, origin, destination, generation, broadcasts, time (s); path follows
_BANT = struct.Struct("<BBHHIBfB")  # kind, subtype, origin, destination, generation, hops, time (s), index; path follows
_LFN = struct.Struct("<BB")  # kind, count; then count items
_LFN_ITEM = struct.Struct("<HfB")  # destination, best time (s) or -1 for no route, hops
_LFN_MAX_ITEMS = 100
_GENERATION_MEMORY_NS = 10_000_000_000


def _path(frame: bytes, offset: int) -> list[int]:
    n = (len(frame) - offset) // 2
    return list(struct.unpack_from(f"<{n}H", frame, offset))


def _pack_path(path: list[int]) -> bytes:
    return struct.pack(f"<{len(path)}H", *path)


class AntHocNet(RoutingProtocol):
    """AntHocNet (see the module docstring); `routes()` gives pheromone, probability, hops and delay."""

    @dataclass(frozen=True)
    class Params:
        alpha: float = 0.7
        """Smoothing of the MAC time estimate T_mac (ETT eq. 4)."""
        gamma: float = 0.7
        """Pheromone update: new = gamma * old + (1 - gamma) * tau (ETT eq. 6)."""
        t_hop_ns: int = 3_000_000
        """T_hop, the time one hop takes without load (ETT eq. 5): 3 ms."""
        beta_ants: float = 1.0
        """Exponent of pheromone when forward ants choose a next hop (ETT eq. 1, beta_1)."""
        beta_data: float = 2.0
        """Exponent of pheromone when data packets choose a next hop (ETT eq. 7, beta_2)."""
        acceptance: float = 0.9
        """a1: a copy of an ant generation goes on only if best/own >= a1 for hops and for time."""
        max_hops: int = 100
        """Forward ants and data packets die after this many hops."""
        hello_interval_ns: int = 1_000_000_000
        """Hello messages, one per second (ETT section 3.4)."""
        allowed_hello_loss: int = 2
        """A neighbour is lost after this many hello intervals without hearing it."""
        setup_retry_ns: int = 2_000_000_000
        """A reactive path setup without an answer is restarted after this long..."""
        setup_tries: int = 3
        """...at most this many times in all; then the buffered data are dropped."""
        proactive_every: int = 5
        """One proactive forward ant per this many data packets of a session (ETT section 3.3)."""
        proactive_broadcast_p: float = 0.1
        """Probability that a proactive ant is broadcast at a node, to explore (ETT section 3.3)."""
        proactive_max_broadcasts: int = 2
        """A proactive ant broadcast this many times is no longer broadcast."""
        repair_max_broadcasts: int = 2
        """A repair ant may be broadcast this many times (ETT section 3.5)."""
        repair_wait_factor: float = 5.0
        """Local repair waits this many times the lost path's estimated delay (ETT section 3.5)."""
        jitter_ns: int = 5_000_000
        """Broadcast ants and hellos wait a uniform random delay in [0, jitter) (ours)."""
        buffer_packets: int = 64
        """Data packets buffered per destination while a path is set up or repaired (ours)."""

        def __post_init__(self) -> None:
            for name in ("alpha", "gamma", "acceptance", "proactive_broadcast_p"):
                v = getattr(self, name)
                if not 0.0 <= v <= 1.0:
                    raise ValueError(f"{name} must be within [0, 1], got {v}")
            if self.beta_ants < 1 or self.beta_data < 1:
                raise ValueError("beta_ants and beta_data must be >= 1")
            if not 1 <= self.max_hops <= 255:
                raise ValueError(f"max_hops must be within 1..255, got {self.max_hops}")
            if self.t_hop_ns <= 0 or self.hello_interval_ns <= 0 or self.setup_retry_ns <= 0:
                raise ValueError("t_hop, hello_interval and setup_retry must be positive durations")
            if min(self.allowed_hello_loss, self.setup_tries, self.proactive_every, self.buffer_packets) < 1:
                raise ValueError("allowed_hello_loss, setup_tries, proactive_every and buffer_packets must be >= 1")
            if self.repair_wait_factor <= 0 or self.jitter_ns < 0:
                raise ValueError("repair_wait_factor must be > 0 and jitter >= 0")

    name = "anthocnet"
    passive_kinds = frozenset({HELLO})  # a hello only refreshes the neighbour table

    def __init__(self, params=None) -> None:
        super().__init__(params)
        p = self.params
        self._t_hop = p.t_hop_ns / 1e9
        self._t_mac = self._t_hop  # until the first measurement
        self._pher: dict[int, dict[int, list[float]]] = {}  # dst -> next hop -> [pheromone, time s, hops]
        self._nbr: dict[int, int] = {}  # neighbour -> last heard (ns)
        self._outstanding: OrderedDict[int, int] = OrderedDict()  # unicast tx id -> send time (ns), MAC order
        self._last_done = 0
        self._pending: dict[int, tuple[Packet, int, int]] = {}  # data tx id -> (packet, hops, previous hop)
        self._gens: dict[tuple[int, int], list[float]] = {}  # (origin, generation) -> [best hops, best time, t]
        self._gen = 0
        self._setup: dict[int, list] = {}  # dst -> [tries, timer]
        self._repair: dict[int, object] = {}  # dst -> timer
        self._buffer: dict[int, list[tuple[Packet, int, int]]] = {}
        self._lost_delay: dict[int, float] = {}  # dst -> delay estimate of the last best path lost
        self._data_count: dict[int, int] = {}
        self._hello_timer = None
        self._down = False

    # -- lifecycle ------------------------------------------------------------------------------
    def start(self) -> None:
        interval = self.params.hello_interval_ns
        self._hello_timer = self.link.after(int(self.link.rng.integers(0, interval)), self._hello)

    def on_node_down(self) -> None:
        self._down = True
        self._pher.clear()
        self._nbr.clear()
        self._buffer.clear()

    # -- estimates and choices --------------------------------------------------------------------
    def _hop_estimate(self) -> float:
        """(Q_mac + 1) * T_mac: this node's estimate of the time to send one packet to a neighbour (s)."""
        return (len(self._outstanding) + 1) * self._t_mac

    def _candidates(self, dst: int, exclude=()) -> list[tuple[int, float]]:
        entries = self._pher.get(dst)
        if not entries:
            return []
        return [(nb, e[0]) for nb, e in entries.items() if nb in self._nbr and nb not in exclude]

    def _choose(self, cands: list[tuple[int, float]], beta: float) -> int:
        if len(cands) == 1:
            return cands[0][0]
        weights = [tau ** beta for _, tau in cands]
        r = float(self.link.rng.random()) * sum(weights)
        for (nb, _), w in zip(cands, weights):
            r -= w
            if r < 0:
                return nb
        return cands[-1][0]

    def _update(self, dst: int, via: int, time_s: float, hops: int) -> None:
        tau = 2.0 / (time_s + hops * self._t_hop)
        entries = self._pher.setdefault(dst, {})
        e = entries.get(via)
        if e is None:
            entries[via] = [tau, time_s, hops]
        else:
            g = self.params.gamma
            e[0] = g * e[0] + (1.0 - g) * tau
            e[1] = time_s
            e[2] = hops

    def _best(self, dst: int) -> tuple[int, list[float]] | None:
        entries = self._pher.get(dst)
        if not entries:
            return None
        nb = max(entries, key=lambda k: entries[k][0])
        return nb, entries[nb]

    # -- sending --------------------------------------------------------------------------------
    def _unicast(self, nb: int, frame: bytes, kind: str) -> int | None:
        tx = self.link.send_frame(nb, frame, kind)
        if tx is not None:
            self._outstanding[tx] = self.link.now_ns()
            if len(self._outstanding) > 256:  # statuses that never came (a backend without them)
                self._outstanding.popitem(last=False)
        return tx

    def _broadcast(self, frame: bytes, kind: str) -> None:
        jitter = self.params.jitter_ns
        if not jitter:
            self.link.send_frame(BROADCAST, frame, kind)
            return
        delay = int(self.link.rng.integers(0, jitter))
        self.link.after(delay, lambda: self.link.send_frame(BROADCAST, frame, kind))

    def on_send(self, packet: Packet) -> None:
        dst = packet.dst
        if dst == BROADCAST:
            self.link.send_frame(BROADCAST, pack_data(DATA, packet, 1), "data")
            return
        n = self._data_count.get(dst, 0) + 1
        self._data_count[dst] = n
        if n % self.params.proactive_every == 0 and self._candidates(dst):
            self._send_forward_ant(dst, PROACTIVE)
        self._forward_data(packet, 0, -1)

    def _forward_data(self, packet: Packet, hops: int, prev: int) -> None:
        dst = packet.dst
        cands = self._candidates(dst, (prev,)) or self._candidates(dst)
        if cands:
            nb = self._choose(cands, self.params.beta_data)
            tx = self._unicast(nb, pack_data(DATA, packet, hops + 1), "data")
            if tx is not None:
                self._pending[tx] = (packet, hops, prev)
            return
        self._hold(packet, hops, prev)
        if packet.src == self.link.node:
            self._start_setup(dst)
        else:
            self._start_repair(dst)

    def _hold(self, packet: Packet, hops: int, prev: int) -> None:
        buf = self._buffer.setdefault(packet.dst, [])
        buf.append((packet, hops, prev))
        if len(buf) > self.params.buffer_packets:
            old = buf.pop(0)
            self.link.drop(old[0], "buffer_full")

    def _release(self, dst: int) -> None:
        for packet, hops, prev in self._buffer.pop(dst, []):
            self._forward_data(packet, hops, prev)

    def _drop_buffer(self, dst: int, reason: str) -> None:
        for packet, _, _ in self._buffer.pop(dst, []):
            self.link.drop(packet, reason)

    # -- path setup and repair ------------------------------------------------------------------
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
                frame = _FANT.pack(FANT, subtype, me, dst, gen, 0, time_s) + _pack_path([me])
                self._unicast(self._choose(cands, self.params.beta_ants), frame, "fant")
                return
        frame = _FANT.pack(FANT, subtype, me, dst, gen, 1, time_s) + _pack_path([me])
        self._broadcast(frame, "fant")

    def _start_setup(self, dst: int) -> None:
        if dst in self._setup:
            return
        self.link.event("route_request", f"to {dst}")
        state = [1, None, self.link.now_ns()]  # tries, retry timer, start
        self._setup[dst] = state
        self._send_forward_ant(dst, REACTIVE)
        state[1] = self.link.after(self.params.setup_retry_ns, lambda: self._setup_timeout(dst))

    def _setup_timeout(self, dst: int) -> None:
        state = self._setup.get(dst)
        if state is None:
            return
        if self._candidates(dst):
            del self._setup[dst]
            self._release(dst)
            return
        if state[0] >= self.params.setup_tries:
            del self._setup[dst]
            self.link.event("route_failed", f"to {dst} after {state[0]} tries")
            self._drop_buffer(dst, "no_route")
            return
        state[0] += 1
        self._send_forward_ant(dst, REACTIVE)
        state[1] = self.link.after(self.params.setup_retry_ns, lambda: self._setup_timeout(dst))

    def _start_repair(self, dst: int) -> None:
        if dst in self._repair:
            return
        p = self.params
        lost = self._lost_delay.get(dst)
        # the papers' bound, plus the random delays this implementation adds before each broadcast
        wait_s = p.repair_wait_factor * lost if lost else p.hello_interval_ns / 1e9
        wait_s += p.repair_max_broadcasts * p.jitter_ns / 1e9
        self.count("repairs_started")
        self.link.event("local_repair", f"to {dst}, waiting {wait_s * 1e3:.1f} ms")
        self._send_forward_ant(dst, REPAIR)
        self._repair[dst] = self.link.after(round(wait_s * 1e9), lambda: self._repair_timeout(dst))

    def _repair_timeout(self, dst: int) -> None:
        if self._repair.pop(dst, None) is None:
            return
        if self._candidates(dst):
            self._release(dst)
            return
        self.count("repairs_failed")
        self._drop_buffer(dst, "repair_failed")
        self._notify([(dst, -1.0, 0)])

    def _route_found(self, dst: int) -> None:
        state = self._setup.pop(dst, None)
        if state is not None:
            state[1].cancel()
            self.link.record("route_discovery_s", (self.link.now_ns() - state[2]) / 1e9)
        timer = self._repair.pop(dst, None)
        if timer is not None:
            timer.cancel()
            self.count("repairs_succeeded")
        self._release(dst)

    # -- receiving ------------------------------------------------------------------------------
    def on_frame(self, src: int, frame: bytes, rssi_dbm: float) -> None:
        if self._down:
            return
        self._heard(src)
        kind = frame[0]
        if kind == DATA:
            packet, hops = unpack_data(frame)
            if packet.dst in (self.link.node, BROADCAST):
                self.link.deliver(packet, hops)
            elif hops >= self.params.max_hops:
                self.link.drop(packet, "max_hops")
            else:
                self._forward_data(packet, hops, src)
        elif kind == FANT:
            self._on_forward_ant(src, frame)
        elif kind == BANT:
            self._on_backward_ant(src, frame)
        elif kind == LFN:
            self._on_notification(src, frame)

    def _heard(self, src: int) -> None:
        if src not in self._nbr:
            self.count("neighbors_found")
            self._update(src, src, self._hop_estimate(), 1)
        self._nbr[src] = self.link.now_ns()

    def _on_forward_ant(self, src: int, frame: bytes) -> None:
        _, subtype, origin, dst, gen, broadcasts, time_s = _FANT.unpack_from(frame)
        path = _path(frame, _FANT.size)
        me = self.link.node
        hops = len(path)
        if me in path:
            self.count("ants_looped")
            return
        # copies of one generation (broadcasts of reactive, repair and exploring proactive ants)
        key = (origin, gen)
        best = self._gens.get(key)
        if best is None:
            self._gens[key] = [hops, time_s, self.link.now_ns()]
        else:
            a1 = self.params.acceptance
            if best[0] < hops * a1 or best[1] < time_s * a1:
                self.count("ants_rejected")
                return
            best[0] = min(best[0], hops)
            best[1] = min(best[1], time_s)
        if me == dst:
            self.count("backward_ants_sent")
            back = _BANT.pack(BANT, subtype, origin, dst, gen, 0, 0.0, len(path) - 1) + _pack_path(path)
            self._unicast(path[-1], back, "bant")
            return
        if hops >= self.params.max_hops:
            self.count("ants_expired")
            return
        p = self.params
        new_path = _pack_path([*path, me])
        time_s += self._hop_estimate()
        cands = self._candidates(dst, path)
        if subtype == PROACTIVE:
            explore = broadcasts < p.proactive_max_broadcasts and self.link.rng.random() < p.proactive_broadcast_p
            if cands and not explore:
                out = _FANT.pack(FANT, subtype, origin, dst, gen, broadcasts, time_s) + new_path
                self._unicast(self._choose(cands, p.beta_ants), out, "fant")
            elif broadcasts < p.proactive_max_broadcasts:
                self._broadcast(_FANT.pack(FANT, subtype, origin, dst, gen, broadcasts + 1, time_s) + new_path, "fant")
            else:
                self.count("ants_stopped")
            return
        if cands:
            out = _FANT.pack(FANT, subtype, origin, dst, gen, broadcasts, time_s) + new_path
            self._unicast(self._choose(cands, p.beta_ants), out, "fant")
        elif subtype == REACTIVE or broadcasts < p.repair_max_broadcasts:
            self._broadcast(_FANT.pack(FANT, subtype, origin, dst, gen, min(broadcasts + 1, 255), time_s) + new_path, "fant")
        else:
            self.count("ants_stopped")

    def _on_backward_ant(self, src: int, frame: bytes) -> None:
        _, subtype, origin, dst, gen, hops, time_s, index = _BANT.unpack_from(frame)
        path = _path(frame, _BANT.size)
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
        out = _BANT.pack(BANT, subtype, origin, dst, gen, min(hops, 255), time_s, index - 1) + _pack_path(path)
        self._unicast(path[index - 1], out, "bant")

    # -- failures -------------------------------------------------------------------------------
    def on_tx_status(self, tx_id: int, dst: int, acked: bool) -> None:
        sent = self._outstanding.pop(tx_id, None)
        now = self.link.now_ns()
        if sent is not None:
            start = max(sent, self._last_done)
            a = self.params.alpha
            self._t_mac = a * self._t_mac + (1.0 - a) * (now - start) / 1e9
            self._last_done = now
        info = self._pending.pop(tx_id, None)
        if acked or self._down:
            return
        if dst in self._nbr:
            # a data packet that cannot go on triggers local repair, which notifies only if it fails
            repairing = info[0].dst if info is not None and info[0].src != self.link.node else None
            self._lose_neighbor(dst, "no ack", repairing)
        if info is not None:
            packet, hops, prev = info
            self._forward_data(packet, hops, prev)

    def _hello(self) -> None:
        p = self.params
        self._hello_timer = self.link.after(p.hello_interval_ns, self._hello)
        self._broadcast(_HELLO.pack(HELLO, self.link.node), "hello")
        now = self.link.now_ns()
        timeout = p.allowed_hello_loss * p.hello_interval_ns
        for nb in [nb for nb, t in self._nbr.items() if now - t > timeout]:
            self._lose_neighbor(nb, "hello timeout")
        old = now - _GENERATION_MEMORY_NS
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
        for k in range(0, len(changes), _LFN_MAX_ITEMS):
            part = changes[k:k + _LFN_MAX_ITEMS]
            body = b"".join(_LFN_ITEM.pack(d, t, min(h, 255)) for d, t, h in part)
            self._broadcast(_LFN.pack(LFN, len(part)) + body, "lfn")

    def _on_notification(self, src: int, frame: bytes) -> None:
        _, count = _LFN.unpack_from(frame)
        self.count("notifications_received")
        changes = []
        for k in range(count):
            dst, time_s, hops = _LFN_ITEM.unpack_from(frame, _LFN.size + k * _LFN_ITEM.size)
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

    # -- the table controllers read ---------------------------------------------------------------
    def routes(self) -> dict[int, list[RouteEntry]]:
        beta = self.params.beta_data
        out = {}
        for dst, entries in self._pher.items():
            live = [(nb, e) for nb, e in entries.items() if nb in self._nbr]
            if not live:
                continue
            total = sum(e[0] ** beta for _, e in live)
            rows = [RouteEntry(nb, e[0], e[0] ** beta / total, int(e[2]), e[1]) for nb, e in live]
            rows.sort(key=lambda r: -r.goodness)
            out[dst] = rows
        return out

    def discover(self, dst: int) -> None:
        if dst != self.link.node:
            self._start_setup(dst)

    def invalidate(self, dst: int, next_hop: int) -> None:
        entries = self._pher.get(dst)
        if entries is not None and entries.pop(next_hop, None) is not None:
            self.count("routes_invalidated")
            if not entries:
                del self._pher[dst]

    def pheromone(self, dst: int) -> dict[int, float]:
        """Pheromone towards `dst` per live next hop (tests, plots)."""
        return {nb: e[0] for nb, e in self._pher.get(dst, {}).items() if nb in self._nbr}

    def mac_time_s(self) -> float:
        """The running estimate T_mac (s)."""
        return self._t_mac

