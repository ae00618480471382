"""The run's side of the stream's forwarder process (cosim/stream/forwarder.py): start it, wait for
subscribers, hand it publications, collect its counts. What subscribers send can cost the
forwarder its memory (capped), never the run; if the forwarder dies, the run goes on and says so."""

from __future__ import annotations

import json
import logging
import os
import shutil
import stat
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import zmq

from cosim.stream.forwarder import LINGER_MS
from cosim.stream.spec import StreamSpec

log = logging.getLogger(__name__)
FORWARDER = Path(__file__).with_name("forwarder.py")
FORWARDER_MEMORY = 1 << 30
"""The forwarder's address-space limit (bytes): a flood of subscriptions ends there."""
START_S = 30.0
"""How long the forwarder may take to start and bind."""


class ForwarderLink:
    """A PAIR socket to the forwarder process, which owns the public XPUB socket."""

    def __init__(self, spec: StreamSpec) -> None:
        self.spec = spec
        self._dir = Path(tempfile.mkdtemp(prefix="cosim-stream-"))  # private (0700): only our forwarder connects
        self._sock = zmq.Context.instance().socket(zmq.PAIR)
        self._sock.setsockopt(zmq.SNDHWM, spec.hwm)
        self._sock.setsockopt(zmq.LINGER, 0)
        self._sock.bind(f"ipc://{self._dir / 'link'}")
        self._proc = subprocess.Popen([sys.executable, str(FORWARDER), spec.url, f"ipc://{self._dir / 'link'}",
                                       str(spec.hwm), str(FORWARDER_MEMORY)], stdin=subprocess.DEVNULL)
        self.died: str | None = None
        self._socket_file: tuple[str, int, int] | None = None  # path, device, inode of an ipc socket made

    def start(self) -> None:
        """Wait until the forwarder listens; RuntimeError (naming output.stream.url) if it cannot."""
        reply = self._recv(START_S, {b"bound", b"error"})
        if reply is None:
            self.close()
            raise RuntimeError(f"output.stream: the stream's forwarder did not start within {START_S:g} s "
                               f"({self.died or 'no reply'})")
        if reply[0] == b"error":
            self.close()
            raise RuntimeError(reply[1].decode())
        endpoint = reply[1].decode()
        if endpoint.startswith("ipc://") and not endpoint.startswith("ipc://@"):
            made = os.lstat(endpoint[6:])
            self._socket_file = (endpoint[6:], made.st_dev, made.st_ino)

    def wait_for(self, count: int, wait_s: float) -> None:
        """Hold the start (wall clock, at most `wait_s`) until `count` subscribers have joined."""
        deadline = time.monotonic() + wait_s
        for joined in range(count):
            if self._recv(deadline - time.monotonic(), {b"joined"}) is None:
                raise RuntimeError(f"output.stream: {joined} of {count} subscribers joined {self.spec.url} within "
                                   f"{wait_s} s (wait_for)")

    def send(self, frames: list[bytes]) -> bool:
        """Hand a publication over; False if it does not fit (the forwarder is behind, or gone)."""
        try:
            self._sock.send_multipart([b"pub", *frames], zmq.NOBLOCK)
        except zmq.Again:
            return False
        while self._sock.poll(0, zmq.POLLIN):  # joins after the start: nothing to do with them
            self._sock.recv_multipart()
        return True

    def close(self) -> dict | None:
        """Stop the forwarder after what was handed over has left (at most LINGER_MS); its counts,
        or None if it died (the reason in `died`)."""
        stats = None
        if self._proc.poll() is None:
            try:
                self._sock.setsockopt(zmq.SNDTIMEO, 5000)  # behind the last publications, which may fill the queue
                self._sock.send(b"close")
                reply = self._recv(LINGER_MS / 1000 + 5.0, {b"stats"})
                stats = json.loads(reply[1]) if reply is not None else None
            except zmq.Again:
                pass
        try:
            self._proc.wait(timeout=LINGER_MS / 1000 + 5.0)
        except subprocess.TimeoutExpired:
            self._proc.kill()
            self._proc.wait()
        if stats is None and self.died is None:
            self.died = f"the stream's forwarder stopped (exit status {self._proc.returncode})"
        self._sock.close()
        shutil.rmtree(self._dir, ignore_errors=True)
        self._remove_socket_file()
        return stats

    def _remove_socket_file(self) -> None:
        """Remove the ipc socket file the forwarder made, if it is still that one (never anything else)."""
        if self._socket_file is None:
            return
        path, dev, ino = self._socket_file
        self._socket_file = None
        try:
            now = os.lstat(path)
        except FileNotFoundError:
            return
        if stat.S_ISSOCK(now.st_mode) and (now.st_dev, now.st_ino) == (dev, ino):
            os.unlink(path)
        else:
            log.warning("output.stream.url: %s is no longer the stream's socket; left as it is", path)

    def _recv(self, timeout_s: float, kinds: set[bytes]) -> list[bytes] | None:
        """The next message of one of `kinds` within `timeout_s`, or None (the forwarder died: `died`)."""
        deadline = time.monotonic() + timeout_s
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                return None
            gone = self._proc.poll() is not None  # before polling: what it sent before leaving is still read
            if self._sock.poll(1000 if gone else min(int(left * 1000) + 1, 200), zmq.POLLIN):
                frames = self._sock.recv_multipart()
                if frames[0] in kinds:
                    return frames
            elif gone:
                self.died = f"the stream's forwarder stopped (exit status {self._proc.returncode})"
                return None
