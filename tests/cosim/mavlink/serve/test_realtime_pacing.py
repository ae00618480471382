"""Real-time pacing on a busy machine: one summary line per window with the worst lateness, not a
warning per late tick."""

from __future__ import annotations

import logging
import time

from cosim.mavlink.serve.realtime import Pacer


def test_late_ticks_are_summed_up_once_per_window(caplog, monkeypatch):
    clock = [0.0]
    monkeypatch.setattr(time, "perf_counter", lambda: clock[0])
    monkeypatch.setattr(time, "sleep", lambda s: clock.__setitem__(0, clock[0] + s))
    pacer = Pacer(1.0, late_after_s=0.001, report_every_s=10.0)
    with caplog.at_level(logging.WARNING, logger="cosim.mavlink.serve.realtime"):
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


def test_a_stall_past_the_slip_bound_is_given_up_not_run_at_once(caplog, monkeypatch):
    """A stand-in vehicle's clock slips after a stall (simulated time resumes from now), where the
    bridge's (no bound) runs the lost time at once to catch up with the wall clock."""
    def run(pacer: Pacer) -> list[float]:
        clock = [0.0]
        monkeypatch.setattr(time, "perf_counter", lambda: clock[0])
        monkeypatch.setattr(time, "sleep", lambda s: clock.__setitem__(0, clock[0] + s))
        pacer.restart()
        woke = []
        for k in range(1, 101):  # 1 s of 10 ms ticks; the process stalls 300 ms after the tick at 0.49 s
            if k == 50:
                clock[0] += 0.3
            pacer.wait(k * 0.01)
            woke.append(clock[0])
        pacer.report(1.0)
        return woke

    with caplog.at_level(logging.WARNING, logger="cosim.mavlink.serve.realtime"):
        slipping = Pacer(1.0, late_after_s=0.001, slip_after_s=0.05)
        woke = run(slipping)
    assert abs(slipping.stats.slipped_s - 0.29) < 1e-9 and slipping.stats.overruns == 1  # the tick at 0.5 s, 290 ms late
    assert abs(woke[50] - woke[49] - 0.01) < 1e-9  # the next tick is paced again, 10 ms later
    assert abs(woke[-1] - 1.29) < 1e-9  # 1 simulated s took 1.29 s of wall time
    assert "0.29 s of wall time slipped, not caught up" in caplog.records[-1].getMessage()
    catching_up = Pacer(1.0, late_after_s=0.001)
    woke = run(catching_up)
    assert catching_up.stats.slipped_s == 0.0 and catching_up.stats.overruns == 29  # 0.5 .. 0.78 s, all late
    assert abs(woke[77] - woke[49]) < 1e-9 and abs(woke[-1] - 1.0) < 1e-9  # they ran at once, without sleeping
