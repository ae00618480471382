"""While a kernel compiles, the run says how long it has been compiling, and stops saying so after."""

from __future__ import annotations

import time

import cosim
import cosim.execution.execute
from cosim.execution import compiling
from tests.jit.test_clock import SCENARIO


def test_a_long_compile_is_ticked_while_it_lasts_and_not_after(tmp_path, monkeypatch):
    monkeypatch.setattr(compiling, "TICK_S", 0.005)
    told: list[str] = []
    result = cosim.execution.execute.run_in(cosim.from_dict(SCENARIO), tmp_path / "run", phase=told.append)
    assert result.status == "ok", result.error
    assert told[0] == compiling.TEXT
    ticks = told[1:]
    assert ticks and all(t.startswith("compiling kernels: ") and t.endswith(" s so far") for t in ticks)
    time.sleep(0.05)  # the run is over: its ticker says nothing more
    assert told[1:] == ticks
