"""Both 802.11 engines against Bianchi's model of DCF saturation throughput (netstack.radio.bianchi).

The workload of benchmarks/bianchi.yaml, as `cosim run` runs it (each point in this process, the
scenario file with only the swept keys set): n saturated stations on a 2.5 m ring round one sink,
1,500-byte unicasts at one rate, ACKs at the standard's control rate, preamble detection on, a
queue that never expires frames. Throughput: payload bits the sink received over the run. The
model gets the same standard, rates and payload, and DIFS after a collision (EIFS without preamble
detection).

Prints one JSON line per run (workload, N, simulated s, wall s, real-time factor, throughput, the
model's, the relative error) and a Markdown table; `--figure` draws docs/bianchi.png.

    python benchmarks/bianchi.py                          # 802.11b 1 and 11, 802.11a 6 and 54, n = 5..50
    python benchmarks/bianchi.py --points 802.11b:11 --stations 5 20 --seconds 4 --backends fast
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import tempfile
import time
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import cosim  # noqa: E402
from netstack.radio.bianchi import saturation  # noqa: E402
from netstack.radio.standards import STANDARDS  # noqa: E402

SCENARIO = ROOT / "benchmarks" / "bianchi.yaml"
POINTS = ("802.11b:1", "802.11b:11", "802.11a:6", "802.11a:54")
STATIONS = tuple(range(5, 55, 5))
PAYLOAD = 1500
STEP_S = 0.01
"""The sources' period (SaturatedSource)."""


def scenario(standard: str, mbps: float, n: int, backend: str, seconds: float) -> dict:
    """benchmarks/bianchi.yaml with the swept keys set; each source offers three times its share of
    the data rate, so its queue stays full."""
    data = yaml.safe_load(SCENARIO.read_text())
    data["duration"] = seconds
    data["network"]["backend"] = backend
    data["network"]["radio"].update(standard=standard, data_rate_mbps=mbps)
    stations = data["groups"][1]
    stations["count"] = n
    frame_bits = 8 * (PAYLOAD + STANDARDS[standard].mac_overhead_bytes)
    stations["controller"]["params"]["burst"] = math.ceil(3 * mbps * 1e6 * STEP_S / frame_bits / n) + 1
    return data


def measure(standard: str, mbps: float, n: int, backend: str, seconds: float, out: Path) -> dict:
    """One run through cosim.run (what `cosim run` calls), with the model's figure beside it."""
    std = STANDARDS[standard]
    spec = cosim.from_dict(scenario(standard, mbps, n, backend, seconds), source=str(SCENARIO))
    t0 = time.perf_counter()
    result = cosim.run(spec, out_dir=out / f"{backend}-{standard}-{mbps:g}-{n}")
    wall = time.perf_counter() - t0
    if result.status != "ok":
        raise SystemExit(f"{backend} {standard} {mbps:g} Mbit/s n={n}: {result.error}")
    radio = spec.network.radio
    model = saturation(std, n, PAYLOAD, mbps, radio.control_rate_mbps, eifs=not radio.preamble_detection).throughput_mbps
    measured = result.metrics["messages_delivered"] * PAYLOAD * 8 / seconds / 1e6
    return {"workload": f"bianchi {standard} {mbps:g} Mbit/s", "backend": backend, "N": n, "simulated_s": seconds,
            "wall_s": round(wall, 3), "real_time_factor": round(seconds / wall, 3),
            "throughput_mbps": round(measured, 4), "model_mbps": round(model, 4),
            "error": round(measured / model - 1.0, 4)}


def table(rows: list[dict]) -> str:
    """Markdown: one line per (standard, rate, n), the model and each engine with its error."""
    backends = sorted({r["backend"] for r in rows}, key=["fast", "ns3"].index)
    head = "| workload | n | model (Mbit/s) | " + " | ".join(f"{b} (Mbit/s, error)" for b in backends) + " |"
    lines = [head, "|" + "---|" * (3 + len(backends))]
    keys = sorted({(r["workload"], r["N"]) for r in rows}, key=lambda k: (k[0], k[1]))
    for workload, n in keys:
        same = {r["backend"]: r for r in rows if (r["workload"], r["N"]) == (workload, n)}
        model = next(iter(same.values()))["model_mbps"]
        cells = [f"{same[b]['throughput_mbps']:.3f} ({100 * same[b]['error']:+.1f}%)" if b in same else "" for b in backends]
        lines.append(f"| {workload} | {n} | {model:.3f} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def figure(rows: list[dict], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    workloads = sorted({r["workload"] for r in rows})
    fig, axes = plt.subplots(1, len(workloads), figsize=(3.6 * len(workloads), 3.2), squeeze=False)
    for ax, workload in zip(axes[0], workloads):
        mine = sorted((r for r in rows if r["workload"] == workload), key=lambda r: r["N"])
        ns = sorted({r["N"] for r in mine})
        ax.plot(ns, [next(r["model_mbps"] for r in mine if r["N"] == n) for n in ns], "k-", label="Bianchi")
        for backend, style in (("fast", "o"), ("ns3", "s")):
            pts = [r for r in mine if r["backend"] == backend]
            if pts:
                ax.plot([r["N"] for r in pts], [r["throughput_mbps"] for r in pts], style, mfc="none", label=backend)
        ax.set_title(workload.replace("bianchi ", ""), fontsize=9)
        ax.set_xlabel("stations")
        ax.grid(alpha=0.3)
    axes[0][0].set_ylabel("saturation throughput (Mbit/s)")
    axes[0][0].legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--points", nargs="+", default=list(POINTS), help="standard:rate (Mbit/s)")
    parser.add_argument("--stations", nargs="+", type=int, default=list(STATIONS))
    parser.add_argument("--backends", nargs="+", default=["fast", "ns3"], choices=["fast", "ns3"])
    parser.add_argument("--seconds", type=float, default=None,
                        help="simulated seconds per run (default: 20 below 11 Mbit/s, where frames are few, else 3)")
    parser.add_argument("--figure", action="store_true", help="draw docs/bianchi.png")
    args = parser.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for point in args.points:
            standard, rate = point.split(":")
            for n in args.stations:
                seconds = args.seconds or (20.0 if float(rate) < 11 else 3.0)
                for backend in args.backends:
                    rows.append(measure(standard, float(rate), n, backend, seconds, Path(tmp)))
                    print(json.dumps(rows[-1]), flush=True)
    print(table(rows))
    worst = max(abs(r["error"]) for r in rows)
    print(f"worst relative error {100 * worst:.2f}% over {len(rows)} runs")
    if args.figure:
        figure(rows, ROOT / "docs" / "bianchi.png")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
