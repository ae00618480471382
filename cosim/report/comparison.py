"""What `cosim compare` sets side by side, read from two run directories: the engines that computed
each run, delivery and every reason for loss, link delay, neighbour counts, and how far the same
robot is apart in the two runs over time.

Made for one scenario at two fidelities (fast radio and ns-3, kinematic and rigid bodies), two
seeds or two code versions: the runs must have the same robots; their times need not line up.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from cosim.report import run_data as rd

NS = 1e9


@dataclass
class Side:
    """One run's numbers for the comparison."""

    label: str
    engines: str
    sent: int
    delivered: int
    dropped: int
    reasons: dict[str, int] = field(default_factory=dict)
    delay_s: np.ndarray = field(default_factory=lambda: np.zeros(0))
    neighbours: float = float("nan")
    real_time_factor: float = float("nan")
    compile_s: float = 0.0
    """Wall time the run spent compiling kernels (left out of real_time_factor)."""

    @property
    def receptions_per_send(self) -> float:
        return self.delivered / self.sent if self.sent else float("nan")


def side(d: rd.RunData) -> Side:
    """The comparison's numbers for one run, from its trace and metrics."""
    net = d.network
    m = d.metrics
    s = d.scenario
    network = s.get("network", {})
    physics = s.get("physics", {})
    radio = network.get("radio", {}) if isinstance(network.get("radio"), dict) else {}
    engines = (f"network {network.get('backend', 'fast')} ({radio.get('standard', '?')}), "
               f"physics {physics.get('backend', 'kinematic')}, seed {s.get('seed')}")
    reasons: dict[str, int] = {}
    delay = np.zeros(0)
    if net:
        drop = net["kind"] == "drop"
        labels, counts = np.unique(net["drop_reason"][drop], return_counts=True)
        reasons = {str(k): int(v) for k, v in zip(labels, counts)}
        delay = link_delays(net)
    return Side(label=d.directory.name, engines=engines, sent=int(m.get("messages_sent", 0)),
                delivered=int(m.get("messages_delivered", 0)), dropped=int(m.get("messages_dropped", 0)),
                reasons=reasons, delay_s=delay, neighbours=float(m.get("mean_neighbors", float("nan"))),
                real_time_factor=float(m.get("real_time_factor", float("nan"))), compile_s=float(m.get("compile_s", 0.0)))


def link_delays(net: dict[str, np.ndarray]) -> np.ndarray:
    """Each reception's delay (s): its receive time less the send time of its frame (by tx id)."""
    send = net["kind"] == "send"
    deliver = net["kind"] == "deliver"
    ids = net["tx_id"][send]
    t_sent = net["t_ns"][send]
    order = np.argsort(ids, kind="stable")
    ids = ids[order]
    t_sent = t_sent[order]
    got = net["tx_id"][deliver]
    t_got = net["t_ns"][deliver]
    if not len(ids) or not len(got):
        return np.zeros(0)
    k = np.clip(np.searchsorted(ids, got), 0, len(ids) - 1)
    known = ids[k] == got
    return (t_got[known] - t_sent[k[known]]) / NS


def divergence(a: rd.RunData, b: rd.RunData) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """(times s, mean distance m, largest distance m) between the same robot in the two runs, at the
    position samples both runs have; None without common samples."""
    pa = a.positions
    pb = b.positions
    if not pa or not pb:
        return None
    n = int(max(pa["node"].max(), pb["node"].max())) + 1
    key_a = pa["t_ns"].astype(np.int64) * n + pa["node"].astype(np.int64)
    key_b = pb["t_ns"].astype(np.int64) * n + pb["node"].astype(np.int64)
    common, ia, ib = np.intersect1d(key_a, key_b, return_indices=True)
    if not len(common):
        return None
    xyz_a = np.column_stack([pa["x"][ia], pa["y"][ia], pa["z"][ia]])
    xyz_b = np.column_stack([pb["x"][ib], pb["y"][ib], pb["z"][ib]])
    dist = np.linalg.norm(xyz_a - xyz_b, axis=1)
    t = common // n
    times, inverse = np.unique(t, return_inverse=True)
    total = np.bincount(inverse, weights=dist)
    count = np.bincount(inverse)
    largest = np.full(len(times), -np.inf)
    np.maximum.at(largest, inverse, dist)
    return times / NS, total / count, largest


def summary_rows(a: Side, b: Side, drift: tuple[np.ndarray, np.ndarray, np.ndarray] | None) -> list[list[object]]:
    """The comparison table: quantity, run A, run B, B - A (where a difference means something)."""

    def row(name: str, x: float, y: float) -> list[object]:
        return [name, x, y, y - x]

    rows: list[list[object]] = [["engines", a.engines, b.engines, ""],
                                row("frames sent", a.sent, b.sent), row("receptions", a.delivered, b.delivered),
                                row("receptions per frame sent", a.receptions_per_send, b.receptions_per_send),
                                row("lost receptions (drop rows)", a.dropped, b.dropped)]
    for reason in sorted(set(a.reasons) | set(b.reasons)):
        rows.append(row(f"  lost: {reason}", a.reasons.get(reason, 0), b.reasons.get(reason, 0)))
    for name, q in (("median link delay (ms)", 50), ("95th percentile link delay (ms)", 95)):
        qa = float(np.percentile(a.delay_s, q)) * 1e3 if len(a.delay_s) else float("nan")
        qb = float(np.percentile(b.delay_s, q)) * 1e3 if len(b.delay_s) else float("nan")
        rows.append(row(name, qa, qb))
    rows.append(row("mean neighbours", a.neighbours, b.neighbours))
    if drift is not None:
        rows.append(["same robot apart at the end: mean (m)", "", "", float(drift[1][-1])])
        rows.append(["same robot apart at the end: largest (m)", "", "", float(drift[2][-1])])
    rows.append(row("real-time factor", a.real_time_factor, b.real_time_factor))
    rows.append(row("compiling kernels (s, not in the real-time factor)", a.compile_s, b.compile_s))
    return rows
