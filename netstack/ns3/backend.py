"""`ns3` network backend: ns-3's 802.11 ad hoc (YansWifi) and 802.15.4 (LrWpan) models, in process through cppyy.

The C++ helper (cosim_ns3.h) is compiled once per process (netstack.ns3.loader). A backend instance owns one ns-3
simulation: creating one destroys any earlier Simulator state in the process, and `close()`
destroys it again, so several runs can follow each other in one interpreter.
"""

from __future__ import annotations

import ctypes
import logging
import math
from pathlib import Path

import numpy as np

from netstack.backend import BROADCAST, Heard, NetEvents, PayloadView, TxStatus
from netstack.fast.pathloss import Friis, LogDistance, TwoRayGround, UnitDisk
from netstack.fast.shadowing import Solids, flat
from netstack.ns3.config import FRAME_LIMIT_TEXT, RATE_MANAGERS, Ns3RadioConfig
from netstack.ns3.loader import load

log = logging.getLogger(__name__)
def loss_model(pathloss) -> tuple[str, list[str], list[str]]:
    """ns-3 TypeId and attributes for one of our path-loss models."""
    if isinstance(pathloss, LogDistance):
        return "ns3::LogDistancePropagationLossModel", ["Exponent", "ReferenceDistance", "ReferenceLoss"], [
            repr(pathloss.exponent), repr(pathloss.reference_distance_m), repr(pathloss.reference_loss_db)]
    if isinstance(pathloss, Friis):
        return "ns3::FriisPropagationLossModel", ["Frequency"], [repr(pathloss.frequency_hz)]
    if isinstance(pathloss, TwoRayGround):
        return "ns3::TwoRayGroundPropagationLossModel", ["Frequency", "HeightAboveZ"], [
            repr(pathloss.frequency_hz), repr(pathloss.antenna_height_m)]
    if isinstance(pathloss, UnitDisk):
        return "ns3::RangePropagationLossModel", ["MaxRange"], [repr(pathloss.range_m)]
    raise ValueError(f"the ns3 backend has no equivalent of path-loss model {type(pathloss).__name__}")


def _copy(address: int, count: int, dtype) -> np.ndarray:
    """A numpy copy of `count` items at a C++ buffer's address (reading through cppyy's buffer view
    is ~30x slower)."""
    if count == 0:
        return np.zeros(0, dtype)
    ctype = ctypes.c_int64 if dtype is np.int64 else ctypes.c_double
    return np.frombuffer((ctype * count).from_address(address), dtype=dtype).copy()


