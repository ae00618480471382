"""`cosim view RUN_DIR`, and the `--view` / `--stream` options of `cosim run`."""

from __future__ import annotations

import argparse
import signal
import sys
import time
from pathlib import Path
from typing import Any

from cosim.view.spec import LAYERS


def _layers(text: str) -> tuple[str, ...]:
    names = tuple(n.strip() for n in text.split(",") if n.strip())
    unknown = [n for n in names if n not in LAYERS]
    if unknown:
        raise argparse.ArgumentTypeError(f"unknown layer {', '.join(unknown)}; expected some of {', '.join(LAYERS)}")
    return names


def port_number(text: str) -> int:
    """An argparse type: a TCP or UDP port, 0..65535 (0: any free one)."""
    try:
        port = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a port number within 0..65535, got {text!r}") from None
    if not 0 <= port <= 65535:
        raise argparse.ArgumentTypeError(f"expected a port number within 0..65535, got {port}")
    return port


def _url(text: str) -> str:
    if not text.strip():
        raise argparse.ArgumentTypeError("expected a ZeroMQ URL such as tcp://127.0.0.1:5556 or ipc://PATH, got ''")
    return text


def add_run_options(p: argparse.ArgumentParser) -> None:
    """`cosim run`'s viewing options."""
    p.add_argument("--view", action="store_true",
                   help="watch it live in Rerun's web viewer, served on 127.0.0.1 (the URL is printed), and record "
                        "recording.rrd in the run directory")
    p.add_argument("--view-port", type=port_number, default=None, help="web viewer port (default: a free one)")
    p.add_argument("--stream", metavar="URL", type=_url, help="publish states and network events on a ZeroMQ PUB socket, "
                                                   "e.g. tcp://127.0.0.1:5556 (docs/viewing.md: the format)")


def add_parser(sub) -> None:
    p = sub("view", help="view a run in 3D (Rerun): robots, trails, links, packets, routes, events, metrics")
    p.add_argument("directory", type=Path, help="a run directory")
    p.add_argument("--web", action="store_true", help="serve the web viewer (the default without a display)")
    p.add_argument("--bind", default="127.0.0.1", help="address to serve on (default 127.0.0.1; others are your choice)")
    p.add_argument("--port", type=port_number, default=None, help="web viewer port (default: a free one)")
    p.add_argument("--rebuild", action="store_true", help="remake recording.rrd from the trace even if it exists")
    p.add_argument("--layers", type=_layers, default=LAYERS, help=f"comma-separated subset of {','.join(LAYERS)}")
    p.add_argument("--write-only", action="store_true", help="write recording.rrd and print its path; open nothing")
    p.set_defaults(handler=view_command)


def view_command(args: argparse.Namespace) -> int:
    from cosim.view.live import RECORDING
    from cosim.view.replay import write_recording
    from cosim.view.spec import ViewSpec
    from cosim.view.viewer import has_display, open_native, serve_web

    path = args.directory / RECORDING
    if args.rebuild or not path.is_file():
        try:
            write_recording(args.directory, ViewSpec(layers=args.layers))
        except (FileNotFoundError, ValueError) as exc:  # no run there, or its position trace is torn
            print(f"error: {exc}", file=sys.stderr)
            return 2
    print(f"recording: {path}  (open it anywhere with `rerun {path.name}` or at app.rerun.io)")
    if args.write_only:
        return 0
    if not args.web and has_display():
        open_native(path)
        return 0
    viewer = serve_web(path, args.bind, args.port)
    print(f"web viewer: {viewer.url}\n(Ctrl-C to stop)", flush=True)
    return _serve_until_interrupted(viewer)


def _serve_until_interrupted(viewer) -> int:
    """Wait on the viewer until Ctrl-C or SIGTERM, then stop it (it runs in its own session)."""

    def interrupt(signum, frame):
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGTERM, interrupt)
    try:
        while viewer.process.poll() is None:
            time.sleep(0.5)
    except KeyboardInterrupt:
        pass
    finally:
        signal.signal(signal.SIGTERM, previous)
        viewer.stop()
    return 0


def run_overrides(args: argparse.Namespace) -> tuple[dict[str, Any], Any]:
    """The scenario overrides `--view` and `--stream` stand for, and the web viewer started for --view."""
    overrides: dict[str, Any] = {}
    viewer = None
    if args.stream:
        overrides["output.stream.url"] = args.stream
    if args.view:
        from cosim.view.viewer import serve_web

        viewer = serve_web(web_port=args.view_port)
        overrides["output.view.connect"] = viewer.grpc_url
        print(f"live view: {viewer.url}", file=sys.stderr, flush=True)
    return overrides, viewer


def after_run(viewer) -> None:
    """Keep a --view viewer up for an interactive user until Ctrl-C; stop it otherwise."""
    if viewer is None:
        return
    if sys.stdin.isatty():
        print(f"the run is over; the viewer stays at {viewer.url} until Ctrl-C", file=sys.stderr, flush=True)
        _serve_until_interrupted(viewer)
    else:
        viewer.stop()
