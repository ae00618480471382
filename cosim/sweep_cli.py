"""`cosim sweep FILE` and `cosim sweep results DIR`."""

from __future__ import annotations

import argparse
import sys

from cosim.errors import ScenarioError


class SweepProgressLine:
    """done / failed / remaining and an estimate of the time left, on stderr."""

    def __init__(self) -> None:
        self._tty = sys.stderr.isatty()

    def __call__(self, done: int, failed: int, remaining: int, total: int, wall_s: float) -> None:
        finished = done + failed
        ran = max(1, finished)
        left = wall_s / ran * remaining if finished else float("nan")
        bar = "#" * int(30 * finished / max(1, total))
        text = (f"[{bar:<30}] done {done}, failed {failed}, remaining {remaining} of {total}"
                + (f", ~{left:.0f} s left" if finished else ""))
        sys.stderr.write(("\r" if self._tty else "") + text + ("" if self._tty else "\n"))
        sys.stderr.flush()


def sweep_command(args: argparse.Namespace) -> int:
    from cosim.sweep_index import export_results, rebuild_index

    if args.target == "results":
        if args.directory is None:
            print("error: cosim sweep results needs the sweep directory", file=sys.stderr)
            return 2
        if not (args.directory / "runs").is_dir():
            print(f"error: {args.directory} is not a sweep directory (no runs/)", file=sys.stderr)
            return 2
        if args.rebuild:
            rebuild_index(args.directory).close()
        output = args.output or args.directory / f"results.{args.format}"
        n = export_results(args.directory, output, args.format)
        print(f"{n} runs -> {output}")
        return 0
    from cosim.sweep_runner import run_sweep
    from cosim.sweep_spec import load_sweep

    try:
        spec = load_sweep(args.target)
    except ScenarioError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    progress = None if args.quiet else SweepProgressLine()
    client = None
    if args.dask:
        from distributed import Client

        try:
            client = Client(args.dask, timeout="10s")
        except (OSError, ValueError, TimeoutError) as exc:
            print(f"error: cannot reach the Dask scheduler at {args.dask!r}: {exc}", file=sys.stderr)
            return 2
    try:
        outcome = run_sweep(spec, out_dir=args.out, jobs=args.jobs, retry_failed=args.retry_failed, progress=progress,
                            dask_client=client)
    except ScenarioError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("\ninterrupted: finished runs are kept; run the same command again to resume", file=sys.stderr)
        return 130
    finally:
        if client is not None:
            client.close()
    if progress is not None and sys.stderr.isatty():
        sys.stderr.write("\n")
    print(f"sweep {spec.source.name}: {outcome.total} runs, {outcome.ok} ran ok, {outcome.failed} failed, "
          f"{outcome.skipped} already done -> {outcome.directory}")
    for key, error in sorted(outcome.failures.items()):
        print(f"  failed {key}: {error}")
    return 1 if outcome.failed else 0
