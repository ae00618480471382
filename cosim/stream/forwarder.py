"""The stream's public socket, in a process of its own: `python forwarder.py PUBLIC PRIVATE HWM MEM`.

libzmq keeps every subscription a subscriber sends for as long as it stays connected, and reads
them all as they arrive: no setting bounds that inside one process. Here, whatever subscribers
send costs this process's memory, capped at MEM bytes of address space; the run's never. Run by
path (not `-m`), so that it imports only the standard library and pyzmq.

Over the PAIR socket at PRIVATE (the run's publisher binds it):
- to the run: [b"bound", endpoint] or [b"error", text] first; [b"joined"] for each subscription
  to a published topic; [b"stats", json] after [b"close"];
- from the run: [b"pub", topic, header, *arrays] (cosim.stream.wire), then [b"close"].
"""

from __future__ import annotations

import ctypes
import json
import os
import resource
import signal
import sys
import tempfile

import zmq

LINGER_MS = 2000
"""At the end, how long queued publications may still take to leave (then they are dropped)."""
DRAIN_LIMIT = 1_000
"""Messages from subscribers read per publication at most: the run's publications go first, a
flood waits (in this process's memory, capped)."""
MAX_UPSTREAM_BYTES = 64
"""The longest message a subscriber may send (a subscription is 1 byte + a topic of at most 14):
libzmq disconnects a sender of a longer one, forgetting every subscription it made."""
MAX_IPC_PATH = 107
"""The longest path of a Unix socket on Linux (sun_path holds 108 bytes with the closing zero)."""
TOPICS = (b"cosim.v1.state", b"cosim.v1.end")
"""cosim.stream.wire's topics, spelled here so that this process imports no numpy (a test checks they agree)."""
USEFUL = frozenset(t[:k] for t in TOPICS for k in range(len(t) + 1))
"""Subscriptions that count as a subscriber joining: prefixes of the topics published. (libzmq
applies every subscription itself; XPUB_MANUAL, which would let this process refuse the others,
credits a subscription to the wrong subscriber once other messages come between.)"""


def bound_everywhere(endpoint: str) -> bool:
    """Whether an endpoint as libzmq reports it bound (tcp://ADDRESS:PORT) listens on every interface."""
    host = endpoint[6:].rpartition(":")[0].strip("[]") if endpoint.startswith("tcp://") else ""
    return host in ("0.0.0.0", "::", "*")


def bind_ipc(sock: zmq.Socket, path: str) -> str:
    """Bind `sock` at the file `path` without replacing anything there; returns the endpoint.

    libzmq deletes whatever is at an ipc path before it binds. So the socket is bound in a private
    folder made beside `path` and hard-linked into place, which fails if anything is there; the
    temporary name and folder go at once. Linux's abstract names (`@name`) have no file."""
    if path.startswith("@"):
        sock.bind(f"ipc://{path}")
        return f"ipc://{path}"
    url = f"output.stream.url: ipc://{path}"
    parent = os.path.dirname(path)
    if len(os.fsencode(path)) > MAX_IPC_PATH or len(os.fsencode(parent)) > MAX_IPC_PATH - len("/.csXXXXXXXX/s"):
        raise RuntimeError(f"{url}: a socket's path holds at most {MAX_IPC_PATH} bytes (and the stream binds "
                           f"first in a folder of its own beside it, 14 bytes longer); name a shorter one")
    if not os.path.isdir(parent):
        raise RuntimeError(f"{url}: {parent} is not an existing folder")
    if os.path.lexists(path):
        raise RuntimeError(f"{url}: something is there already; the stream makes its own socket file there and "
                           "removes it at the end, and never replaces a file (remove it yourself if it is a "
                           "socket a killed run left)")
    try:
        private = tempfile.mkdtemp(prefix=".cs", dir=parent)
    except OSError as exc:
        raise RuntimeError(f"{url}: cannot make a socket in {parent}: {exc.strerror}") from None
    temp = os.path.join(private, "s")
    try:
        sock.bind(f"ipc://{temp}")
        os.link(temp, path)
    except FileExistsError:
        raise RuntimeError(f"{url}: something appeared there while the stream started; nothing was "
                           "replaced") from None
    except (OSError, zmq.ZMQError) as exc:
        raise RuntimeError(f"{url}: cannot listen there: {exc}") from None
    finally:
        if os.path.lexists(temp):
            os.unlink(temp)
        os.rmdir(private)
    return f"ipc://{path}"


