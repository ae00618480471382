"""The fused engine's buffers start small here and must grow or be emptied, never overflow: the
frames in the air, the network log, a compiled group's inbox and the records, each paused for
mid-delivery or mid-step and resumed, with the event engine's trace bit for bit."""

from __future__ import annotations

import logging

import numpy as np
import pytest

from cosim.fused_engine import build
from netstack.fast import air, backend
from tests.cosim.fused_engine.engines import both, same
from tests.cosim.fused_engine.test_controllers import at, scenario
from tests.cosim.fused_engine.test_groups import chain

pytestmark = pytest.mark.kernels  # also run bounds-checked: `make test`, NUMBA_BOUNDSCHECK=1


def squeezed(monkeypatch, records: int) -> None:
    """One frame slot, one receiver, one log row, one inbox row a group; records for two calls of
    `records` rows."""
    monkeypatch.setattr(backend, "FIRST_SLOTS", 1)
    monkeypatch.setattr(backend, "FIRST_POOL", 1)
    monkeypatch.setattr(build, "LOG_ROWS", 1)
    monkeypatch.setattr(build, "INBOX_ROWS", 0)
    room = build.call_room

    def small(*args) -> np.ndarray:
        limits = room(*args)
        limits[1] = records
        return limits
    monkeypatch.setattr(build, "call_room", small)


def grown(caplog) -> str:
    return " ".join(r.getMessage() for r in caplog.records if r.name in (build.__name__, air.__name__))


def test_replies_in_squeezed_buffers_give_the_event_engines_trace(monkeypatch, caplog):
    """Echo's replies (two records each) pause the deliveries for the records, the log and the frames."""
    squeezed(monkeypatch, records=2)
    caplog.set_level(logging.INFO, logger=build.__name__)
    caplog.set_level(logging.INFO, logger=air.__name__)
    points = [[0, 0, 1], [2, 0, 1], [4, 0, 1], [1, 1, 1], [3, 1, 1], [5, 1, 1]]
    event, fused = both(monkeypatch, scenario([at("Echo", points, phase=0)], duration=0.7))
    same(event, fused)
    assert "network log grows" in grown(caplog) and "frames in the air grow" in grown(caplog)


def test_a_compiled_group_in_squeezed_buffers_gives_the_event_engines_trace(monkeypatch, caplog):
    """120 robots of a compiled group each broadcasting: the inbox grows at receptions, the frames
    while the group's step is paused between two of its frames."""
    squeezed(monkeypatch, records=65536)
    caplog.set_level(logging.INFO, logger=build.__name__)
    caplog.set_level(logging.INFO, logger=air.__name__)
    event, fused = both(monkeypatch, chain({"duration": 3.0, "groups.1.count": 119, "world.arena_lower": [-7, -3, 0]}))
    same(event, fused)
    text = grown(caplog)
    assert "inbox grows to 64 messages" in text and "frames in the air grow to 32 slots" in text
