"""Entry point of the child process that `cosim.execution.isolated` starts:
`python -m cosim.execution.child RUN_DIR SOURCE ARGV_JSON`.

It loads the resolved scenario the parent wrote into RUN_DIR, runs it there, and reports progress
on stdout as lines `<RS>progress <now_ns> <end_ns> <wall_s>` (RS: cosim.execution.console.CONTROL);
every other line there is what the run printed or logged (cosim.execution.console).
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path


def main(argv: list[str]) -> int:
    run_dir = Path(argv[0]).absolute()
    source = argv[1]
    command = json.loads(argv[2])
    import yaml

    from cosim.core.progress import startup_phases
    from cosim.execution import console
    from cosim.execution.execute import run_in
    from cosim.execution.leftover_threads import exit_despite_threads, warn_of_leftover_threads
    from cosim.scenario.loading import from_dict

    control = os.fdopen(os.dup(1), "w", buffering=1)  # the protocol's lines, on the same pipe as the console's
    clock = console.Clock()
    keep = console.LazyFile(run_dir / "console.txt")
    out, err = console.install(clock, sys.__stdout__, keep)

    def say(text: str) -> None:
        control.write(f"{console.CONTROL}{text}\n")

    def progress(now_ns: int, end_ns: int, wall_s: float) -> None:
        say(f"progress {now_ns} {end_ns} {wall_s:.3f}")

    # the resolved scenario, read as if from its own file: classes beside it import as they did there
    scenario = from_dict(yaml.safe_load((run_dir / "scenario.yaml").read_text()), source)
    for text in startup_phases(scenario.n_nodes, scenario.network.backend):
        say(f"phase {text}")

    def built(sim) -> None:
        clock.now_ns = lambda: sim.clock.now_ns

    try:
        result = run_in(scenario, run_dir, progress=progress, argv=command, phase=lambda text: say(f"phase {text}"),
                        built=built)
        warn_of_leftover_threads()
    finally:
        out.close_line()
        err.close_line()
        keep.close()
    return exit_despite_threads(0 if result.status == "ok" else 1)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
