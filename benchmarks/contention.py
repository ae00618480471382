"""The fast radio's contention model against ns-3's 802.11b on the same layouts and traffic.

200 static nodes (a 20 x 10 grid at 20 m, or uniform in a 300 m square), each broadcasting
100-byte frames as a Poisson process of `rate` frames per second, from light load to far past
saturation. ns-3 runs 802.11b ad hoc at 1 Mbit/s with its defaults (16.02 dBm, log-distance
exponent 3, preamble detection at -82 dBm: about 51 m); the fast radio gets the same power, path
loss and threshold, ns-3's noise floor for a 22 MHz channel (-93.6 dBm with its 7 dB noise
figure), 802.11b's MAC and PHY overheads, and `contention: {model: csma}` with its defaults.
Both backends are driven through the same NetworkBackend calls by the same loop.

Delivery ratio: receptions / (frames offered x nodes within the no-interference range of their
sender). Delay: reception time - offer time (queueing, backoff and airtime). Prints one JSON line
per point; `--figure` draws docs/contention.png.

    python benchmarks/contention.py                   # both layouts, six loads, 4 s of traffic
    python benchmarks/contention.py --layouts grid --rates 10 40 --seconds 2
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.cli_run import plain_line  # noqa: E402
from netstack.backend import BROADCAST, NS_PER_S  # noqa: E402
from netstack.fast.config import FastRadioConfig  # noqa: E402
from netstack.fast.csma import CsmaBackend  # noqa: E402
from netstack.fast.medium import Csma  # noqa: E402
from netstack.ns3.config import Ns3RadioConfig  # noqa: E402

PAYLOAD = 100
FAST = FastRadioConfig(tx_power_dbm=16.0206, rx_threshold_dbm=-82.0, noise_floor_dbm=-93.6, bit_rate_bps=1e6,
                       latency_ns=0, overhead_bytes=36, max_payload_bytes=2296, contention=Csma())
NS3 = Ns3RadioConfig(standard="802.11b")


def layout(name: str, rng: np.random.Generator) -> np.ndarray:
    if name == "grid":
        i = np.arange(200)
        return np.column_stack([(i % 20) * 20.0, (i // 20) * 20.0, np.zeros(200)])
    return np.column_stack([rng.uniform(0, 300, 200), rng.uniform(0, 300, 200), np.zeros(200)])


def traffic(n: int, rate: float, seconds: float, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """(times ns, sources) of Poisson broadcasts, in time order."""
    counts = rng.poisson(rate * seconds, n)
    src = np.repeat(np.arange(n), counts)
    t = np.round(rng.uniform(0, seconds, len(src)) * NS_PER_S).astype(np.int64) + 1_000_000
    order = np.lexsort((src, t))
    return t[order], src[order]


def partners(pos: np.ndarray, srcs: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """For unicast traffic: each frame's destination, a random node within 80% of the range."""
    d = np.linalg.norm(pos[:, None, :] - pos[None, :, :], axis=2)
    near = [np.flatnonzero((row > 0) & (row <= 0.8 * FAST.max_range_m())) for row in d]
    return np.array([near[s][rng.integers(len(near[s]))] if len(near[s]) else BROADCAST for s in srcs.tolist()])


def drive(backend, pos: np.ndarray, times: np.ndarray, srcs: np.ndarray, dsts: np.ndarray,
          end_ns: int) -> tuple[np.ndarray, list, list]:
    """Offer the frames; returns (offer time by tx id, received tx ids, receive times)."""
    for i in range(len(pos)):
        backend.add_node(i)
    backend.set_positions(0, pos, np.zeros_like(pos))
    payload = bytes(PAYLOAD)
    offered = np.zeros(len(times), dtype=np.int64)
    got_tx: list[np.ndarray] = []
    got_t: list[np.ndarray] = []

    def run_to(t: int) -> None:
        while True:
            _, ev = backend.advance(t)
            if ev is None:
                return
            if len(ev.dst):
                got_tx.append(ev.tx_id.copy())
                got_t.append(ev.row_times().copy())

    for t, s, dst in zip(times.tolist(), srcs.tolist(), dsts.tolist()):
        run_to(t)
        offered[backend.send(s, dst, payload, t)] = t
    run_to(end_ns)
    backend.close()
    return offered, got_tx, got_t