class Ns3Backend:
    """Implements netstack.backend.NetworkBackend on ns-3 (see the module docstring)."""

    def __init__(self, config: Ns3RadioConfig, rng_seed: int, rng_run: int, pcap_prefix: str | None = None,
                 ip_routing: str | None = None, ip_port: int = 50000, ip_attributes: dict[str, str] | None = None,
                 solids: Solids | None = None) -> None:
        """`ip_routing` ('aodv', 'olsr', 'dsdv'): install IPv4 with that ns-3 protocol, its attributes set
        from `ip_attributes` (ns-3 names and strings); sends become UDP datagrams to the destination
        node, routed by ns-3, on `ip_port`. `solids`: the obstacles that shadow links when the radio
        says so (obstacle_loss_db, obstacles_block)."""
        self.config = config
        self._solids = solids if solids is not None and config.shadowed and solids.count else None
        self.ip_routing = ip_routing
        self._ip_attributes = dict(ip_attributes or {})
        self._ip_port = ip_port
        self._rng_seed = max(1, rng_seed)
        self._rng_run = rng_run
        self._pcap_prefix = pcap_prefix
        self._n = 0
        self._net = None
        self._ns = None
        self._listening: set[int] = set()
        self._dead: set[int] = set()
        self._passive: frozenset[int] = frozenset()
        self._last_pos: np.ndarray | None = None
        self._last_vel: np.ndarray | None = None
        self.now_ns = 0

    # -- construction ------------------------------------------------------------------------
    def add_node(self, node_id: int) -> None:
        if self._net is not None:
            raise RuntimeError("nodes must be added before the simulation starts")
        if node_id != self._n:
            raise ValueError(f"nodes must be added in order 0..N-1; expected {self._n}, got {node_id}")
        self._n += 1

    def _ensure(self) -> None:
        if self._net is not None:
            return
        ns, helper = load()
        self._ns = ns
        ns.Simulator.Destroy()  # a clean simulator even if an earlier run in this process left state
        ns.RngSeedManager.SetSeed(self._rng_seed)
        ns.RngSeedManager.SetRun(self._rng_run)
        cfg = self.config
        net = helper.Net(self._n)
        loss_type, names, values = loss_model(cfg.pathloss)
        if self._solids is not None:
            boxes, cylinders = flat(self._solids)
            net.SetObstacles(cfg.obstacle_loss_db, cfg.obstacles_block, boxes, cylinders)
        if isinstance(cfg.pathloss, UnitDisk):
            net.ChainFriis(cfg.pathloss.frequency_hz)  # within the disk, the same RSSI as the fast radio's
        if cfg.is_wifi:
            err = net.SetupWifi(cfg.standard, RATE_MANAGERS[cfg.rate_manager], cfg.wifi_data_mode(), cfg.tx_power_dbm,
                                loss_type, names, values, cfg.rx_sensitivity_dbm, cfg.preamble_min_rssi_dbm,
                                cfg.preamble_threshold_db, cfg.wifi_channel_settings(), 0, self.ip_routing is None,
                                cfg.noise_figure_db, cfg.preamble_detection)
        else:
            err = net.SetupLrWpan(cfg.tx_power_dbm, loss_type, names, values, cfg.channel or 11, 0,
                                  cfg.rx_sensitivity_dbm, cfg.noise_figure_db)
        if not err:
            err = net.LimitMac(cfg.control_mode or "", _or_minus(cfg.retry_limit), _or_minus(cfg.queue_frames),
                               _or_minus(cfg.queue_lifetime_ns))
        if err:
            raise ValueError(f"ns-3 radio setup failed: {err}")
        if self.ip_routing is not None:
            attrs = "\n".join(f"{k}={v}" for k, v in self._ip_attributes.items())
            err = net.SetupInternet(self.ip_routing, self._ip_port, 100_000, attrs)
            if err:
                raise ValueError(f"ns-3 IP routing setup failed: {err}")
        if self._pcap_prefix is not None:
            Path(self._pcap_prefix).parent.mkdir(parents=True, exist_ok=True)
            net.EnablePcap(self._pcap_prefix)
        for node in self._listening:
            net.SetListening(node, True)
        for node in self._dead:
            net.SetAlive(node, False)
        for k in self._passive:
            net.SetPassive(k, True)
        self._header = np.frombuffer((ctypes.c_int64 * 9).from_address(int(net.HeaderAddr())), dtype=np.int64)
        self._net = net

    # -- interface ---------------------------------------------------------------------------
    def set_positions(self, t_ns: int, xyz: np.ndarray, vel: np.ndarray) -> None:
        self._ensure()
        pos = np.array(xyz, dtype=np.float64).ravel()
        v = np.array(vel, dtype=np.float64).ravel()
        if self._last_pos is not None and not v.any() and not self._last_vel.any() and np.array_equal(pos, self._last_pos):
            return  # everyone at rest where ns-3 already has them (with a velocity, ns-3 extrapolates: push again)
        self._net.SetPositions(pos, v, self._n)
        self._last_pos = pos
        self._last_vel = v

    def set_listening(self, node_id: int, listening: bool) -> None:
        """Stop early at deliveries to this node (its controller reacts to them)."""
        (self._listening.add if listening else self._listening.discard)(node_id)
        if self._net is not None:
            self._net.SetListening(node_id, listening)

    def set_passive_kinds(self, kinds: frozenset[int]) -> None:
        """Deliveries whose payload starts with one of these bytes do not stop ns-3 early: they come
        with the next event, each stamped with its receive time (see RoutingProtocol.passive_kinds)."""
        self._passive = frozenset(kinds)
        if self._net is not None:
            for k in range(256):
                self._net.SetPassive(k, k in self._passive)

    def set_alive(self, node_id: int, alive: bool) -> None:
        (self._dead.discard if alive else self._dead.add)(node_id)
        if self._net is not None:
            self._net.SetAlive(node_id, alive)

    def send(self, src: int, dst: int, payload: bytes, at_ns: int) -> int:
        limit = self.config.max_payload_bytes - (28 if self.ip_routing else 0)  # IPv4 + UDP headers
        if len(payload) > limit:
            detail = FRAME_LIMIT_TEXT.get(self.config.standard, f"{self.config.standard} frames carry at most {limit} bytes")
            raise ValueError(f"payload of {len(payload)} bytes is too large: {detail}")
        if not 0 <= src < self._n:
            raise ValueError(f"unknown source node {src}")
        if dst != BROADCAST and not 0 <= dst < self._n:
            raise ValueError(f"unknown destination node {dst}")
        self._ensure()
        if at_ns != self._net.NowNs():
            raise ValueError(f"send at {at_ns} ns but ns-3 is at {self._net.NowNs()} ns; sends happen at the current time")
        return int(self._net.Send(src, dst, bytes(payload)))

    def send_many(self, srcs: np.ndarray, dsts: np.ndarray, payloads: list[bytes], at_ns: int) -> np.ndarray:
        """One by one: ns-3 schedules each frame on its own device."""
        return np.array([self.send(int(s), int(d), p, at_ns) for s, d, p in zip(srcs, dsts, payloads)], dtype=np.int64)

    def next_event_ns(self) -> int | None:
        # ns-3 does not expose its next event time; the current time is a safe lower bound.
        return self.now_ns

    def advance(self, until_ns: int) -> tuple[int, NetEvents | None]:
        if self._net is None:
            self._ensure()
        reached = self._net.Advance(until_ns)
        self.now_ns = reached
        header = self._header.tolist()
        if header[0] == 0 and header[1] == 0 and header[7] == 0 and header[8] == 0:
            return reached, None
        return reached, self._collect(reached, header)

    def control_overhead(self) -> tuple[int, int]:
        """Routing packets ns-3's protocol transmitted (every hop) and their bytes (routing messages
        without IP/UDP headers); (0, 0) without IP routing."""
        if self._net is None or self.ip_routing is None:
            return 0, 0
        return int(self._net.ControlPackets()), int(self._net.ControlBytes())

    def ip_events(self) -> np.ndarray:
        """With IP routing: data packets ns-3's IP stack forwarded or dropped, one row each: time (ns),
        node, kind (0 forward, 1 drop), src, dst, port, seq, then the hop count after this hop or
        ns-3's drop reason (Ipv4L3Protocol::DropReason); (0, 8) without."""
        if self._net is None or self.ip_routing is None:
            return np.zeros((0, 8), dtype=np.int64)
        rows = int(self._net.IpEventRows())
        if rows == 0:
            return np.zeros((0, 8), dtype=np.int64)
        buf = (ctypes.c_int64 * (rows * 8)).from_address(int(self._net.IpEventsAddr()))
        return np.frombuffer(buf, dtype=np.int64).reshape(rows, 8).copy()

    def mac_counts(self) -> dict[str, int]:
        """802.11 only: frames the MACs took from above (data, routing, ARP) and transmissions the PHYs
        began (with retransmissions and ACKs), summed over the nodes; {} otherwise."""
        if self._net is None or not self.config.is_wifi:
            return {}
        n = range(self._n)
        return {"mac_frames_queued": sum(int(self._net.MacFramesQueued(i)) for i in n),
                "phy_transmissions": sum(int(self._net.PhyTransmissions(i)) for i in n)}

    def frames_received(self) -> list[int] | None:
        """With IP routing: frames each node's MAC passed up (data, routing and ARP); else None."""
        if self._net is None or self.ip_routing is None:
            return None
        return [int(self._net.FramesReceived(i)) for i in range(self._n)]

    def close(self) -> None:
        if self._net is not None:
            self._net = None
            self._ns.Simulator.Destroy()

    # -- results -----------------------------------------------------------------------------
    def _collect(self, reached: int, header: list[int]) -> NetEvents:
        n_rows, n_status, n_bytes, d_int, d_real, s_int, payload, n_drops, n_heard = header
        ints = _copy(d_int, 7 * n_rows, np.int64).reshape(-1, 7)
        reals = _copy(d_real, 2 * n_rows, np.float64).reshape(-1, 2)
        offsets = ints[:, 5]
        sizes = ints[:, 4]
        payloads = PayloadView(ctypes.string_at(payload, n_bytes) if n_bytes else b"", offsets, sizes)
        status = []
        if n_status:
            rows = _copy(s_int, 5 * n_status, np.int64).reshape(-1, 5).tolist()
            status = [TxStatus(t, tx, src, dst, bool(ok)) for t, tx, src, dst, ok in rows]
        return NetEvents(
            t_ns=reached,
            dst=ints[:, 1],
            src=ints[:, 2],
            tx_id=ints[:, 3],
            rssi_dbm=reals[:, 0],
            snr_db=reals[:, 1],
            size=sizes,
            payloads=payloads,
            tx_status=status,
            rx_t_ns=ints[:, 0],
            lqi=ints[:, 6],
            heard=self._heard(n_heard),
            **self._drops(n_drops),
        )

    def _heard(self, count: int) -> Heard | None:
        """With IP routing, the frames each node's MAC passed up since the last advance, by one-hop
        sender: the deliveries are datagrams from their origin, which may be hops away."""
        if self.ip_routing is None:
            return None
        rows = _copy(int(self._net.HIntAddr()), 3 * count, np.int64).reshape(-1, 3)
        return Heard(rows[:, 0], rows[:, 1], rows[:, 2])

    def _drops(self, count: int) -> dict[str, np.ndarray]:
        """Receptions ns-3 lost since the last advance (its PHY drop traces, MAC give-ups), as
        NetEvents' drop columns with their own times; reasons are netstack.backend.DROP_REASONS."""
        if not count:
            return {}
        rows = _copy(int(self._net.XIntAddr()), 5 * count, np.int64).reshape(-1, 5)
        return {"drop_t_ns": rows[:, 0], "drop_dst": rows[:, 1], "drop_src": rows[:, 2], "drop_tx_id": rows[:, 3],
                "drop_reason": rows[:, 4].astype(np.int8)}


def _or_minus(value: int | None) -> int:
    """A limit for ns-3, -1 for its default."""
    return -1 if value is None else value


def effective_range_m(config: Ns3RadioConfig) -> float:
    """Distance at which the received power falls to what the receiver needs: for 802.11 the
    preamble-detection threshold (or the sensitivity, if higher), for 802.15.4 ns-3's sensitivity."""
    if config.is_wifi:
        threshold = max(config.preamble_min_rssi_dbm, config.rx_sensitivity_dbm)
    else:
        threshold = config.rx_sensitivity_dbm
    r = config.pathloss.max_range_m(config.tx_power_dbm, threshold)
    return float(r) if math.isfinite(r) else math.inf
