"""Real-time pacing on a busy machine: one summary line per window with the worst lateness, not a
warning per late tick."""

from __future__ import annotations

import logging
import time

from cosim.mavlink.realtime import Pacer


def test_late_ticks_are_summed_up_once_per_window(caplog, monkeypatch):
    clock = [0.0]
    monkeypatch.setattr(time, "perf_counter", lambda: clock[0])
    monkeypatch.setattr(time, "sleep", lambda s: clock.__setitem__(0, clock[0] + s))
    pacer = Pacer(1.0, late_after_s=0.001, report_every_s=10.0)
    with caplog.at_level(logging.WARNING, logger="cosim.mavlink.realtime"):
        for k in range(1, 2501):  # 25 s of 10 ms ticks; from t = 5 s every tick 3 ms late, one 40 ms late at 7 s
            t = k * 0.01
            clock[0] = max(clock[0], t + (0.003 if t >= 5.0 else 0.0) + (0.04 if k == 700 else 0.0))
            pacer.wait(t)
        pacer.report(25.0)
    lines = [r.getMessage() for r in caplog.records]
    assert len(lines) == 3, lines
    assert lines[0].startswith("real-time pacing: 500 of 999 ticks late between t = 0.0 and 10.0 s, worst 43.0 ms behind")
    assert "(at t = 7.00 s)" in lines[0]
    assert lines[1].startswith("real-time pacing: 1000 of 1000 ticks late between t = 10.0 and 20.0 s, worst 3.0 ms")
    assert pacer.stats.overruns == 2001 and abs(pacer.stats.worst_late_s - 0.043) < 1e-9


def test_a_punctual_run_says_nothing(caplog):
    pacer = Pacer(1000.0, late_after_s=1.0, report_every_s=0.01)
    with caplog.at_level(logging.WARNING):
        for k in range(1, 50):
            pacer.wait(k * 0.001)
        pacer.report(0.05)
    assert caplog.records == []
