"""The scenario's `output.view` section: what the Rerun recording holds, how often, and where it goes."""

from __future__ import annotations

import re
from dataclasses import dataclass

LAYERS = ("robots", "trails", "links", "packets", "routes", "events", "metrics")
"""What a recording can show; `layers` picks a subset (thinning for large swarms)."""

_VIEWER_URL = re.compile(r"^rerun(\+https?)?://[^/\s]+/proxy$")


@dataclass(frozen=True)
class ViewSpec:
    """Record the run for the viewer: one frame every `every` of simulated time (rounded up to whole
    quanta) into `recording.rrd` in the run directory, holding `layers`; trails show each robot's
    positions over the last `trail` frames. `connect` also streams the frames to a running Rerun viewer (a
    `rerun+http://HOST:PORT/proxy` URL; `cosim run --view` starts one on 127.0.0.1 and sets it)."""

    every_ns: int = 250_000_000
    """One frame every this much simulated time (rounded up to whole quanta)."""
    layers: tuple[str, ...] = LAYERS
    """What the frames show (any of robots, trails, links, packets, routes, events, metrics)."""
    trail: int = 10
    """How many past frames each robot's trail shows."""
    connect: str | None = None
    """A running Rerun viewer to stream the frames to (a rerun+http://HOST:PORT/proxy URL; null: the recording
    only)."""

    def __post_init__(self) -> None:
        if self.every_ns <= 0:
            raise ValueError(f"every must be a positive duration, got {self.every_ns} ns")
        unknown = [name for name in self.layers if name not in LAYERS]
        if unknown:
            raise ValueError(f"layers: unknown {', '.join(map(repr, unknown))}; expected some of {', '.join(LAYERS)}")
        if self.trail < 0:
            raise ValueError(f"trail must be >= 0 frames, got {self.trail}")
        if self.connect is not None and not _VIEWER_URL.match(self.connect):
            raise ValueError(f"connect must be a Rerun viewer URL like rerun+http://127.0.0.1:9876/proxy, got {self.connect!r}")
