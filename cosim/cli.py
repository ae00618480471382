"""`cosim` command line: one function per subcommand (run, validate, sweep, report, compare, serve-vehicle)."""

from __future__ import annotations

import argparse
import logging
import math
import sys
import traceback
from pathlib import Path

from cosim.core.progress import ProgressLine, startup_phases
from cosim.errors import ScenarioError
from cosim.execution.signals import Terminated, ignore_until_exit
from cosim.scenario.loading import load, parse_set_option
from cosim.scenario.specs import Scenario
from cosim.sweep import cli as sweep_cli
from cosim.sweep.cli import AddParser
from cosim.view import cli as view_cli


def _duration_arg(text: str) -> float | str:
    try:
        return float(text)
    except ValueError:
        return text  # a string with a unit, checked with the scenario


def _load(args: argparse.Namespace, seed: int | None = None, duration: float | str | None = None,
          extra: dict | None = None) -> Scenario:
    """The scenario file with --set, --seed, --duration (and `extra`) applied; raises ScenarioError or ValueError."""
    overrides = dict(parse_set_option(text) for text in args.set or []) | (extra or {})
    if seed is not None:
        overrides["seed"] = seed
    if duration is not None:
        overrides["duration"] = duration
    return load(args.scenario, overrides)


def run_command(args: argparse.Namespace) -> int:
    """`cosim run SCENARIO`: run it in a child process (unless --in-process) and print the summary."""
    viewer = None
    try:
        extra, viewer = view_cli.run_overrides(args)
        scenario = _load(args, args.seed, args.duration, extra)
    except (ScenarioError, ValueError, RuntimeError, FileNotFoundError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        if viewer is not None:
            viewer.stop()
        return 2
    try:
        return _run_loaded(args, scenario)
    finally:
        view_cli.after_run(viewer)


def _echo(text: str) -> None:
    """A line the run printed or logged (its controllers), on stderr: stdout keeps the summary."""
    print(text, file=sys.stderr, flush=True)


def _run_loaded(args: argparse.Namespace, scenario: Scenario) -> int:
    from cosim.execution.execute import run
    from cosim.execution.isolated import run_isolated
    from cosim.output.staging import RunDirError

    line = None if args.quiet else ProgressLine()
    try:
        if args.in_process:
            for text in startup_phases(scenario.n_nodes, scenario.network.backend) if line is not None else ():
                line.phase(text)
            result = run(scenario, out_dir=args.out, progress=None if line is None else line.run,
                         argv=args.command_line, overwrite=args.overwrite, phase=None if line is None else line.phase)
        else:
            result = run_isolated(scenario, out_dir=args.out, progress=None if line is None else line.run,
                                  argv=args.command_line, overwrite=args.overwrite,
                                  phase=None if line is None else line.phase,
                                  console=_echo if line is None else line.message)
    except RunDirError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:  # the output directory cannot be written at all: read-only, a file, a full disk
        print(f"error: cannot write the run directory ({exc.strerror or exc}: {exc.filename or args.out})", file=sys.stderr)
        return 2
    if line is not None:
        line.finish()
    summary = result.directory / "summary.txt"
    try:
        text = summary.read_text() if summary.is_file() else ""
    except OSError:
        text = ""
    print(text or f"status: {result.status}\n" + (f"error: {result.error}\n" if result.error else ""), end="")
    print(f"run directory: {result.directory}")
    if result.status == "interrupted":
        ignore_until_exit()
        print(f"interrupted: partial results in {result.directory}", file=sys.stderr)
        return 130
    if result.status != "ok":
        trace = result.directory / "error.txt"
        where = f"\n(traceback in {trace})" if trace.is_file() else ""
        print(f"error: the run failed: {result.error}{where}", file=sys.stderr)
        return 1
    return 0


def validate_command(args: argparse.Namespace) -> int:
    """`cosim validate SCENARIO`: check it and build everything it names, without running."""
    from cosim.assembly.simulation import build

    try:
        scenario = _load(args)
    except (ScenarioError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    try:
        sim = build(scenario)  # constructs everything (start positions, worlds, controllers) without running
    except (ScenarioError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except Exception as exc:  # a controller's (or another user class's) constructor raised: where, and what
        where = traceback.extract_tb(exc.__traceback__)[-1]
        print(f"error: {args.scenario}: building the scenario raised {type(exc).__name__}: {exc} "
              f"(at {where.filename}:{where.lineno}, in {where.name})", file=sys.stderr)
        return 2
    sim.close()
    for ext in sim.extensions:
        ext.finish(sim)
    print(f"{args.scenario}: ok ({scenario.n_nodes} robots, {scenario.duration_ns / 1e9:g} s simulated)")
    return 0


def report_command(args: argparse.Namespace) -> int:
    """`cosim report DIR`: the HTML report of a run or a sweep."""
    from cosim.report import write_report

    try:
        path = write_report(args.directory, args.out, args.metric)
    except (FileNotFoundError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(f"report: {path}")
    return 0


def compare_command(args: argparse.Namespace) -> int:
    """`cosim compare RUN_A RUN_B`: two runs side by side (table on stdout, figures in --out)."""
    from cosim.report.compare_report import compare, format_table

    out = args.out or args.run_a.parent / f"compare-{args.run_a.name}-{args.run_b.name}"
    try:
        path, rows, setup = compare(args.run_a, args.run_b, out)
    except (FileNotFoundError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print("\n".join(setup))
    print(format_table(rows))
    print(f"comparison: {path}")
    return 0


def _check_vehicle_args(args: argparse.Namespace) -> None:
    """serve-vehicle's numbers, each refused naming its option."""
    lat, lon, alt = args.origin
    if not (-90 <= lat <= 90 and -180 <= lon <= 180 and -500 <= alt <= 9000):
        raise ValueError(f"--origin must be a latitude within -90..90, a longitude within -180..180 and an "
                         f"altitude within -500..9000 m, got {lat} {lon} {alt}")
    if not all(map(math.isfinite, args.at)):
        raise ValueError(f"--at must be finite numbers, got {args.at}")
    if args.duration is not None and not 0 < args.duration < math.inf:
        raise ValueError(f"--duration must be a positive number of seconds, got {args.duration}")
    if not 1 <= args.sysid <= 255:
        raise ValueError(f"--sysid: a MAVLink system id is within 1..255, got {args.sysid}")
    if not 0 < args.gcs_timeout < math.inf:
        raise ValueError(f"--gcs-timeout must be a positive number of seconds, got {args.gcs_timeout}")


def sitl_commands_command(args: argparse.Namespace) -> int:
    """`cosim sitl-commands SCENARIO`: the command line of each firmware instance the scenario flies."""
    import shlex

    from cosim.assembly.sitl_commands import firmware_commands

    try:
        commands = firmware_commands(_load(args), args.binary, args.defaults, args.speedup, args.px4_binary,
                                     args.start_time)
    except (ScenarioError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print("\n".join(shlex.join(argv) for argv in commands))
    return 0


def serve_vehicle_command(args: argparse.Namespace) -> int:
    """`cosim serve-vehicle`: one simulated vehicle over MAVLink, paced to the wall clock."""
    from cosim.mavlink.datagrams import key_from_env
    from cosim.mavlink.frames import GeoOrigin
    from cosim.mavlink.serve.failsafe import GcsFailsafe
    from cosim.mavlink.serve.standin import StandInVehicle

    try:
        out = None
        _check_vehicle_args(args)
        if args.out:
            host, _, port = args.out.rpartition(":")
            if not host or not port.isdigit() or not 0 < int(port) <= 65535:
                raise ValueError(f"--out expects HOST:PORT with a port within 1..65535, got {args.out!r}")
            out = (host, int(port))
        key = key_from_env(args.signing_key_env) if args.signing_key_env else None
        failsafe = GcsFailsafe(args.gcs_timeout, args.gcs_failsafe)
        vehicle = StandInVehicle(args.personality, args.port, args.host, GeoOrigin(*args.origin),
                                 (args.at[0], args.at[1], 0.0), sysid=args.sysid, airframe=args.airframe, out=out,
                                 signing_key=key, gcs_failsafe=failsafe, position_after_s=args.cold_start)
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


def _add_run(sub: AddParser) -> None:
    p = sub("run", help="run a scenario and write a run directory")
    p.add_argument("scenario", type=Path)
    p.add_argument("--seed", type=int, help="master seed (overrides the file)")
    p.add_argument("--duration", type=_duration_arg, help="simulated duration, seconds or e.g. '30 s'")
    p.add_argument("--out", type=Path, help="run directory (default: output.dir/<name>-seed<seed>-<time>); "
                   "an existing non-empty one is refused unless --overwrite")
    p.add_argument("--overwrite", action="store_true",
                   help="replace the run directory given with --out, once the new run has succeeded")
    p.add_argument("--set", action="append", metavar="KEY=VALUE", help="override a dotted key, e.g. groups.0.count=50")
    p.add_argument("--quiet", action="store_true", help="no progress line")
    p.add_argument("--in-process", action="store_true",
                   help="run in this process (default: a child process, so a native abort is recorded as failed)")
    view_cli.add_run_options(p)
    p.set_defaults(handler=run_command)


def warm_command(args: argparse.Namespace) -> int:
    """`cosim warm`: compile what the scenarios' runs compile, into the on-disk cache."""
    from cosim.execution.warm import warm

    for path in args.scenarios:
        try:
            w = warm(path, dict(parse_set_option(text) for text in args.set or []))
        except (ScenarioError, ValueError, FileNotFoundError) as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 2
        print(f"{path}: {w.compile_s:.1f} s compiling, {w.wall_s:.1f} s in all", flush=True)
    return 0


def _add_warm(sub: AddParser) -> None:
    p = sub("warm", help="compile the kernels these scenarios use into the on-disk cache, ahead of their runs")
    p.add_argument("scenarios", type=Path, nargs="+")
    p.add_argument("--set", action="append", metavar="KEY=VALUE", help="override a dotted key, as for `cosim run`")
    p.set_defaults(handler=warm_command)


def _add_validate_and_report(sub: AddParser) -> None:
    p = sub("validate", help="check a scenario without running it")
    p.add_argument("scenario", type=Path)
    p.add_argument("--set", action="append", metavar="KEY=VALUE")
    p.set_defaults(handler=validate_command)
    p = sub("report", help="write an HTML report (and PNG figures) of a run or sweep directory")
    p.add_argument("directory", type=Path)
    p.add_argument("--out", type=Path, help="report directory (default: DIRECTORY/report)")
    p.add_argument("--metric", action="append", help="sweeps: a metric to plot (dotted, e.g. routing.delivery_ratio)")
    p.set_defaults(handler=report_command)
    p = sub("compare", help="set two runs of one scenario side by side (fidelities, seeds or code versions)")
    p.add_argument("run_a", type=Path, metavar="RUN_A")
    p.add_argument("run_b", type=Path, metavar="RUN_B")
    p.add_argument("--out", type=Path, help="report directory (default: compare-A-B beside RUN_A)")
    p.set_defaults(handler=compare_command)
    p = sub("sitl-commands", help="print the command line that starts each firmware instance of a mavlink.sitl scenario")
    p.add_argument("scenario", type=Path)
    p.add_argument("--set", action="append", metavar="KEY=VALUE")
    p.add_argument("--binary", default="arducopter", help="the firmware executable (default: arducopter on PATH)")
    p.add_argument("--defaults", default="copter.parm,copter-X.parm",
                   help="its parameter defaults files, comma-separated, later over earlier (default copter.parm,copter-X.parm: "
                        "both in ArduPilot's Tools/autotest/default_params; the quadrotors are quad X)")
    p.add_argument("--px4-binary", default="px4", help="PX4's SITL executable (default: px4 on PATH)")
    p.add_argument("--speedup", type=float, default=100.0,
                   help="the most the firmware may run ahead of the wall clock (default 100; the physics paces it)")
    p.add_argument("--start-time", type=int,
                   help="ArduPilot's UTC at simulated time 0, UNIX seconds (default 2026-01-01T00:00:00Z; fixed so that "
                        "runs repeat: the firmware's GPS time is this plus the simulated time)")
    p.set_defaults(handler=sitl_commands_command)


def _add_serve_vehicle(sub: AddParser) -> None:
    p = sub("serve-vehicle", help="serve one simulated vehicle over MAVLink (a stand-in for a real one)")
    p.add_argument("--port", type=view_cli.port_number, default=14550, help="UDP port (default 14550)")
    p.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1; others are your choice)")
    p.add_argument("--personality", choices=["px4", "ardupilot", "ardupilot_rover"], default="ardupilot")
    p.add_argument("--origin", type=float, nargs=3, metavar=("LAT", "LON", "ALT"), default=(47.3977, 8.5456, 488.0),
                   help="geodetic origin of the vehicle's local frame (degrees, degrees, m AMSL)")
    p.add_argument("--at", type=float, nargs=2, metavar=("X", "Y"), default=(0.0, 0.0),
                   help="where the vehicle stands, metres east and north of the origin")
    p.add_argument("--out", metavar="HOST:PORT", help="also send to this address from the start (a listening ghost)")
    p.add_argument("--sysid", type=int, default=1)
    p.add_argument("--airframe", default="quad_1500g")
    p.add_argument("--duration", type=float, default=None, help="seconds to run (default: until Ctrl-C)")
    p.add_argument("--signing-key-env", metavar="NAME",
                   help="sign every frame and refuse unsigned ones; the key (hex or passphrase) is in this variable")
    p.add_argument("--gcs-failsafe", choices=["return", "land", "hold", "off"], default="return",
                   help="what the armed vehicle does when no ground-station heartbeat arrives for --gcs-timeout (default return)")
    p.add_argument("--gcs-timeout", type=float, default=5.0, metavar="S", help="seconds of silence (default 5)")
    p.add_argument("--cold-start", type=float, default=0.0, metavar="S",
                   help="no position (GPS fix, EKF) for the first S seconds, as a vehicle just powered on (default 0)")
    p.set_defaults(handler=serve_vehicle_command)


def parser() -> argparse.ArgumentParser:
    """The `cosim` argument parser; each subcommand sets its handler."""
    p = argparse.ArgumentParser(prog="cosim", description="Co-simulate networked robot swarms.")
    p.add_argument("-v", "--verbose", action="store_true", help="log debug messages")
    sub = p.add_subparsers(dest="command", required=True).add_parser
    _add_run(sub)
    _add_validate_and_report(sub)
    _add_warm(sub)
    sweep_cli.add_parser(sub)
    _add_serve_vehicle(sub)
    view_cli.add_parser(sub)
    return p


def main(argv: list[str] | None = None) -> int:
    command_line = sys.argv if argv is None else ["cosim", *argv]  # recorded in the run's metadata
    args = parser().parse_args(argv, namespace=argparse.Namespace(command_line=command_line))
    logging.basicConfig(level=logging.DEBUG if args.verbose else logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    try:
        code = args.handler(args)
    except KeyboardInterrupt as exc:  # before a run started (loading, checking): nothing to keep
        ignore_until_exit()
        print(f"\n{exc if isinstance(exc, Terminated) else 'interrupted (Ctrl-C)'}", file=sys.stderr)
        return 130
    if argv is None:  # the command itself, not a caller in Python: its process must end
        from cosim.execution.leftover_threads import exit_despite_threads, warn_of_leftover_threads

        warn_of_leftover_threads()
        return exit_despite_threads(code)
    return code


if __name__ == "__main__":
    sys.exit(main())
