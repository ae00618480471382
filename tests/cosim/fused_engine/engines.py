"""Running one scenario on both engines, for the fused engine's tests."""

from __future__ import annotations


def outcome(sim) -> tuple:
    """Run `sim`: its engine, its trace's digest, and its counters."""
    sim.run()
    c = sim.counters
    return (sim.engine_path, sim.recorder.digest(),
            (c.sent, c.delivered, c.dropped, c.acked, c.not_acked, c.physics_steps, c.events))


def both(monkeypatch, make) -> tuple[tuple, tuple]:
    """`make()`'s simulation run on the event engine, then (where it applies) on the fused engine."""
    monkeypatch.setenv("COSIM_ENGINE", "event")
    event = outcome(make())
    monkeypatch.setenv("COSIM_ENGINE", "auto")
    return event, outcome(make())


def same(event: tuple, fused: tuple) -> None:
    """The runs took the event and the fused engine, heard messages, and agree bit for bit."""
    assert (event[0], fused[0]) == ("event", "fused")
    assert fused[2] == event[2] and event[2][1] > 0
    assert fused[1] == event[1]
