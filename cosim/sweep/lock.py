"""One sweep driver per output directory: an exclusive lock on `<dir>/driver.lock` that names its
holder (host, process, start time) and is released by the kernel when the holder dies, so a killed
driver never blocks the next one and two live ones never run the same runs twice."""

from __future__ import annotations

import fcntl
import json
import os
import socket
import time
from pathlib import Path


class SweepLocked(RuntimeError):
    """Another live driver holds the sweep directory."""


class DriverLock:
    """Held from `acquire()` until `release()` (or the process ends)."""

    def __init__(self, directory: Path) -> None:
        self.path = directory / "driver.lock"
        self._fd: int | None = None

    def acquire(self) -> DriverLock:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.read(fd, 4096).decode(errors="replace")
            os.close(fd)
            raise SweepLocked(f"{self.path.parent} is in use by another sweep driver ({_describe(holder)}); "
                              "wait for it to finish or stop it, then run again (finished runs are kept)") from None
        me = {"host": socket.gethostname(), "pid": os.getpid(), "started": time.strftime("%Y-%m-%dT%H:%M:%S%z")}
        os.ftruncate(fd, 0)
        os.write(fd, json.dumps(me).encode())
        self._fd = fd
        return self

    def release(self) -> None:
        if self._fd is not None:
            os.ftruncate(self._fd, 0)
            fcntl.flock(self._fd, fcntl.LOCK_UN)
            os.close(self._fd)
            self._fd = None

    def __enter__(self) -> DriverLock:
        return self.acquire()

    def __exit__(self, *exc) -> None:
        self.release()


def _describe(text: str) -> str:
    try:
        h = json.loads(text)
        return f"process {h['pid']} on {h['host']}, since {h['started']}"
    except (ValueError, KeyError, TypeError):
        return "holder unknown"
