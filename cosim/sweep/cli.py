"""`cosim sweep FILE` and `cosim sweep results DIR`."""

from __future__ import annotations

import argparse
import contextlib
import sys
from collections.abc import Callable
from pathlib import Path

from cosim.core.progress import ProgressLine
from cosim.errors import ScenarioError
from cosim.execution.signals import ignore_until_exit

AddParser = Callable[..., argparse.ArgumentParser]
"""A subparsers action's add_parser: how each subcommand adds itself to `cosim`."""


def add_parser(sub: AddParser) -> None:
    """The `sweep` subcommand's options."""
    p = sub("sweep", help="run a sweep (cosim sweep FILE) or export its results (cosim sweep results DIR)")
    p.add_argument("target", help="a sweep file, or the word 'results'")
    p.add_argument("directory", nargs="?", type=Path, help="with 'results': the sweep's output directory")
    p.add_argument("--jobs", type=positive_int, help="runs at a time (default: number of CPUs)")
    p.add_argument("--out", type=Path, help="sweep directory (default: the file's output.dir, else sweeps/<name>)")
    p.add_argument("--retry-failed", action="store_true", help="rerun runs that failed before")
    p.add_argument("--dask", metavar="ADDRESS", help="run on a Dask scheduler, e.g. tcp://127.0.0.1:8786; or local[:N]: "
                   "start a scheduler, its dashboard and N workers (default: one per CPU) on 127.0.0.1 for this sweep")
    p.add_argument("--quiet", action="store_true", help="no progress line")
    p.add_argument("--format", choices=["csv", "parquet"], default="csv", help="with 'results'")
    p.add_argument("--output", type=Path, help="with 'results': the table's path (default: DIR/results.<format>)")
    p.add_argument("--rebuild", action="store_true", help="with 'results': rebuild the index from the run directories")
    p.set_defaults(handler=sweep_command)


def positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number >= 1, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a whole number >= 1, got {value}")
    return value


def results_command(args: argparse.Namespace) -> int:
    """`cosim sweep results DIR`: the index as one table."""
    from cosim.sweep.index import export_results, rebuild_index

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


def _dask_client(address: str, stack: contextlib.ExitStack):
    """A distributed.Client: of a cluster started here for `local[:N]`, else of the scheduler at address."""
    from cosim.sweep.dask_local import local_cluster, local_workers

    workers = local_workers(address)
    if workers is not None:
        return stack.enter_context(local_cluster(workers, announce=lambda text: print(text, file=sys.stderr)))
    from distributed import Client

    try:
        return stack.enter_context(Client(address, timeout="10s"))
    except (OSError, ValueError, TimeoutError) as exc:
        raise OSError(f"cannot reach the Dask scheduler at {address!r}: {exc}") from None


def sweep_command(args: argparse.Namespace) -> int:
    """`cosim sweep FILE`: run what is missing, on a local pool or a Dask scheduler."""
    if args.target == "results":
        return results_command(args)
    from cosim.output.lock import Locked
    from cosim.sweep.runner import run_sweep
    from cosim.sweep.spec import load_sweep

    try:
        spec = load_sweep(args.target)
    except ScenarioError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    line = None if args.quiet else ProgressLine()
    progress = None if line is None else line.sweep
    with contextlib.ExitStack() as stack:
        try:
            client = _dask_client(args.dask, stack) if args.dask else None
        except (OSError, ValueError, TimeoutError) as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 2
        try:
            outcome = run_sweep(spec, out_dir=args.out, jobs=args.jobs, retry_failed=args.retry_failed, progress=progress,
                                dask_client=client)
        except (ScenarioError, Locked) as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 2
        except KeyboardInterrupt:
            ignore_until_exit()
            print("\ninterrupted: finished runs are kept; run the same command again to resume", file=sys.stderr)
            return 130
    if progress is not None and sys.stderr.isatty():
        sys.stderr.write("\n")
    print(f"sweep {spec.source.name}: {outcome.total} runs, {outcome.ok} ran ok, {outcome.failed} failed, "
          f"{outcome.skipped} already done -> {outcome.directory}")
    for key, error in sorted(outcome.failures.items()):
        print(f"  failed {key}: {error}")
    return 1 if outcome.failed else 0
