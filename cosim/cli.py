"""`cosim` command line: run and validate scenarios."""

from __future__ import annotations

import argparse
import logging
import sys
from pathlib import Path

from cosim.errors import ScenarioError
from cosim.progress import ProgressLine
from cosim.scenario import load, parse_set_option


def _overrides(args: argparse.Namespace) -> dict:
    out = {}
    for text in args.set or []:
        key, value = parse_set_option(text)
        out[key] = value
    if getattr(args, "seed", None) is not None:
        out["seed"] = args.seed
    if getattr(args, "duration", None) is not None:
        out["duration"] = args.duration
    return out


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number >= 1, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a whole number >= 1, got {value}")
    return value


def _duration_arg(text: str):
    try:
        return float(text)
    except ValueError:
        return text  # a string with a unit, checked with the scenario


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="cosim", description="Co-simulate networked robot swarms.")
    parser.add_argument("-v", "--verbose", action="store_true", help="log debug messages")
    sub = parser.add_subparsers(dest="command", required=True)
    p_run = sub.add_parser("run", help="run a scenario and write a run directory")
    p_run.add_argument("scenario", type=Path)
    p_run.add_argument("--seed", type=int, help="master seed (overrides the file)")
    p_run.add_argument("--duration", type=_duration_arg, help="simulated duration, seconds or e.g. '30 s'")
    p_run.add_argument("--out", type=Path, help="run directory (default: output.dir/<name>-seed<seed>-<time>)")
    p_run.add_argument("--set", action="append", metavar="KEY=VALUE", help="override a dotted key, e.g. groups.0.count=50")
    p_run.add_argument("--quiet", action="store_true", help="no progress line")
    p_run.add_argument("--in-process", action="store_true",
                       help="run ns-3 scenarios in this process (default: a child process, so an ns-3 abort is reported)")
    p_sw = sub.add_parser("sweep", help="run a sweep (cosim sweep FILE) or export its results (cosim sweep results DIR)")
    p_sw.add_argument("target", help="a sweep file, or the word 'results'")
    p_sw.add_argument("directory", nargs="?", type=Path, help="with 'results': the sweep's output directory")
    p_sw.add_argument("--jobs", type=_positive_int, help="runs at a time (default: number of CPUs)")
    p_sw.add_argument("--out", type=Path, help="sweep directory (default: the file's output.dir, else sweeps/<name>)")
    p_sw.add_argument("--retry-failed", action="store_true", help="rerun runs that failed before")
    p_sw.add_argument("--dask", metavar="ADDRESS", help="run on a Dask scheduler, e.g. tcp://127.0.0.1:8786")
    p_sw.add_argument("--quiet", action="store_true", help="no progress line")
    p_sw.add_argument("--format", choices=["csv", "parquet"], default="csv", help="with 'results'")
    p_sw.add_argument("--output", type=Path, help="with 'results': the table's path (default: DIR/results.<format>)")
    p_sw.add_argument("--rebuild", action="store_true", help="with 'results': rebuild the index from the run directories")
    p_val = sub.add_parser("validate", help="check a scenario without running it")
    p_val.add_argument("scenario", type=Path)
    p_val.add_argument("--set", action="append", metavar="KEY=VALUE")
    p_rep = sub.add_parser("report", help="write an HTML report (and PNG figures) of a run or sweep directory")
    p_rep.add_argument("directory", type=Path)
    p_rep.add_argument("--out", type=Path, help="report directory (default: DIRECTORY/report)")
    p_rep.add_argument("--metric", action="append", help="sweeps: a metric to plot (dotted, e.g. routing.delivery_ratio)")
    p_veh = sub.add_parser("serve-vehicle", help="serve one simulated vehicle over MAVLink (a stand-in for a real one)")
    p_veh.add_argument("--port", type=int, default=14550, help="UDP port (default 14550)")
    p_veh.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1; others are your choice)")
    p_veh.add_argument("--personality", choices=["px4", "ardupilot", "ardupilot_rover"], default="ardupilot")
    p_veh.add_argument("--origin", type=float, nargs=3, metavar=("LAT", "LON", "ALT"), default=(47.3977, 8.5456, 488.0),
                       help="geodetic origin of the vehicle's local frame (degrees, degrees, m AMSL)")
    p_veh.add_argument("--at", type=float, nargs=2, metavar=("X", "Y"), default=(0.0, 0.0),
                       help="where the vehicle stands, metres east and north of the origin")
    p_veh.add_argument("--out", metavar="HOST:PORT", help="also send to this address from the start (a listening ghost)")
    p_veh.add_argument("--sysid", type=int, default=1)
    p_veh.add_argument("--airframe", default="quad_1500g")
    p_veh.add_argument("--duration", type=float, default=None, help="seconds to run (default: until Ctrl-C)")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.DEBUG if args.verbose else logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    if args.command == "serve-vehicle":
        return _serve_vehicle(args)
    if args.command == "report":
        from cosim.report import write_report

        try:
            path = write_report(args.directory, args.out, args.metric)
        except (FileNotFoundError, ValueError) as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 2
        print(f"report: {path}")
        return 0
    if args.command == "sweep":
        from cosim.sweep_cli import sweep_command

        return sweep_command(args)
    try:
        scenario = load(args.scenario, _overrides(args))
    except (ScenarioError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if args.command == "validate":
        from cosim.build import build

        try:
            sim = build(scenario)  # constructs everything (start positions, worlds) without running
        except ScenarioError as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 2
        sim.world.close()
        for ext in sim.extensions:
            ext.finish(sim)
        print(f"{args.scenario}: ok ({scenario.n_nodes} robots, {scenario.duration_ns / 1e9:g} s simulated)")
        return 0
    from cosim.isolated import run_isolated
    from cosim.run import run

    progress = None if args.quiet else ProgressLine()
    runner = run_isolated if scenario.network.backend == "ns3" and not args.in_process else run
    result = runner(scenario, out_dir=args.out, progress=progress, argv=sys.argv if argv is None else ["cosim", *argv])
    if progress is not None:
        progress.finish()
    print((result.directory / "summary.txt").read_text(), end="")
    print(f"run directory: {result.directory}")
    if result.status == "interrupted":
        print(f"interrupted: partial results in {result.directory}", file=sys.stderr)
        return 130
    if result.status != "ok":
        print(f"error: the run failed: {result.error}\n(traceback in {result.directory / 'error.txt'})", file=sys.stderr)
        return 1
    return 0


def _serve_vehicle(args: argparse.Namespace) -> int:
    from cosim.mavlink.frames import GeoOrigin
    from cosim.mavlink.standin import StandInVehicle

    try:
        out = None
        if args.out:
            host, _, port = args.out.rpartition(":")
            if not host or not port.isdigit():
                raise ValueError(f"--out expects HOST:PORT, got {args.out!r}")
            out = (host, int(port))
        vehicle = StandInVehicle(args.personality, args.port, args.host, GeoOrigin(*args.origin),
                                 (args.at[0], args.at[1], 0.0), sysid=args.sysid, airframe=args.airframe, out=out)
    except (OSError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(f"serving a simulated {args.personality} vehicle (system {args.sysid}) on udp {args.host}:{vehicle.port}; "
          "Ctrl-C stops it", flush=True)
    try:
        stats = vehicle.run(args.duration if args.duration is not None else 1e9)
    except KeyboardInterrupt:
        stats = vehicle.stats
    finally:
        vehicle.endpoint.close()
    if stats is not None:
        print(f"{stats.ticks} ticks, {stats.overruns} overruns")
    return 0


if __name__ == "__main__":
    sys.exit(main())
