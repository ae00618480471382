"""The `fast` network backend: a numpy radio model for thousands of nodes and for quick tests.

Model: received power = tx power - path loss(distance); a frame is received when that power reaches
the threshold (or inside the disk, for unit_disk) and an independent Bernoulli draw does not lose it.
A node's radio sends one frame at a time: a frame starts when the radio is free, lasts
(payload + overhead) * 8 / bit_rate, and arrives `latency` after it ends. With `obstacle_loss_db`
the world's obstacles take that much off the received power for each one the line of sight crosses
(`obstacles_block`: any crossing blocks the link), counted for all receivers at once. There is no interference
or collision model; use the ns-3 backend where that matters. Unicast frames report a TxStatus at
their arrival time: acked if received, dropped otherwise (no MAC retries).
"""

from __future__ import annotations

import heapq
import itertools
import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from netstack.backend import BROADCAST, NS_PER_S, IndexedPayloads, NetEvents, TxStatus
from netstack.fast import kernels
from netstack.fast.cells import SendIndex
from netstack.fast.config import FastRadioConfig
from netstack.fast.nodes import NodeTable
from netstack.fast.shadowing import Solids, shadowed_rssi


@dataclass
class _InFlight:
    t_ns: int
    tx_id: int
    src: int
    dst_req: int
    receivers: np.ndarray
    rssi: np.ndarray
    lost: np.ndarray  # receivers in range that the loss draw dropped
    payload: bytes


@dataclass
class _Burst:
    """Broadcast frames sent together that arrive together: one row per reception, as arrays."""

    t_ns: int
    src: np.ndarray
    tx_id: np.ndarray
    receivers: np.ndarray
    rssi: np.ndarray
    payloads: IndexedPayloads  # one per row
    lost_src: np.ndarray
    lost_tx: np.ndarray
    lost: np.ndarray


