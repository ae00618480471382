"""Network surfaces: stream URLs, viewer ports and the MAVLink vehicle's arguments and messages.
Nothing may be destroyed at a socket path, every address must be one that works, and a vehicle fed
garbage keeps answering."""

from __future__ import annotations

import os
import socket
from pathlib import Path

from benchmarks.hostile.base import scenario_text
from benchmarks.hostile.case import Case

FAMILY = "surfaces"
THESIS = "my thesis, not a socket\n"


def _listening(folder: Path) -> None:
    """Hold a TCP port for the case (its number in port.txt); released when the audit ends."""
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    s.listen()
    _held.append(s)
    (folder / "port.txt").write_text(str(s.getsockname()[1]))


_held: list[socket.socket] = []


def _stream(url: str) -> tuple[str, ...]:
    return ("cosim", "run", "s.yaml", "--out", "run", "--quiet", "--stream", url)


STREAMS = {
    "ipc-over-file": ("ipc://thesis.tex", "refuse", ("thesis.tex",)),
    "ipc-over-folder": ("ipc://data", "refuse", ("data",)),
    "ipc-over-symlink": ("ipc://link", "refuse", ("link",)),
    "ipc-new-path": ("ipc://fresh.sock", "ok", ()),
    "tcp-port-too-big": ("tcp://127.0.0.1:70000", "refuse", ("70000",)),
    "tcp-port-negative": ("tcp://127.0.0.1:-1", "refuse", ("-1",)),
    "tcp-no-port": ("tcp://127.0.0.1", "refuse", ("port",)),
    "tcp-word-port": ("tcp://127.0.0.1:http", "refuse", ("http",)),
    "http-scheme": ("http://127.0.0.1:5556", "refuse", ("http",)),
    "garbage": ("not a url", "refuse", ("not a url",)),
    "empty": ("", "refuse", ("URL",)),
    "unknown-host": ("tcp://no.such.host.invalid:5556", "refuse", ("no.such.host.invalid",)),
    "foreign-address": ("tcp://10.255.255.1:5556", "refuse", ("10.255.255.1",)),
}

VEHICLE = {
    "port-too-big": (("--port", "70000"), ("70000",)),
    "port-negative": (("--port", "-1"), ("-1",)),
    "port-word": (("--port", "abc"), ("abc",)),
    "origin-nan": (("--origin", "nan", "nan", "nan"), ("origin",)),
    "origin-off-earth": (("--origin", "91", "0", "0"), ("origin",)),
    "origin-word": (("--origin", "north", "0", "0"), ("north",)),
    "at-inf": (("--at", "inf", "0"), ("--at",)),
    "duration-negative": (("--duration", "-5"), ("duration",)),
    "out-garbage": (("--out", "nowhere"), ("--out",)),
    "out-port-too-big": (("--out", "127.0.0.1:70000"), ("70000",)),
    "sysid-zero": (("--sysid", "0"), ("sysid",)),
    "sysid-too-big": (("--sysid", "300"), ("sysid",)),
    "airframe-unknown": (("--airframe", "zeppelin"), ("zeppelin",)),
    "gcs-timeout-negative": (("--gcs-timeout", "-1"), ("gcs-timeout",)),
    "cold-start-nan": (("--cold-start", "nan"), ("cold-start",)),
    "signing-env-missing": (("--signing-key-env", "NO_SUCH_VARIABLE_XYZ"), ("NO_SUCH_VARIABLE_XYZ",)),
    "host-foreign": (("--host", "10.255.255.1"), ("10.255.255.1",)),
}


def _prepare_stream(folder: Path) -> None:
    (folder / "data").mkdir()
    (folder / "data" / "keep.txt").write_text(THESIS)
    os.symlink("thesis.tex", folder / "link")


def cases() -> list[Case]:
    out = []
    for name, (url, expect, words) in STREAMS.items():
        out.append(Case(FAMILY, f"stream-{name}", _stream(url), expect, mention=words,
                        files={"s.yaml": scenario_text(), "thesis.tex": THESIS}, prepare=_prepare_stream,
                        guard=("thesis.tex", "data", "link"), run_dir="run" if expect == "ok" else None, timeout_s=60))
    out.append(Case(FAMILY, "stream-port-in-use", ("sh", "-c", "cosim run s.yaml --out run --quiet --stream "
                                                    "tcp://127.0.0.1:$(cat port.txt)"),
                    "refuse", mention=("in use",), files={"s.yaml": scenario_text()}, prepare=_listening))
    out.append(Case(FAMILY, "view-port-too-big", ("cosim", "run", "s.yaml", "--out", "run", "--quiet", "--view",
                                                  "--view-port", "70000"), "refuse", mention=("70000",),
                    files={"s.yaml": scenario_text()}))
    for name, (args, words) in VEHICLE.items():
        out.append(Case(FAMILY, f"vehicle-{name}", ("cosim", "serve-vehicle", "--duration", "3", *args), "refuse",
                        mention=words, timeout_s=30))
    out.append(Case(FAMILY, "vehicle-port-in-use", ("sh", "-c", "cosim serve-vehicle --duration 3 --port $(cat port.txt)"),
                    "either", mention=("in use",), prepare=_udp_held, timeout_s=30))
    out.append(Case(FAMILY, "vehicle-garbage-then-heartbeat", ("python", "-c", GARBAGE_PROBE), "ok", timeout_s=60))
    return out


def _udp_held(folder: Path) -> None:
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.bind(("127.0.0.1", 0))
    _held.append(s)
    (folder / "port.txt").write_text(str(s.getsockname()[1]))


GARBAGE_PROBE = '''
import os, random, socket, subprocess, sys, time
from pymavlink import mavutil
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.bind(("127.0.0.1", 0)); port = s.getsockname()[1]; s.close()
cosim = os.path.join(os.path.dirname(sys.executable), "cosim")
vehicle = subprocess.Popen([cosim, "serve-vehicle", "--port", str(port), "--duration", "20"])
time.sleep(3)
rng = random.Random(1)
raw = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
for k in range(3000):
    raw.sendto(bytes(rng.randrange(256) for _ in range(rng.randrange(1, 300))), ("127.0.0.1", port))
    if k % 100 == 0:
        raw.sendto(b"\\xfd" + bytes(rng.randrange(256) for _ in range(40)), ("127.0.0.1", port))
m = mavutil.mavlink_connection(f"udpout:127.0.0.1:{port}", source_system=255)
deadline = time.time() + 10
seen = None
while time.time() < deadline and seen is None:
    m.mav.heartbeat_send(6, 8, 0, 0, 0)
    seen = m.recv_match(type="HEARTBEAT", blocking=True, timeout=1)
vehicle.terminate(); vehicle.wait(10)
print("heartbeat after garbage:", seen is not None)
sys.exit(0 if seen is not None else 1)
'''
