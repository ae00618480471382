"""The fast radio with contention (`network.radio.contention: {model: csma}`): frames share one
medium, wait for it, and collide.

Path loss, obstacles, the receive threshold, the Bernoulli loss and the latency are the fast radio's
(netstack.fast.backend); medium access and reception follow netstack.fast.medium.Csma. The event
loop is compiled (netstack.fast.csma_loop): a frame costs a few passes over the nodes and nothing
per backoff slot. A frame is delivered at its end plus `latency`; a unicast frame's TxStatus comes
when its acknowledgement ends, or when it is given up. Positions are dead-reckoned from the last
sync to each frame's start, and each receiver's power is held for the frame's duration.
"""

from __future__ import annotations

import numpy as np

from netstack.backend import IndexedPayloads, NetEvents, TxStatus
from netstack.fast import csma_compiled as k
from netstack.fast.config import FastRadioConfig
from netstack.fast.csma_bounds import step_access, step_needs
from netstack.fast.csma_loop import push_many, run
from netstack.fast.medium import Csma
from netstack.fast.nodes import NodeTable
from netstack.fast.shadowing import Solids

_I64 = np.int64
CACHE_MAX_NODES = 2048
"""Up to this many nodes, each sender's power row is kept (N x N doubles: 32 MB at the limit)
while every node stands still since the last position sync."""


