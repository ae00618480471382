"""Start Rerun's own viewers: the web viewer served from this machine (127.0.0.1 unless asked
otherwise), or the native viewer on a desktop. Both are Rerun's `rerun` program, run as a child."""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote


def rerun_program() -> str:
    """The `rerun` program installed with rerun-sdk: its native binary (not the Python wrapper, which
    would leave the binary running when stopped), else whatever `rerun` is on PATH."""
    try:
        import rerun_cli

        native = Path(rerun_cli.__file__).parent / "rerun"
    except ImportError:
        native = None
    found = str(native) if native is not None and native.is_file() else shutil.which("rerun")
    if found is None:
        raise FileNotFoundError("the `rerun` program is missing: install rerun-sdk (pip install rerun-sdk)")
    return found


def free_port(host: str = "127.0.0.1") -> int:
    with socket.socket() as s:
        s.bind((host, 0))
        return s.getsockname()[1]


@dataclass
class WebViewer:
    """A running web viewer: open `url` in a browser; SDKs stream to `grpc_url`."""

    process: subprocess.Popen
    url: str
    grpc_url: str

    def stop(self) -> None:
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(5)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait()


def serve_web(recording: Path | None = None, bind: str = "127.0.0.1", web_port: int | None = None,
              grpc_port: int | None = None, timeout_s: float = 20.0) -> WebViewer:
    """Serve Rerun's web viewer on bind:web_port with its data server on bind:grpc_port (free ports by
    default), holding `recording` if given, else waiting for a live run to stream in."""
    web_port = web_port or free_port(bind)
    grpc_port = grpc_port or free_port(bind)
    args = [rerun_program(), "--serve-web", "--bind", bind, "--port", str(grpc_port), "--web-viewer-port", str(web_port)]
    if recording is not None:
        args.append(str(recording))
    log_file = tempfile.TemporaryFile()  # rerun's own log: read only if it fails to start (a pipe could fill)
    proc = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=log_file, stderr=subprocess.STDOUT, start_new_session=True)
    host = "127.0.0.1" if bind in ("0.0.0.0", "::") else bind
    grpc_url = f"rerun+http://{host}:{grpc_port}/proxy"
    viewer = WebViewer(proc, f"http://{host}:{web_port}/?url={quote(grpc_url, safe='')}", grpc_url)
    deadline = time.monotonic() + timeout_s
    while not (_listening(host, web_port) and _listening(host, grpc_port)):
        if proc.poll() is not None:
            log_file.seek(0)
            raise RuntimeError(f"rerun exited ({proc.returncode}): {log_file.read().decode(errors='replace')[-800:]}")
        if time.monotonic() > deadline:
            viewer.stop()
            raise RuntimeError(f"rerun did not start serving on {bind}:{web_port} within {timeout_s} s")
        time.sleep(0.1)
    return viewer


def _listening(host: str, port: int) -> bool:
    with socket.socket() as s:
        s.settimeout(0.2)
        return s.connect_ex((host, port)) == 0


def has_display() -> bool:
    return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")) or sys.platform in ("darwin", "win32")


def open_native(recording: Path) -> subprocess.Popen:
    """Rerun's desktop viewer on the recording (needs a display)."""
    return subprocess.Popen([rerun_program(), str(recording)], stdin=subprocess.DEVNULL)
