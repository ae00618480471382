"""An exclusive lock on a file that names its holder (host, process, start time). The kernel releases
it when the holder dies, so a killed holder never blocks the next one; two live ones never share
what it guards (a run directory, a sweep directory)."""

from __future__ import annotations

import fcntl
import json
import os
import socket
import time
from pathlib import Path


class Locked(RuntimeError):
    """Another live process holds the lock; the message names it."""


class FileLock:
    """Held from `acquire()` until `release()` (or the process ends). With `remove`, the lock file is
    deleted on release: safe, because an acquirer checks that the file it locked is still the one at
    the path (else it tries again on the new one)."""

    def __init__(self, path: Path, what: str, advice: str = "", remove: bool = False) -> None:
        self.path = path
        self.what = what
        """Who holds it, for the refusal ('another sweep driver uses runs/sweep'); then the holder, then `advice`."""
        self.advice = advice
        self.remove = remove
        self._fd: int | None = None

    def acquire(self) -> FileLock:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        while True:
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                holder = os.read(fd, 4096).decode(errors="replace")
                os.close(fd)
                raise Locked(f"{self.what} ({_describe(holder)}){self.advice}") from None
            if _same_file(fd, self.path):
                break
            os.close(fd)  # its holder removed it as we opened it: lock the one at the path now
        me = {"host": socket.gethostname(), "pid": os.getpid(), "started": time.strftime("%Y-%m-%dT%H:%M:%S%z")}
        os.ftruncate(fd, 0)
        os.write(fd, json.dumps(me).encode())
        self._fd = fd
        return self

    def release(self) -> None:
        if self._fd is None:
            return
        if self.remove:
            try:
                self.path.unlink()
            except FileNotFoundError:
                pass
        else:
            os.ftruncate(self._fd, 0)
        fcntl.flock(self._fd, fcntl.LOCK_UN)
        os.close(self._fd)
        self._fd = None

    def __enter__(self) -> FileLock:
        return self.acquire()

    def __exit__(self, *exc) -> None:
        self.release()


def _same_file(fd: int, path: Path) -> bool:
    try:
        now = os.stat(path)
    except FileNotFoundError:
        return False
    held = os.fstat(fd)
    return (now.st_dev, now.st_ino) == (held.st_dev, held.st_ino)


def _describe(text: str) -> str:
    try:
        h = json.loads(text)
        return f"process {h['pid']} on {h['host']}, since {h['started']}"
    except (ValueError, KeyError, TypeError):
        return "holder unknown"
