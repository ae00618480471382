"""AntHocNet's core: pheromone tables, ants, data forwarding and local repair (see the package docstring)."""

from __future__ import annotations

from collections import OrderedDict

from netstack.routing.anthocnet.ants import AntHandling
from netstack.routing.anthocnet.links import LinkMaintenance
from netstack.routing.anthocnet.params import AntHocNetParams
from netstack.routing.anthocnet.wire import (
    BANT,
    DATA,
    FANT,
    HELLO,
    LFN,
    PROACTIVE,
    REACTIVE,
    REPAIR,
    pack_routed,
    unpack_routed,
)
from netstack.routing.base import BROADCAST, Packet, RouteEntry, RoutingProtocol
from netstack.routing.seen import SeenPackets


class AntHocNet(AntHandling, LinkMaintenance, RoutingProtocol):
    """AntHocNet (see the module docstring); `routes()` gives pheromone, probability, hops and delay."""

    Params = AntHocNetParams

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
        self._pending: dict[int, tuple[Packet, list[int]]] = {}  # data tx id -> (packet, nodes it visited before here)
        self._seen = SeenPackets(4096)  # data packets handled here: a second copy is a duplicate
        self._gens: dict[tuple[int, int], list[float]] = {}  # (origin, generation) -> [best hops, best time, t]
        self._gen = 0
        self._setup: dict[int, list] = {}  # dst -> [tries, timer]
        self._repair: dict[int, object] = {}  # dst -> timer
        self._buffer: dict[int, list[tuple[Packet, list[int]]]] = {}
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
            self._seen.first_time(packet)
            self.link.send_frame(BROADCAST, pack_routed(DATA, packet, [self.link.node]), "data")
            return
        n = self._data_count.get(dst, 0) + 1
        self._data_count[dst] = n
        if n % self.params.proactive_every == 0 and self._candidates(dst):
            self._send_forward_ant(dst, PROACTIVE)
        self._seen.first_time(packet)
        self._forward_data(packet, [])

    def _forward_data(self, packet: Packet, visited: list[int]) -> None:
        """Send `packet` on to a neighbour it has not visited (never back into its own past: data
        cannot loop); with none, hold it and set up (at the source) or repair (elsewhere) a path."""
        dst = packet.dst
        cands = self._candidates(dst, visited)
        if cands:
            nb = self._choose(cands, self.params.beta_data)
            tx = self._unicast(nb, pack_routed(DATA, packet, [*visited, self.link.node]), "data")
            if tx is not None:
                self._pending[tx] = (packet, visited)
            return
        self._hold(packet, visited)
        if packet.src == self.link.node:
            self._start_setup(dst)
        else:
            self._start_repair(dst)

    def _hold(self, packet: Packet, visited: list[int]) -> None:
        buf = self._buffer.setdefault(packet.dst, [])
        buf.append((packet, visited))
        if len(buf) > self.params.buffer_packets:
            old = buf.pop(0)
            self.link.drop(old[0], "buffer_full")

    def _release(self, dst: int) -> None:
        for packet, visited in self._buffer.pop(dst, []):
            self._forward_data(packet, visited)

    def _drop_buffer(self, dst: int, reason: str) -> None:
        for packet, _ in self._buffer.pop(dst, []):
            self.link.drop(packet, reason)

    # -- path setup and repair ------------------------------------------------------------------
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
            packet, visited = unpack_routed(frame)
            if not self._seen.first_time(packet):  # a copy sent again after a lost ACK
                self.count("data_duplicates")
            elif packet.dst in (self.link.node, BROADCAST):
                self.link.deliver(packet, len(visited))
            elif len(visited) >= self.params.max_hops:
                self.link.drop(packet, "max_hops")
            else:
                self._forward_data(packet, visited)
        elif kind == FANT:
            self._on_forward_ant(src, frame)
        elif kind == BANT:
            self._on_backward_ant(src, frame)
        elif kind == LFN:
            self._on_notification(src, frame)

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
            self._forward_data(*info)

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