def _open(ctx: zmq.Context, url: str, hwm: int) -> tuple[zmq.Socket, str]:
    """The public socket, bound, and the endpoint it listens on."""
    sock = ctx.socket(zmq.XPUB)
    sock.setsockopt(zmq.SNDHWM, hwm)
    sock.setsockopt(zmq.XPUB_NODROP, 1)  # a full queue refuses (counted) instead of dropping silently
    sock.setsockopt(zmq.XPUB_VERBOSE, 1)  # every subscription comes up, repeated ones too: each joins
    sock.setsockopt(zmq.MAXMSGSIZE, MAX_UPSTREAM_BYTES)
    sock.setsockopt(zmq.LINGER, LINGER_MS)
    if url.startswith("ipc://"):
        try:
            return sock, bind_ipc(sock, os.path.abspath(url[6:]) if url[6:7] != "@" else url[6:])
        except RuntimeError:
            sock.close(linger=0)
            raise
    try:
        sock.bind(url)
    except zmq.ZMQError as exc:
        sock.close(linger=0)
        raise RuntimeError(f"output.stream.url: cannot listen on {url}: {exc}") from None
    bound = sock.getsockopt_string(zmq.LAST_ENDPOINT)
    if bound_everywhere(bound):
        sock.close(linger=0)
        raise RuntimeError(f"output.stream.url: {url} resolved to {bound}, every interface; name the one you mean "
                           "(tcp://127.0.0.1:PORT for this machine only)")
    return sock, bound


class Forwarder:
    """Forwards the run's publications to subscribers; counts joins and what else they send."""

    def __init__(self, pub: zmq.Socket, link: zmq.Socket) -> None:
        self.pub = pub
        self.link = link
        self.published = self.dropped = self.ignored = 0

    def drain(self) -> None:
        for _ in range(DRAIN_LIMIT):
            if not self.pub.poll(0, zmq.POLLIN):
                return
            msg = self.pub.recv()
            if msg[:1] == b"\x01" and msg[1:] in USEFUL:
                self.link.send(b"joined")
            elif msg[:1] != b"\x00":
                self.ignored += 1

    def forward(self, frames: list[bytes]) -> None:
        header = json.loads(frames[1])
        header["dropped"] += self.dropped  # the run's own drops and this process's
        frames[1] = json.dumps(header).encode()
        self.drain()
        try:
            self.pub.send_multipart(frames, zmq.NOBLOCK)
            self.published += 1
        except zmq.Again:
            self.dropped += 1

    def loop(self) -> None:
        poller = zmq.Poller()
        poller.register(self.link, zmq.POLLIN)
        poller.register(self.pub, zmq.POLLIN)
        while True:
            ready = dict(poller.poll())
            if self.pub in ready and self.link not in ready:
                self.drain()
            while self.link.poll(0, zmq.POLLIN):  # everything the run handed over, then subscribers again
                frames = self.link.recv_multipart()
                if frames[0] == b"close":
                    return
                self.forward(frames[1:])


def main(argv: list[str]) -> int:
    public = argv[0]
    private = argv[1]
    hwm = int(argv[2])
    mem = int(argv[3])
    for signum in (signal.SIGINT, signal.SIGTERM):  # the run stops it (a signal to the group reaches both)
        signal.signal(signum, signal.SIG_IGN)
    if sys.platform.startswith("linux"):
        ctypes.CDLL("libc.so.6").prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG: die with the run
    resource.setrlimit(resource.RLIMIT_AS, (mem, mem))
    ctx = zmq.Context()
    link = ctx.socket(zmq.PAIR)
    link.connect(private)
    try:
        pub, endpoint = _open(ctx, public, hwm)
    except RuntimeError as exc:
        link.send_multipart([b"error", str(exc).encode()])
        link.close(linger=1000)
        return 2
    link.send_multipart([b"bound", endpoint.encode()])
    fwd = Forwarder(pub, link)
    fwd.loop()
    stats = {"published": fwd.published, "dropped": fwd.dropped, "ignored_from_subscribers": fwd.ignored}
    link.send_multipart([b"stats", json.dumps(stats).encode()])
    pub.close()  # LINGER_MS for what is still queued
    link.close(linger=1000)
    ctx.term()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
