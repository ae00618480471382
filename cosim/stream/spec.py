"""The scenario's `output.stream` section: a ZeroMQ PUB socket that publishes the run as it goes."""

from __future__ import annotations

import re
from dataclasses import dataclass

_URL = re.compile(r"^(tcp://[^:\s]+:\d{1,5}|ipc://\S+)$")


@dataclass(frozen=True)
class StreamSpec:
    """Publish on `url` (tcp://HOST:PORT or ipc://PATH), every `every` quanta, the robots' states and
    the network events since the last publication (cosim.stream.wire, version 1). At most `hwm`
    messages wait for a slow subscriber; beyond that a publication is dropped and counted, never
    waited for. `wait_for` subscribers (waiting at most `wait` of wall time) must join before the
    run starts, so they see it from its first instant."""

    url: str
    every: int = 10
    hwm: int = 1000
    wait_for: int = 0
    wait_s: float = 10.0

    def __post_init__(self) -> None:
        if not _URL.match(self.url):
            raise ValueError(f"url must be tcp://HOST:PORT or ipc://PATH, got {self.url!r}")
        if self.url.startswith("tcp://*") or self.url.startswith("tcp://0.0.0.0"):
            raise ValueError(f"url {self.url!r} listens on every interface; name the one you mean "
                             "(tcp://127.0.0.1:PORT for this machine only)")
        if self.every < 1:
            raise ValueError(f"every must be >= 1 quantum, got {self.every}")
        if self.wait_for < 0 or self.wait_s <= 0:
            raise ValueError(f"wait_for must be >= 0 and wait_s > 0, got {self.wait_for} and {self.wait_s}")
        if self.hwm < 1:
            raise ValueError(f"hwm must be >= 1 message, got {self.hwm}")
