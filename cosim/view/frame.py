"""One instant of a run as the viewer draws it, the same whether it comes from a live run or a trace."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np


@dataclass(frozen=True)
class Frame:
    """The swarm at t_ns and what happened since the previous frame.

    `links`: (K, 2) sender, receiver pairs heard within the link window; `packets`: (M, 2) sender,
    receiver of each frame delivered since the previous frame, with `packet_kinds` (M,) naming its
    kind; `routes`: node paths of routed packets that reached their destination since the previous
    frame, with `route_flows` their (source, destination, port); `events`: (t_ns, node, kind, detail);
    `scalars`: time-series values by name."""

    t_ns: int
    pos: np.ndarray
    vel: np.ndarray
    heading: np.ndarray
    alive: np.ndarray
    links: np.ndarray = field(default_factory=lambda: np.zeros((0, 2), dtype=np.int64))
    packets: np.ndarray = field(default_factory=lambda: np.zeros((0, 2), dtype=np.int64))
    packet_kinds: tuple[str, ...] = ()
    routes: tuple[tuple[int, ...], ...] = ()
    route_flows: tuple[tuple[int, int, int], ...] = ()
    events: tuple[tuple[int, int, str, str], ...] = ()
    scalars: dict[str, float] = field(default_factory=dict)


def tilt_axes(vel: np.ndarray, vel_before: np.ndarray, dt_s: float, g: float = 9.81) -> np.ndarray:
    """Each quadrotor's body z axis as its thrust direction: along the acceleration plus gravity,
    from the velocity change over dt_s (drag ignored; exact in hover and steady turns)."""
    a = (vel - vel_before) / dt_s if dt_s > 0 else np.zeros_like(vel)
    a[:, 2] += g
    norm = np.linalg.norm(a, axis=1, keepdims=True)
    return np.divide(a, norm, out=np.tile([0.0, 0.0, 1.0], (len(a), 1)), where=norm > 1e-9)
