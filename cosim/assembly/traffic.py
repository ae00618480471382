"""Constant-bit-rate traffic for routing studies, scheduled on the sources' timers."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from cosim.core.coordinator import Simulation
from cosim.core.timers import Timer
from cosim.core.timeunits import NS_PER_S
from cosim.scenario.network_spec import CbrSpec


@dataclass(frozen=True)
class Session:
    """One CBR flow, resolved: times in nanoseconds."""

    src: int
    dst: int
    start_ns: int
    stop_ns: int
    period_ns: int
    size: int
    port: int


def sessions_of(specs: tuple[CbrSpec, ...], n_nodes: int, duration_ns: int, rng: np.random.Generator) -> list[Session]:
    """Every session of every CBR spec; random pairs and start offsets come from `rng`."""
    out = []
    for spec in specs:
        pairs = list(spec.pairs)
        for _ in range(spec.sessions):
            src = int(rng.integers(0, n_nodes))
            dst = int(rng.integers(0, n_nodes - 1))
            pairs.append((src, dst + (dst >= src)))
        period = max(1, round(NS_PER_S / spec.rate))
        stop = duration_ns if spec.stop_ns is None else min(spec.stop_ns, duration_ns)
        for src, dst in pairs:
            offset = int(rng.integers(0, spec.start_window_ns)) if spec.start_window_ns else 0
            out.append(Session(src, dst, spec.start_ns + offset, stop, period, spec.size, spec.port))
    return out


def schedule(sim: Simulation, sessions: list[Session]) -> None:
    """Start each session's timer on its source (a dead source stops sending)."""
    for sess in sessions:
        if sess.start_ns > sess.stop_ns:
            continue
        payload = bytes(sess.size)
        stack = sim.stacks[sess.src]
        holder: list[Timer] = []

        def fire(sess=sess, stack=stack, payload=payload, holder=holder) -> None:
            if sim.clock.now_ns > sess.stop_ns:
                holder[0].cancel()
                return
            stack.send(sess.dst, payload, sess.port)

        holder.append(Timer(sim.clock, sim.population.alive_list, fire, sess.start_ns, sess.period_ns, sess.src))
