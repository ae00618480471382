"""Entry point of the child process that `cosim.engine.isolated` starts: `python -m cosim.engine.child RUN_DIR SOURCE ARGV_JSON`.

It loads the resolved scenario the parent wrote into RUN_DIR, runs it there, and reports progress
on stdout as lines `progress <now_ns> <end_ns> <wall_s>`.
"""

from __future__ import annotations

import dataclasses
import json
import sys
from pathlib import Path


def main(argv: list[str]) -> int:
    run_dir, source, command = Path(argv[0]), argv[1], json.loads(argv[2])
    from cosim.engine.execute import run
    from cosim.scenario.loading import load

    scenario = dataclasses.replace(load(run_dir / "scenario.yaml"), source=source)

    def progress(now_ns: int, end_ns: int, wall_s: float) -> None:
        print(f"progress {now_ns} {end_ns} {wall_s:.3f}", flush=True)

    result = run(scenario, out_dir=run_dir, progress=progress, argv=command)
    return 0 if result.status == "ok" else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