def point(name: str, rate: float, seconds: float, which: str, seed: int, unicast: bool = False) -> dict:
    """One load point on one backend. Unicast: each frame to a random neighbour well within range,
    acknowledged and retried by the MAC; delivery ratio = frames delivered / frames offered."""
    rng = np.random.default_rng(seed)
    pos = layout(name, rng)
    times, srcs = traffic(len(pos), rate, seconds, rng)
    dsts = partners(pos, srcs, rng) if unicast else np.full(len(srcs), BROADCAST)
    if which == "fast":
        backend = CsmaBackend(FAST, np.random.default_rng(seed + 1))
    else:
        from netstack.ns3.backend import Ns3Backend

        backend = Ns3Backend(NS3, 1, seed + 1)
    end = int((seconds + 1.0) * NS_PER_S)
    t0 = time.perf_counter()
    offered, got_tx, got_t = drive(backend, pos, times, srcs, dsts, end)
    wall = time.perf_counter() - t0
    tx = np.concatenate(got_tx) if got_tx else np.zeros(0, np.int64)
    rt = np.concatenate(got_t) if got_t else np.zeros(0, np.int64)
    d = np.linalg.norm(pos[:, None, :] - pos[None, :, :], axis=2)
    reach = np.ones(len(srcs), np.int64) if unicast else ((d <= FAST.max_range_m()).sum(axis=1) - 1)[srcs]
    return {"workload": f"{'unicast' if unicast else 'broadcast'}_{name}", "backend": which, "N": len(pos), "rate_per_node": rate,
            "simulated_s": seconds + 1.0, "wall_s": round(wall, 3), "real_time_factor": round((seconds + 1.0) / wall, 2),
            "frames": len(times), "delivery_ratio": round(len(tx) / max(1, int(reach.sum())), 4),
            "mean_delay_ms": round(float(np.mean(rt - offered[tx])) / 1e6, 3) if len(tx) else None}


def figure(rows: list[dict], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (a, b) = plt.subplots(1, 2, figsize=(10, 4))
    for (layout_name, backend), style in {("grid", "ns3"): "o-", ("grid", "fast"): "o--",
                                           ("random", "ns3"): "s-", ("random", "fast"): "s--"}.items():
        pts = sorted((r["rate_per_node"], r["delivery_ratio"], r["mean_delay_ms"]) for r in rows
                     if r["workload"] == f"broadcast_{layout_name}" and r["backend"] == backend)
        if not pts:
            continue
        x, dr, dl = zip(*pts)
        label = f"{layout_name}, {'ns-3 802.11b' if backend == 'ns3' else 'fast csma'}"
        a.plot(x, dr, style, label=label)
        b.plot(x, dl, style, label=label)
    for ax, ylabel in ((a, "delivery ratio"), (b, "mean delay (ms)")):
        ax.set_xscale("log")
        ax.set_xlabel("offered load (broadcasts per node per second)")
        ax.set_ylabel(ylabel)
        ax.grid(alpha=0.3)
    b.set_yscale("log")
    a.legend(fontsize=8)
    fig.suptitle("200 nodes, 100-byte broadcasts, 802.11b 1 Mbit/s: ns-3 against the fast radio's csma")
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--layouts", nargs="+", default=["grid", "random"])
    ap.add_argument("--rates", nargs="+", type=float, default=[1, 4, 10, 20, 40, 80])
    ap.add_argument("--seconds", type=float, default=4.0)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--backends", nargs="+", default=["ns3", "fast"])
    ap.add_argument("--figure", type=Path, default=None, help="write the figure here (e.g. docs/contention.png)")
    ap.add_argument("--unicast", action="store_true", help="frames to one neighbour each, with ACKs and retries")
    ap.add_argument("--plain-only", action="store_true", help="only `cosim run` on the plain scenario file")
    args = ap.parse_args()
    # the contention model as users get it: the shipped 802.11b MANET file on the fast radio
    print(json.dumps(plain_line("manet_contention", ROOT / "configs" / "manet_contention.yaml", 30.0)), flush=True)
    if args.plain_only:
        return
    for which in args.backends:  # ns-3's import and the compiled loop's load happen before any timing
        point("grid", 1.0, 0.05, which, args.seed)
    rows = []
    for name in args.layouts:
        for rate in args.rates:
            pair = {}
            for which in args.backends:
                pair[which] = point(name, rate, args.seconds, which, args.seed, args.unicast)
                rows.append(pair[which])
                print(json.dumps(pair[which]), flush=True)
            if len(pair) == 2:
                print(json.dumps({"compare": pair["fast"]["workload"], "rate_per_node": rate,
                                  "delivery_ratio_gap": round(pair["fast"]["delivery_ratio"] - pair["ns3"]["delivery_ratio"], 4),
                                  "speedup": round(pair["ns3"]["wall_s"] / pair["fast"]["wall_s"], 1)}), flush=True)
    if args.figure is not None:
        figure(rows, args.figure)


if __name__ == "__main__":
    main()
