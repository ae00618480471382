"""The scenario's `output.stream` section: a ZeroMQ PUB socket that publishes the run as it goes."""

from __future__ import annotations

import ipaddress
import re
import socket
from dataclasses import dataclass

_URL = re.compile(r"^(tcp://[^:\s]+:\d{1,5}|ipc://\S+)$")


def _every_interface(host: str) -> bool:
    """Whether a bind to `host` is a bind to every interface: `*`, or any spelling of the unspecified
    address (0.0.0.0, 0, 0.0, 0x0, ::, ...)."""
    host = host.strip("[]")
    if host == "*":
        return True
    try:
        return ipaddress.ip_address(host).is_unspecified
    except ValueError:
        pass
    try:
        return socket.inet_aton(host) == b"\0\0\0\0"  # the C library's spellings of an IPv4 address
    except OSError:
        return False  # a name: it resolves to the interfaces it names


@dataclass(frozen=True)
class StreamSpec:
    """Publish on `url` (tcp://HOST:PORT or ipc://PATH), every `every` quanta, the robots' states and
    the network events since the last publication (cosim.stream.wire, version 1). At most `hwm`
    messages wait for a slow subscriber; beyond that a publication is dropped and counted, never
    waited for. `wait_for` subscribers (waiting at most `wait` of wall time) must join before the
    run starts, so they see it from its first instant."""

    url: str
    """Where to publish: tcp://HOST:PORT or ipc://PATH."""
    every: int = 10
    """Publish every this many quanta."""
    hwm: int = 1000
    """How many messages may wait for a slow subscriber; beyond, a publication is dropped and counted."""
    wait_for: int = 0
    """How many subscribers must join before the run starts."""
    wait_s: float = 10.0
    """How long (wall time, s) to wait for them."""

    def __post_init__(self) -> None:
        if not _URL.match(self.url):
            raise ValueError(f"url must be tcp://HOST:PORT or ipc://PATH, got {self.url!r}")
        if self.url.startswith("tcp://") and not 1 <= int(self.url.rpartition(":")[2]) <= 65535:
            raise ValueError(f"url {self.url!r}: a TCP port is within 1..65535")
        if self.url.startswith("tcp://") and _every_interface(self.url[6:].rpartition(":")[0]):
            raise ValueError(f"url {self.url!r} listens on every interface; name the one you mean "
                             "(tcp://127.0.0.1:PORT for this machine only)")
        if self.every < 1:
            raise ValueError(f"every must be >= 1 quantum, got {self.every}")
        if self.wait_for < 0 or self.wait_s <= 0:
            raise ValueError(f"wait_for must be >= 0 and wait_s > 0, got {self.wait_for} and {self.wait_s}")
        if self.hwm < 1:
            raise ValueError(f"hwm must be >= 1 message, got {self.hwm}")
