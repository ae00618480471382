"""The extensions that watch a run without changing it: the viewer's recording, the topology
sampler and the ZeroMQ stream.

They are trace observers too (the recorder hands them rows as they come). Their libraries are
imported only when the scenario asks for them.
"""

from __future__ import annotations

from pathlib import Path

from cosim.scenario.schema import dump
from cosim.scenario.specs import Scenario


def watchers(s: Scenario, run_dir: Path | None) -> tuple:
    """The scenario's `output.view`, `output.topology` and `output.stream` extensions (none when unset)."""
    out = []
    routed = s.network.routing is not None
    if s.output.view is not None:
        from cosim.view.live import LiveView
        from cosim.view.scene import scene_of

        out.append(LiveView(s.output.view, scene_of(dump(s)), routed, s.name, run_dir, s.quantum_ns))
    if s.output.topology is not None:
        from cosim.topology.sampler import TopologySampler

        out.append(TopologySampler(s.output.topology, s.n_nodes, s.network.neighbor_timeout_ns, routed, run_dir))
    if s.output.stream is not None:
        from cosim.stream.publisher import StreamPublisher

        out.append(StreamPublisher(s.output.stream, s.n_nodes))
    return tuple(out)