class FastBackend:
    """Implements netstack.backend.NetworkBackend with the model described in the module docstring."""

    def __init__(self, config: FastRadioConfig, rng: np.random.Generator, solids: Solids | None = None) -> None:
        self.config = config
        self._rng = rng
        self._solids = solids if solids is not None and config.shadowed and solids.count else None
        self.nodes = NodeTable()
        self._busy_until = np.zeros(0, dtype=np.int64)
        self._pending: list[tuple[int, int, _InFlight | _Burst]] = []
        self._seq = itertools.count()
        self._tx_ids = itertools.count()
        self._range = config.max_range_m()
        self._ignores_threshold = config.pathloss.ignores_threshold()
        self._cells = SendIndex(0, self._range)  # the sends' cell index, sized at the first send
        self._synced = False  # positions synced since the index last looked at them
        self._sender: Callable[[int, int, bytes, int], int] | None = None  # an engine's, once it has taken over
        self.now_ns = 0

    # -- interface -------------------------------------------------------------------------
    def add_node(self, node_id: int) -> None:
        self.nodes.add(node_id)
        self._busy_until = np.zeros(self.nodes.n, dtype=np.int64)

    def set_positions(self, t_ns: int, xyz: np.ndarray, vel: np.ndarray) -> None:
        self.nodes.sync(t_ns, xyz, vel)
        self._synced = True  # the single-send index is checked against these positions at its next use

    def set_alive(self, node_id: int, alive: bool) -> None:
        self.nodes.alive[node_id] = alive

    def set_listening(self, node_id: int, listening: bool) -> None:
        """Every delivery is returned at its own time anyway."""

    def send(self, src: int, dst: int, payload: bytes, at_ns: int) -> int:
        if self._sender is not None:
            return self._sender(src, dst, payload, at_ns)
        cfg = self.config
        cfg.check_frame(src, dst, len(payload), self.nodes.n)
        tx_id = next(self._tx_ids)
        start = max(at_ns, int(self._busy_until[src]))
        end = start + cfg.airtime_to_ns(dst, len(payload))
        self._busy_until[src] = end
        arrive = end + cfg.latency_ns
        receivers, rssi = self._reachable(src, dst, start)
        lost = np.zeros(0, dtype=np.int64)
        if cfg.loss_probability > 0.0 and len(receivers):
            drop = self._rng.random(len(receivers)) < cfg.loss_probability
            lost = receivers[drop]
            receivers, rssi = receivers[~drop], rssi[~drop]
        flight = _InFlight(arrive, tx_id, src, dst, receivers, rssi, lost, bytes(payload))
        heapq.heappush(self._pending, (arrive, next(self._seq), flight))
        return tx_id

    def send_many(self, srcs: np.ndarray, dsts: np.ndarray, payloads: list[bytes], at_ns: int) -> np.ndarray:
        """Frames from several nodes at one instant: broadcasts from free radios are answered with one
        spatial query for all of them (same receivers, order and loss draws as one by one); anything
        else is sent one by one."""
        srcs = np.asarray(srcs, dtype=np.int64)
        dsts = np.asarray(dsts, dtype=np.int64)
        k = len(srcs)
        if k == 0:
            return np.zeros(0, dtype=np.int64)
        src_list = srcs.tolist()
        if (self._sender is not None or np.any(dsts != BROADCAST) or len(set(src_list)) != k or min(src_list) < 0
                or max(src_list) >= self.nodes.n or np.any(self._busy_until[srcs] > at_ns)):
            return np.array([self.send(int(s), int(d), p, at_ns) for s, d, p in zip(srcs.tolist(), dsts.tolist(), payloads)],
                            dtype=np.int64)
        cfg = self.config
        sizes = np.fromiter((len(p) for p in payloads), dtype=np.int64, count=k)
        if sizes.max() > cfg.max_payload_bytes:
            raise ValueError(f"payload of {int(sizes.max())} bytes exceeds the radio's limit of {cfg.max_payload_bytes} bytes")
        tx_ids = np.fromiter(itertools.islice(self._tx_ids, k), dtype=np.int64, count=k)
        size_list = sizes.tolist()
        airtime = {s: cfg.airtime_to_ns(BROADCAST, s) for s in set(size_list)}
        end = at_ns + np.fromiter((airtime[s] for s in size_list), dtype=np.int64, count=k)
        self._busy_until[srcs] = end
        arrive = end + cfg.latency_ns
        row, node, rssi = self._reach_many(srcs, at_ns)
        lost_row = np.zeros(0, dtype=np.int64)
        lost = np.zeros(0, dtype=np.int64)
        if cfg.loss_probability > 0.0 and len(node):
            drop = self._rng.random(len(node)) < cfg.loss_probability
            lost_row, lost = row[drop], node[drop]
            row, node, rssi = row[~drop], node[~drop], rssi[~drop]
        for t in sorted(set(arrive.tolist())):
            sel = arrive[row] == t
            lsel = arrive[lost_row] == t
            burst = _Burst(t, srcs[row[sel]], tx_ids[row[sel]], node[sel], rssi[sel], IndexedPayloads(payloads, row[sel]),
                           srcs[lost_row[lsel]], tx_ids[lost_row[lsel]], lost[lsel])
            heapq.heappush(self._pending, (t, next(self._seq), burst))
        return tx_ids

    def _reach_many(self, srcs: np.ndarray, t_ns: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(sender row, receiver, rssi) of broadcasts from `srcs` at t_ns: the receivers `send` would
        find for each, through the same index, by the same receive test."""
        nodes = self.nodes
        dt = (t_ns - nodes.sync_ns) / NS_PER_S
        room = self._index()
        limit = self._range if self._ignores_threshold else math.inf  # the disk's edge is its loss's
        row, node, dist = kernels.reach_many(room.cells, nodes.pos, nodes.vel, dt, nodes.alive, srcs, limit, room.found,
                                             room.dist)
        rssi = self.config.tx_power_dbm - self.config.pathloss.loss_db(dist)
        if self._solids is not None:
            pos = self._positions_at(t_ns, slice(None))
            rssi = self._shadow(pos[srcs[row]], pos[node], rssi)
        ok = np.isfinite(rssi) if self._ignores_threshold else rssi >= self.config.rx_threshold_dbm
        return row[ok], node[ok], rssi[ok]

    def _shadow(self, a: np.ndarray, b: np.ndarray, rssi: np.ndarray) -> np.ndarray:
        """Received power after the obstacles each line of sight crosses."""
        return shadowed_rssi(a, b, rssi, self._solids, self.config.obstacle_loss_db, self.config.obstacles_block)

    def advance(self, until_ns: int) -> tuple[int, NetEvents | None]:
        pending = self._pending
        if not pending or pending[0][0] > until_ns:
            self.now_ns = until_ns
            return until_ns, None
        t = pending[0][0]
        flights = []
        while pending and pending[0][0] == t:
            flights.append(heapq.heappop(pending)[2])
        self.now_ns = t
        return t, self._events(t, flights)

    def next_event_ns(self) -> int | None:
        return self._pending[0][0] if self._pending else None

    def set_passive_kinds(self, kinds: frozenset[int]) -> None:
        """Nothing to do: this backend stops at every delivery time anyway, which is as exact."""

    def control_overhead(self) -> tuple[int, int]:
        """No routing runs inside this backend."""
        return 0, 0

    def frames_received(self) -> list[int] | None:
        """None: the coordinator counts the frames it hands to each stack."""
        return None

    def mac_counts(self) -> dict[str, int]:
        """None: this backend has no MAC (a frame is one transmission)."""
        return {}

    def ip_events(self) -> np.ndarray:
        """None: no routing runs inside this backend."""
        return np.zeros((0, 8), dtype=np.int64)

    def close(self) -> None:
        self._pending.clear()

    def hand_over(self, sender: Callable[[int, int, bytes, int], int]) -> tuple[np.random.Generator, np.ndarray, int]:
        """For an engine that runs this radio's model itself (cosim.fused), from now to the end of the
        run: the loss stream, the busy-until times (in place) and the next transmission id; `sender`
        takes every later send (src, dst, payload, at_ns) and returns its transmission id."""
        if self._pending or self._solids is not None:
            raise ValueError("hand_over: frames in the air or obstacles to shadow; the fused engine cannot take over")
        self._sender = sender
        return self._rng, self._busy_until, next(self._tx_ids)

    @property
    def shadows(self) -> bool:
        """Whether the world's obstacles weaken this radio's links."""
        return self._solids is not None

    # -- model -----------------------------------------------------------------------------
    def _positions_at(self, t_ns: int, idx: np.ndarray | slice) -> np.ndarray:
        dt = (t_ns - self.nodes.sync_ns) / NS_PER_S
        if dt == 0.0:
            return self.nodes.pos[idx]
        return self.nodes.pos[idx] + self.nodes.vel[idx] * dt

    def _reachable(self, src: int, dst: int, t_ns: int) -> tuple[np.ndarray, np.ndarray]:
        """Alive nodes that hear src's frame starting at t_ns (only dst for a unicast), with their RSSI."""
        nodes = self.nodes
        if not nodes.alive[src]:
            return np.zeros(0, dtype=np.int64), np.zeros(0)
        dt = (t_ns - nodes.sync_ns) / NS_PER_S
        room = self._index()
        cand = room.candidates(src, dt) if dst == BROADCAST else np.array([dst], dtype=np.int64)
        limit = self._range if self._ignores_threshold else math.inf  # the disk's edge is its loss's
        k = kernels.within(nodes.pos, nodes.vel, dt, nodes.alive, cand, len(cand), src, limit, room.found, room.dist)
        cand, dist = room.found[:k], room.dist[:k]  # views: what is returned below is indexed (copied) from them
        rssi = self.config.tx_power_dbm - self.config.pathloss.loss_db(dist)
        if self._solids is not None and len(cand):
            here = self._positions_at(t_ns, np.array([src]))
            rssi = self._shadow(np.repeat(here, len(cand), axis=0), self._positions_at(t_ns, cand), rssi)
        ok = np.isfinite(rssi) if self._ignores_threshold else rssi >= self.config.rx_threshold_dbm
        return cand[ok], rssi[ok]

    def _index(self) -> SendIndex:
        """The sends' cell index (netstack.fast.cells), sized to the nodes, having looked at the
        positions of the last sync (once after each)."""
        if self._cells.n != self.nodes.n:  # nodes added since the last send
            self._cells = SendIndex(self.nodes.n, self._range)
            self._synced = True
        if self._synced:
            self._cells.look(self.nodes.pos, self.nodes.vel)
            self._synced = False
        return self._cells

    def _burst_rows(self, f: _Burst, cols: tuple[list, list, list, list, list]) -> IndexedPayloads:
        """Append a burst's rows whose receiver is still alive to (dst, src, tx, rssi, size); return their payloads."""
        alive = self.nodes.alive[f.receivers]
        dsts, srcs, txs, rssis, sizes = cols
        dsts.append(f.receivers[alive])
        srcs.append(f.src[alive])
        txs.append(f.tx_id[alive])
        rssis.append(f.rssi[alive])
        kept = f.payloads.take(alive)
        sizes.append(kept.sizes())
        return kept

    def _events(self, t: int, flights: list[_InFlight | _Burst]) -> NetEvents:
        noise = self.config.noise_floor_dbm
        status: list[TxStatus] = []
        dsts, srcs, txs, rssis, sizes, payloads = [], [], [], [], [], []
        ddst, dsrc, dtx, dreason = [], [], [], []
        for f in flights:
            if isinstance(f, _Burst):
                payloads.append(self._burst_rows(f, (dsts, srcs, txs, rssis, sizes)))
                if len(f.lost):
                    ddst.append(f.lost)
                    dsrc.append(f.lost_src)
                    dtx.append(f.lost_tx)
                    dreason.append(np.zeros(len(f.lost), dtype=np.int8))
                continue
            alive = self.nodes.alive[f.receivers]  # a node may have died while the frame was in the air
            rec = f.receivers[alive]
            dsts.append(rec)
            srcs.append(np.full(len(rec), f.src, dtype=np.int64))
            txs.append(np.full(len(rec), f.tx_id, dtype=np.int64))
            rssis.append(f.rssi[alive])
            sizes.append(np.full(len(rec), len(f.payload), dtype=np.int64))
            payloads.append(IndexedPayloads((f.payload,), np.zeros(len(rec), dtype=np.int64)))
            if len(f.lost):
                ddst.append(f.lost)
                dsrc.append(np.full(len(f.lost), f.src, dtype=np.int64))
                dtx.append(np.full(len(f.lost), f.tx_id, dtype=np.int64))
                dreason.append(np.zeros(len(f.lost), dtype=np.int8))
            if f.dst_req != BROADCAST:
                acked = len(rec) == 1
                status.append(TxStatus(t, f.tx_id, f.src, f.dst_req, acked))
                if not acked and not len(f.lost):
                    ddst.append(np.array([f.dst_req], dtype=np.int64))
                    dsrc.append(np.array([f.src], dtype=np.int64))
                    dtx.append(np.array([f.tx_id], dtype=np.int64))
                    reason = 2 if not self.nodes.alive[f.dst_req] else 1
                    dreason.append(np.array([reason], dtype=np.int8))
        rssi = np.concatenate(rssis) if len(rssis) > 1 else rssis[0]
        ev = NetEvents(
            t_ns=t,
            dst=np.concatenate(dsts) if len(dsts) > 1 else dsts[0],
            src=np.concatenate(srcs) if len(srcs) > 1 else srcs[0],
            tx_id=np.concatenate(txs) if len(txs) > 1 else txs[0],
            rssi_dbm=rssi,
            snr_db=rssi - noise,
            size=np.concatenate(sizes) if len(sizes) > 1 else sizes[0],
            payloads=payloads[0] if len(payloads) == 1 else IndexedPayloads.concat(payloads),
            tx_status=status,
        )
        if ddst:
            ev.drop_dst = np.concatenate(ddst)
            ev.drop_src = np.concatenate(dsrc)
            ev.drop_tx_id = np.concatenate(dtx)
            ev.drop_reason = np.concatenate(dreason)
        return ev
