"""The fast model of each standard against ns-3, on work it was not tuned on (issue 32).

Every case is one radio description (netstack.radio.RadioSpec) computed by both engines: the fast
engine gets `radio.fast_config()`, ns-3 `radio.ns3_config()`; nothing is matched by hand. Both are
driven through the same NetworkBackend calls by the same loop (benchmarks/contention.py's `drive`).
Static nodes, Poisson traffic (or every sender of a group tick at one instant, as a group controller
sends), for 3 s after 1 ms:

- disc60: the issue's case, 60 nodes in a 45 m disc, 200-byte broadcasts, 802.11b 1 Mbit/s, log-distance 3
- line: 40 nodes 25 m apart on a line, two-ray ground (1.5 m antennas), 802.11b 2 Mbit/s, -76 dBm
- ofdm: 80 nodes uniform in a 150 m square, 802.11g at 6 Mbit/s, log-distance 3
- motes: 49 802.15.4 motes on a 7 x 7 grid, 15 m apart, 0 dBm, 60-byte frames

Receptions per frame: receptions / frames offered; delivery ratio: receptions / (frames x nodes
within the radio's range of their sender); unicast: frames delivered / frames offered (each to a
random node within 80% of the range). Delay: receive time - offer time. Prints JSON lines; with
`--table` a markdown table for docs/radio.md, with `--figure` its figure.

    python benchmarks/fidelity.py                         # every case, both engines (about 3 minutes)
    python benchmarks/fidelity.py --cases disc60 --loads light
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from netstack.backend import BROADCAST, NS_PER_S  # noqa: E402
from netstack.fast.csma import CsmaBackend  # noqa: E402
from netstack.fast.pathloss import LogDistance, TwoRayGround  # noqa: E402
from netstack.radio import RadioSpec  # noqa: E402

_spec = importlib.util.spec_from_file_location("contention_benchmark", Path(__file__).with_name("contention.py"))
contention = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(contention)


@dataclass(frozen=True)
class Case:
    name: str
    radio: RadioSpec
    positions: np.ndarray
    payload: int
    loads: dict[str, float]  # load name -> frames per node per second


def _disc(n: int, radius: float, rng: np.random.Generator) -> np.ndarray:
    r, a = radius * np.sqrt(rng.uniform(0, 1, n)), rng.uniform(0, 2 * np.pi, n)
    return np.column_stack([r * np.cos(a), r * np.sin(a), np.zeros(n)])


def cases(rng: np.random.Generator) -> dict[str, Case]:
    grid7 = np.array([[15.0 * (k % 7), 15.0 * (k // 7), 0.0] for k in range(49)])
    return {
        "disc60": Case("disc60", RadioSpec(standard="802.11b", pathloss=LogDistance()), _disc(60, 45.0, rng), 200,
                       {"light": 1.0, "busy": 5.0, "saturated": 20.0}),
        "line": Case("line", RadioSpec(standard="802.11b", data_rate_mbps=2, tx_power_dbm=16.0, rx_sensitivity_dbm=-76.0,
                                       pathloss=TwoRayGround(frequency_hz=2.4e9, antenna_height_m=1.5)),
                     np.array([[25.0 * k, 0.0, 0.0] for k in range(40)]), 100, {"light": 2.0, "saturated": 40.0}),
        "ofdm": Case("ofdm", RadioSpec(standard="802.11g", pathloss=LogDistance()),
                     np.column_stack([rng.uniform(0, 150, 80), rng.uniform(0, 150, 80), np.zeros(80)]), 100,
                     {"light": 2.0, "saturated": 60.0}),
        "motes": Case("motes", RadioSpec(standard="802.15.4", pathloss=LogDistance()), grid7, 60,
                      {"light": 0.5, "saturated": 8.0}),
    }


def _backend(case: Case, which: str, seed: int):
    if which == "fast":
        return CsmaBackend(case.radio.fast_config(), np.random.default_rng(seed + 1))
    from netstack.ns3.backend import Ns3Backend

    return Ns3Backend(case.radio.ns3_config(), 1, seed + 1)


def _partners(pos: np.ndarray, srcs: np.ndarray, reach: float, rng: np.random.Generator) -> np.ndarray:
    d = np.linalg.norm(pos[:, None, :] - pos[None, :, :], axis=2)
    near = [np.flatnonzero((row > 0) & (row <= 0.8 * reach)) for row in d]
    return np.array([near[s][rng.integers(len(near[s]))] if len(near[s]) else BROADCAST for s in srcs.tolist()])


def point(case: Case, load: str, which: str, seed: int, seconds: float = 3.0, unicast: bool = False) -> dict:
    """One case at one load on one engine."""
    rng = np.random.default_rng(seed)
    pos = case.positions
    times, srcs = contention.traffic(len(pos), case.loads[load], seconds, rng)
    reach = case.radio.max_range_m()
    dsts = _partners(pos, srcs, reach, rng) if unicast else np.full(len(srcs), BROADCAST)
    keep = dsts != BROADCAST if unicast else np.ones(len(srcs), dtype=bool)
    times, srcs, dsts = times[keep], srcs[keep], dsts[keep]
    backend = _backend(case, which, seed)
    contention.PAYLOAD = case.payload
    t0 = time.perf_counter()
    offered, got_tx, got_t = contention.drive(backend, pos, times, srcs, dsts, int((seconds + 1.0) * NS_PER_S))
    wall = time.perf_counter() - t0
    tx = np.concatenate(got_tx) if got_tx else np.zeros(0, np.int64)
    rt = np.concatenate(got_t) if got_t else np.zeros(0, np.int64)
    d = np.linalg.norm(pos[:, None, :] - pos[None, :, :], axis=2)
    in_range = ((d <= reach).sum(axis=1) - 1)[srcs]
    frames = len(times)
    return {"workload": f"{case.name}_{'unicast' if unicast else 'broadcast'}_{load}", "backend": which, "N": len(pos),
            "standard": case.radio.standard, "rate_per_node": case.loads[load], "frames": frames,
            "simulated_s": seconds + 1.0, "wall_s": round(wall, 3), "real_time_factor": round((seconds + 1.0) / wall, 2),
            "receptions_per_frame": round(len(tx) / max(1, frames), 3),
            "delivery_ratio": round(len(tx) / max(1, frames if unicast else int(in_range.sum())), 4),
            "mean_delay_ms": round(float(np.mean(rt - offered[tx])) / 1e6, 3) if len(tx) else None}


def compare(ns3: dict, fast: dict) -> dict:
    """Relative gaps (fast against ns-3) of one point."""
    def rel(key: str) -> float | None:
        a, b = ns3[key], fast[key]
        return None if a in (None, 0) or b is None else round((b - a) / a, 4)

    return {"compare": fast["workload"], "standard": fast["standard"], "delivery_gap": rel("delivery_ratio"),
            "receptions_gap": rel("receptions_per_frame"), "delay_gap": rel("mean_delay_ms"),
            "speedup": round(ns3["wall_s"] / max(fast["wall_s"], 1e-9), 1)}


def table(pairs: list[tuple[dict, dict]]) -> str:
    lines = ["| case | standard | load (frames/node/s) | ns-3 delivery | fast delivery | gap | ns-3 delay (ms) | "
             "fast delay (ms) | gap | speed-up |", "|---|---|---|---|---|---|---|---|---|---|"]
    for ns3, fast in pairs:
        c = compare(ns3, fast)
        gap = "" if c["delay_gap"] is None else f"{100 * c['delay_gap']:+.0f}%"
        lines.append(f"| {fast['workload']} | {fast['standard']} | {fast['rate_per_node']:g} | {ns3['delivery_ratio']:.3f} | "
                     f"{fast['delivery_ratio']:.3f} | {100 * c['delivery_gap']:+.1f}% | {ns3['mean_delay_ms']} | "
                     f"{fast['mean_delay_ms']} | {gap} | {c['speedup']:g}x |")
    return "\n".join(lines)


def figure(pairs: list[tuple[dict, dict]], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6, 5))
    for ns3, fast in pairs:
        ax.plot(ns3["delivery_ratio"], fast["delivery_ratio"], "o", label=fast["workload"])
    ax.plot([0, 1], [0, 1], "k-", lw=0.8)
    ax.fill_between([0, 1], [0, 0.9], [0, 1.1], color="0.9", label="within 10%")
    ax.set_xlabel("ns-3 delivery ratio")
    ax.set_ylabel("fast engine delivery ratio")
    ax.set_title("one radio description, two engines")
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cases", nargs="+", default=["disc60", "line", "ofdm", "motes"])
    ap.add_argument("--loads", nargs="+", default=None, help="load names (default: every load of each case)")
    ap.add_argument("--seconds", type=float, default=3.0)
    ap.add_argument("--seed", type=int, default=11)
    ap.add_argument("--unicast", action="store_true")
    ap.add_argument("--table", action="store_true", help="print a markdown table at the end")
    ap.add_argument("--figure", type=Path, default=None)
    args = ap.parse_args()
    all_cases = cases(np.random.default_rng(args.seed))
    for which in ("ns3", "fast"):  # ns-3's import and the compiled loop's load happen before any timing
        point(all_cases["disc60"], "light", which, args.seed, 0.05)
    pairs = []
    for name in args.cases:
        case = all_cases[name]
        for load in args.loads or list(case.loads):
            if load not in case.loads:
                continue
            ns3 = point(case, load, "ns3", args.seed, args.seconds, args.unicast)
            fast = point(case, load, "fast", args.seed, args.seconds, args.unicast)
            for row in (ns3, fast, compare(ns3, fast)):
                print(json.dumps(row), flush=True)
            pairs.append((ns3, fast))
    if args.table:
        print(table(pairs))
    if args.figure is not None:
        figure(pairs, args.figure)


if __name__ == "__main__":
    main()
