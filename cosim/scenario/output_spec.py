"""What a run leaves behind (`output`): the run directory, the trace, and the optional recording,
live stream and link-graph analytics."""

from __future__ import annotations

from dataclasses import dataclass, field

from cosim.errors import KeyValueError
from cosim.stream.spec import StreamSpec
from cosim.topology.spec import TopologySpec
from cosim.view.spec import ViewSpec


@dataclass(frozen=True)
class TraceSpec:
    """What the run records: positions every `positions_every` (None: never), network events,
    records, and `contacts`: an event each time a robot starts touching something."""

    positions_every_ns: int | None = 1_000_000_000
    """How often every robot's pose is written to the trace (null: never)."""
    network: bool = True
    """Write every network event (sends, deliveries, drops with their reasons)."""
    records: bool = True
    """Write the metrics controllers record()."""
    contacts: bool = False
    """Write an event each time a robot starts touching something."""

    def __post_init__(self) -> None:
        if self.positions_every_ns is not None and self.positions_every_ns <= 0:
            raise ValueError("positions_every must be a positive duration, or null for no position trace")


@dataclass(frozen=True)
class OutputSpec:
    """Where the run directory goes and what it holds; `view` adds a Rerun recording, `stream` a
    live ZeroMQ publication, `topology` link-graph analytics (none changes the run's results)."""

    dir: str = "runs"
    """The folder the run directories go in, relative to where you run cosim (`<name>-seed<seed>-<time>` each;
    `cosim run --out` names one instead)."""
    trace: TraceSpec = field(default_factory=TraceSpec)
    """What the trace records."""
    view: ViewSpec | None = None
    """A Rerun recording of the run (null: none)."""
    stream: StreamSpec | None = None
    """A live ZeroMQ publication of the run (null: none)."""
    topology: TopologySpec | None = None
    """Link-graph analytics sampled over the run (null: none)."""

    def __post_init__(self) -> None:
        if not self.dir.strip():
            raise KeyValueError("dir", "expected a folder for the run directories, got ''")
