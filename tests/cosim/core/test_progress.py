"""The progress line: no infinite or meaningless real-time factor before anything was simulated."""

from __future__ import annotations

import io

from cosim.core.progress import ProgressLine


def test_the_first_progress_line_has_no_infinite_speed():
    out = io.StringIO()
    line = ProgressLine(out, interval_s=0.0)
    line.run(0, 10_000_000_000, 0.0)
    line.run(0, 10_000_000_000, 0.2)
    line.run(5_000_000_000, 10_000_000_000, 1.0)
    first, second, third = out.getvalue().splitlines()
    assert "inf" not in first + second and "...x real time" in first and "time left: estimating" in first
    assert "5.00x real time" in third and "~    1 s left" in third
