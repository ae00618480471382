"""A controller that holds the run (in wall time) until the stream's forwarder process has died,
so that a test of a flood does not race the flood against the run's speed."""

from __future__ import annotations

import os
import time
from pathlib import Path

from controllers import Controller

HOLD_S = 60.0
"""How long the run is held at most; the test fails on its own assertions if the forwarder lives."""


def _forwarders() -> list[int]:
    """This process's children running the stream's forwarder."""
    me = os.getpid()
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            cmdline = (entry / "cmdline").read_bytes()
        except OSError:
            continue
        ppid = int(stat.rpartition(")")[2].split()[1])
        if ppid == me and b"forwarder.py" in cmdline:
            found.append(int(entry.name))
    return found


def _alive(pid: int) -> bool:
    """Whether `pid` still runs (a zombie, dead but not yet reaped by the run, counts as dead)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[0]
    except OSError:
        return False
    return state != "Z"


class HoldUntilForwarderDies(Controller):
    """Robot 0 stops the run's clock at 0.5 s until the forwarder is gone (at most HOLD_S)."""

    period = None

    def setup(self) -> None:
        if self.id == 0:
            self.after(0.5, self._hold)

    def _hold(self) -> None:
        pids = _forwarders()
        deadline = time.monotonic() + HOLD_S
        while any(_alive(p) for p in pids) and time.monotonic() < deadline:
            time.sleep(0.05)
        self.record("forwarders_seen", len(pids))