class CsmaBackend:
    """Implements netstack.backend.NetworkBackend with contention (see the module docstring)."""

    def __init__(self, config: FastRadioConfig, rng: np.random.Generator, solids: Solids | None = None) -> None:
        if not isinstance(config.contention, Csma):
            raise ValueError("CsmaBackend needs network.radio.contention: {model: csma}")
        self.config = config
        self.mac: Csma = config.contention
        self._rng = rng
        s = solids if solids is not None and config.shadowed and solids.count else Solids.none()
        self._solids = (s.box_centers, s.box_half, s.box_yaw, s.cyl_centers, s.cyl_radius, s.cyl_half_height)
        self.nodes = NodeTable()
        self._a: list[np.ndarray] = []  # the compiled loop's state: ni, nf, fr, fl, fp, hp, oi, of, ct, pi, pf, rnd, pc, pv, fw
        self._frames = 0
        self._payloads: list[bytes] = []
        self._queued: list[tuple[int, int, int]] = []  # (time, node, frame) not yet handed to the loop
        self.now_ns = 0

    # -- construction --------------------------------------------------------------------------
    def add_node(self, node_id: int) -> None:
        if self._a:
            raise RuntimeError("nodes must be added before the radio is used")
        self.nodes.add(node_id)

    def _params(self) -> tuple[np.ndarray, np.ndarray]:
        cfg = self.config
        mac = self.mac
        code, a, b, c = cfg.pathloss.kernel()
        pi = np.array([mac.slot_ns, mac.sifs_ns, mac.difs_ns, cfg.eifs_extra_ns(), mac.cca_delay_ns,
                       mac.preamble_ns, cfg.ack_airtime_ns(), cfg.latency_ns, cfg.queue_frames,
                       cfg.queue_lifetime_ns, cfg.retry_limit, mac.cw_min, mac.cw_max, cfg.overhead_bytes, code,
                       int(cfg.obstacles_block), int(mac.backoff_first), int(mac.virtual_carrier_sense)], dtype=_I64)
        rx_mw = 0.0 if cfg.pathloss.ignores_threshold() else 10.0 ** (cfg.rx_threshold_dbm / 10.0)
        pf = np.array([cfg.bit_rate_bps, 10.0 ** (cfg.noise_floor_dbm / 10.0), rx_mw, 10.0 ** (mac.energy_detect_dbm / 10.0),
                       10.0 ** (cfg.preamble_threshold_db / 10.0) if cfg.preamble_detection else 0.0,
                       10.0 ** (mac.sinr_threshold_db / 10.0),
                       cfg.loss_probability, cfg.tx_power_dbm, a, b, c, cfg.obstacle_loss_db])
        return pi, pf

    def _state(self) -> tuple:
        """The loop's arrays, made at first use (when every node is known)."""
        if not self._a:
            n = self.nodes.n
            ni = np.zeros((n, k.NODE_INTS), dtype=_I64)
            ni[:, k.IDLE] = -(1 << 40)  # the medium has been idle since long before the start
            ni[:, k.IFS] = self.mac.difs_ns
            ni[:, k.CW] = self.mac.cw_min
            ni[:, [k.ACCESS]] = k.NEVER
            ni[:, [k.LOCK, k.QHEAD, k.QTAIL]] = -1
            ni[:, k.ALIVE] = self.nodes.alive
            nf = np.zeros((n, k.NODE_FLOATS))
            nf[:, k.PX:k.PX + 3] = self.nodes.pos
            nf[:, k.PX + 3:k.PX + 6] = self.nodes.vel
            ct = np.zeros(k.COUNTERS, dtype=_I64)
            ct[k.C_SYNC] = self.nodes.sync_ns
            ct[k.C_OUTMIN] = k.NEVER
            pi, pf = self._params()
            ct[k.C_STILL] = not self.nodes.vel.any()
            cached = n if n <= CACHE_MAX_NODES else 0
            self._a = [ni, nf, np.zeros((64, k.FRAME_INTS), _I64), np.zeros((8, k.FLIGHT_INTS), _I64), np.zeros((8, n)),
                       np.zeros((64, 6), _I64), np.zeros((64, 6), _I64), np.zeros(64), ct, pi, pf, self._rng.random(4096),
                       np.zeros((cached, n)), np.full(n, -1, _I64), np.zeros((8, n), _I64)]
        return tuple(self._a)

    # -- interface -------------------------------------------------------------------------
    def set_positions(self, t_ns: int, xyz: np.ndarray, vel: np.ndarray) -> None:
        self.nodes.sync(t_ns, xyz, vel)
        if self._a:
            nf = self._a[1]
            ct = self._a[8]
            pv = self._a[13]
            nf[:, k.PX:k.PX + 3] = self.nodes.pos
            nf[:, k.PX + 3:k.PX + 6] = self.nodes.vel
            ct[k.C_SYNC] = t_ns
            ct[k.C_STILL] = not self.nodes.vel.any()
            pv[:] = -1  # cached power rows are for the old positions

    def set_alive(self, node_id: int, alive: bool) -> None:
        self.nodes.alive[node_id] = alive
        if self._a:
            self._a[0][node_id, k.ALIVE] = alive

    def set_listening(self, node_id: int, listening: bool) -> None:
        """Every delivery is returned at its own time anyway."""

    def set_passive_kinds(self, kinds: frozenset[int]) -> None:
        """Nothing to do: deliveries are returned at their own times."""

    def send(self, src: int, dst: int, payload: bytes, at_ns: int) -> int:
        cfg = self.config
        cfg.check_frame(src, dst, len(payload), self.nodes.n)
        self._state()
        f = self._frames
        if f == len(self._a[2]):
            self._a[2] = np.concatenate([self._a[2], np.zeros_like(self._a[2])])
        t = max(at_ns, self.now_ns)
        self._a[2][f] = (src, dst, cfg.airtime_to_ns(dst, len(payload)), t, 0, -1)
        self._frames += 1
        self._payloads.append(bytes(payload))
        self._queued.append((t, src, f))
        return f

    def send_many(self, srcs: np.ndarray, dsts: np.ndarray, payloads: list[bytes], at_ns: int) -> np.ndarray:
        """Frames queued one by one: with contention, frames sent together contend like any others."""
        return np.array([self.send(int(s), int(d), p, at_ns) for s, d, p in zip(np.asarray(srcs).tolist(),
                                                                                 np.asarray(dsts).tolist(), payloads)],
                        dtype=_I64)

    def advance(self, until_ns: int) -> tuple[int, NetEvents | None]:
        state = self._hand_over()
        while True:
            status, t = run(state, self._solids, until_ns)
            if status == k.NEED_ROOM:
                state = self._grow()
                continue
            if status == k.REACHED:
                self.now_ns = until_ns
                return until_ns, None
            self.now_ns = int(t)
            return self.now_ns, self._take(self.now_ns)

    def next_event_ns(self) -> int | None:
        if not self._a:
            return min(q[0] for q in self._queued) if self._queued else None
        ni = self._a[0]
        hp = self._a[5]
        ct = self._a[8]
        times = [int(ni[:, k.ACCESS].min()) if len(ni) else k.NEVER, int(ct[k.C_OUTMIN]) if ct[k.C_OUT] else k.NEVER,
                 int(hp[0, 0]) if ct[k.C_HEAP] else k.NEVER, *(q[0] for q in self._queued)]
        t = min(times)
        return None if t == k.NEVER else t

    def control_overhead(self) -> tuple[int, int]:
        """No routing runs inside this backend."""
        return 0, 0

    def frames_received(self) -> list[int] | None:
        """None: the coordinator counts the frames it hands to each stack."""
        return None

    def mac_counts(self) -> dict[str, int]:
        """Frames the queues took from above, and transmissions begun (retries and ACKs included),
        summed over the nodes, as ns-3's 802.11 backend counts them."""
        if not self._a:
            return {}
        ct = self._a[8]
        return {"mac_frames_queued": int(ct[k.C_QUEUED]), "phy_transmissions": int(ct[k.C_TX])}

    def ip_events(self) -> np.ndarray:
        """None: no routing runs inside this backend."""
        return np.zeros((0, 8), dtype=_I64)

    def close(self) -> None:
        self._a = []
        self._queued = []
        self._payloads = []

    # -- the compiled loop's arrays ------------------------------------------------------------
    def _hand_over(self) -> tuple:
        """Frames sent since the last call enter the loop's event queue."""
        state = self._state()
        if self._queued:
            hp = self._a[5]
            ct = self._a[8]
            need = int(ct[k.C_HEAP]) + len(self._queued) + 2 * self.nodes.n + 8
            if need > len(hp):
                self._a[5] = np.concatenate([hp, np.zeros((need + len(hp), 6), _I64)])
                state = tuple(self._a)
            push_many(state, np.array(self._queued, dtype=_I64))
            self._queued = []
        return state

    def _grow(self) -> tuple:
        """Room for the loop's next step (csma_loop.step_needs): flight slots, heap, output rows,
        random numbers, each at least doubled when it grows."""
        a = self._a
        n = self.nodes.n
        starts, heap, out, draws = step_needs(tuple(a), step_access(tuple(a)))
        fl = a[3]
        free = int(np.count_nonzero(fl[:, k.L_USED] == 0))
        if free < starts:
            extra = max(len(fl), starts - free)
            a[3] = np.concatenate([fl, np.zeros((extra, k.FLIGHT_INTS), _I64)])
            a[4] = np.concatenate([a[4], np.zeros((extra, n))])
            a[14] = np.concatenate([a[14], np.zeros((extra, n), _I64)])
        if heap > len(a[5]):
            a[5] = np.concatenate([a[5], np.zeros((max(len(a[5]), heap - len(a[5])), 6), _I64)])
        if out > len(a[6]):
            extra = max(len(a[6]), out - len(a[6]))
            a[6] = np.concatenate([a[6], np.zeros((extra, 6), _I64)])
            a[7] = np.concatenate([a[7], np.zeros(extra)])
        used = int(a[8][k.C_RND])
        if draws > len(a[11]):
            a[11] = np.concatenate([a[11][used:], self._rng.random(max(4096, 4 * n))])
            a[8][k.C_RND] = 0
        return tuple(a)

    def _take(self, t: int) -> NetEvents:
        """The outputs due at t, as one NetEvents; the rest stay."""
        dst, src, tx, rssi, one, other = k.take_due(tuple(self._a), t)
        if one:
            pool = [self._payloads[int(tx[0])]] if len(tx) else []
            index = np.zeros(len(tx), dtype=_I64)
        else:
            frames, index = np.unique(tx, return_inverse=True)
            pool = [self._payloads[f] for f in frames.tolist()]
        sizes = np.array([len(p) for p in pool], dtype=_I64)
        ev = NetEvents(t_ns=t, dst=dst, src=src, tx_id=tx, rssi_dbm=rssi, snr_db=rssi - self.config.noise_floor_dbm,
                       size=sizes[index], payloads=IndexedPayloads(pool, index))
        if len(other):
            fr = self._a[2]
            kind = other[:, 1]
            ev.tx_status = [TxStatus(t, f, int(fr[f, k.F_SRC]), d, c == 1) for d, f, c in other[kind == k.O_STATUS, 2:5].tolist()]
            drop = other[kind == k.O_DROP]
            if len(drop):
                ev.drop_dst = drop[:, 2].copy()
                ev.drop_src = fr[drop[:, 3], k.F_SRC]
                ev.drop_tx_id = drop[:, 3].copy()
                ev.drop_reason = drop[:, 4].astype(np.int8)
        return ev
