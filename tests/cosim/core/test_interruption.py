"""Ctrl-C or SIGTERM that lands inside compiled code comes back wrapped (numba: "returned a result with
an exception set"): the run is still interrupted, not failed."""

from __future__ import annotations

from controllers.api.controller import Controller
from tests.conftest import base_scenario


class WrappedInterrupt(Controller):
    period = 0.1

    def step(self) -> None:
        if self.now >= 0.5:
            try:
                raise KeyboardInterrupt
            except KeyboardInterrupt as exc:
                raise SystemError("CPUDispatcher(...) returned a result with an exception set") from exc


def test_a_wrapped_interrupt_interrupts_the_run(run_dict):
    data = base_scenario(duration=2.0)
    data["groups"][0]["controller"] = {"class": "tests.cosim.core.test_interruption:WrappedInterrupt"}
    result = run_dict(data)
    assert result.status == "interrupted" and "interrupted by the user" in result.error
