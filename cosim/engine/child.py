"""Entry point of the child process that `cosim.engine.isolated` starts: `python -m cosim.engine.child RUN_DIR SOURCE ARGV_JSON`.

It loads the resolved scenario the parent wrote into RUN_DIR, runs it there, and reports progress
on stdout as lines `progress <now_ns> <end_ns> <wall_s>`.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path


def main(argv: list[str]) -> int:
    run_dir, source, command = Path(argv[0]), argv[1], json.loads(argv[2])
    import yaml

    from cosim.core.progress import startup_phases
    from cosim.engine.execute import run_in
    from cosim.scenario.loading import from_dict

    # the resolved scenario, read as if from its own file: classes beside it import as they did there
    scenario = from_dict(yaml.safe_load((run_dir / "scenario.yaml").read_text()), source)

    def progress(now_ns: int, end_ns: int, wall_s: float) -> None:
        print(f"progress {now_ns} {end_ns} {wall_s:.3f}", flush=True)

    for text in startup_phases(scenario.n_nodes, scenario.network.backend):
        print(f"phase {text}", flush=True)
    def phase(text: str) -> None:
        print(f"phase {text}", flush=True)

    result = run_in(scenario, run_dir, progress=progress, argv=command, phase=phase)
    return 0 if result.status == "ok" else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
