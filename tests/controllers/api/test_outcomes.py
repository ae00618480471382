"""A unicast's outcome reaches the controller that sent it, on both engines: acknowledged, or given
up with the destination's drop reason; a closed-loop source (the next frame when the last one is
done) keeps exactly one frame in flight."""

from __future__ import annotations

import itertools

import pytest

import cosim
from controllers import Controller, Outcome


class ClosedLoop(Controller):
    """Node 0 sends `count` frames to node 1, each when the last one's outcome arrives, then one to
    node 2 (out of reach); it records each outcome (acked 1/0, the time) and checks one frame is in
    flight at a time."""

    period = None

    def setup(self) -> None:
        self.sent: list[int] = []
        if self.id == 0:
            self.after(0.1, self._next)

    def _next(self) -> None:
        dst = 1 if len(self.sent) < 20 else 2
        self.sent.append(self.net.send(dst, bytes(200)))

    def on_outcome(self, outcome: Outcome) -> None:
        assert outcome.tx_id == self.sent[-1], (outcome, self.sent)  # the one frame in flight
        self.record("acked", float(outcome.acked))
        self.record("t", outcome.t)
        if outcome.dst == 2:
            self.record(f"lost_{outcome.reason}", 1.0)
        elif len(self.sent) <= 20:
            self._next()


@pytest.mark.parametrize("backend", ["fast", "ns3"])
def test_a_closed_loop_source_hears_each_outcome_and_why_a_frame_was_given_up(backend):
    data = {"name": "outcomes", "seed": 2, "duration": 2.0, "quantum": "10 ms",
            "physics": {"backend": "kinematic", "dt": "10 ms", "collisions": False},
            "network": {"backend": backend, "radio": {"standard": "802.11b", "data_rate_mbps": 11,
                                                       "pathloss": {"model": "unit_disk", "range_m": 50}}},
            "world": {"arena_lower": [-500, -500, 0], "arena_upper": [500, 500, 10]},
            "groups": [{"name": "n", "count": 3, "layout": {"type": "list", "points": [[0, 0, 1], [10, 0, 1], [400, 0, 1]]},
                        "controller": {"class": "tests.controllers.api.test_outcomes:ClosedLoop"}}]}
    sim = cosim.build(cosim.from_dict(data, "outcomes.yaml"))
    sim.run()
    rec = sim.recorder.tables()["records"]
    sim.close()
    values = {}
    for name, value in zip(rec["name"], rec["value"]):
        values.setdefault(name, []).append(value)
    assert values["acked"] == [1.0] * 20 + [0.0]
    assert values["lost_out_of_range"] == [1.0]
    times = values["t"]
    # 200 bytes at 11 Mbit/s with its ACK at 2 Mbit/s: at least DIFS + 349 us + SIFS + 248 us apart
    assert all(b - a >= 650e-6 for a, b in itertools.pairwise(times[:20])) and times[19] < 0.2
    # the unreachable frame: seven tries, each DIFS or more, a frame and an ACK timeout
    assert times[20] - times[19] > 7 * 400e-6
