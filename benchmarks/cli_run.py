"""`cosim run` on a scenario file, as a user runs it, for the benchmarks: one child process per run,
its figures read back from the run directory's metrics.json."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path


def cosim_run(scenario: Path, out: Path, seconds: float | None = None, sets: tuple[str, ...] = ()) -> dict:
    """Run `scenario` (for `seconds` simulated, else its own duration, with `--set` overrides) into
    `out`; metrics.json's figures: simulated_s, wall_s, compile_s, real_time_factor, engine_path."""
    cosim_cli = Path(sys.executable).with_name("cosim")
    args = [str(cosim_cli), "run", str(scenario), "--quiet", "--overwrite", "--out", str(out)]
    if seconds is not None:
        args += ["--duration", str(seconds)]
    for key in sets:
        args += ["--set", key]
    done = subprocess.run(args, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"cosim run {scenario.name} failed: {done.stderr.strip()[-2000:]}")
    m = json.loads((out / "metrics.json").read_text())
    return {"N": m["nodes"], "simulated_s": m["simulated_s"], "wall_s": round(m["wall_s"], 3),
            "compile_s": round(m["compile_s"], 3), "real_time_factor": round(m["real_time_factor"], 2),
            "engine_path": m.get("engine_path")}


def plain_line(workload: str, scenario: Path, seconds: float | None = None, sets: tuple[str, ...] = ()) -> dict:
    """One JSON-ready line for `cosim run` on `scenario` (a run directory in a temporary folder)."""
    import tempfile

    with tempfile.TemporaryDirectory(prefix="plain-") as tmp:
        return {"workload": f"{workload}_plain_cosim_run", "scenario": scenario.name,
                **cosim_run(scenario, Path(tmp) / "run", seconds, sets)}
