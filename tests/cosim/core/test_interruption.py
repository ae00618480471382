"""Ctrl-C or SIGTERM that lands inside compiled code comes back wrapped (numba: "returned a result with
an exception set"): the run is still interrupted, not failed."""

from __future__ import annotations

import json
import os
import signal

from controllers.api.controller import Controller
from tests.conftest import base_scenario


class WrappedInterrupt(Controller):
    period = 0.1

    def step(self) -> None:
        if self.now >= 0.5:
            try:
                os.kill(os.getpid(), signal.SIGINT)  # Ctrl-C; the run's handler raises KeyboardInterrupt here
            except KeyboardInterrupt as exc:
                raise SystemError("CPUDispatcher(...) returned a result with an exception set") from exc


def test_a_wrapped_interrupt_interrupts_the_run(run_dict):
    data = base_scenario(duration=2.0)
    data["groups"][0]["controller"] = {"class": "tests.cosim.core.test_interruption:WrappedInterrupt"}
    result = run_dict(data)
    assert result.status == "interrupted" and "interrupted by the user" in result.error


class RaisesInterrupt(Controller):
    period = 0.1

    def step(self) -> None:
        if self.now >= 0.5:
            raise KeyboardInterrupt


def test_a_keyboard_interrupt_raised_by_user_code_with_no_signal_fails_the_run_naming_the_code(run_dict):
    data = base_scenario(duration=2.0)
    data["groups"][0]["controller"] = {"class": "tests.cosim.core.test_interruption:RaisesInterrupt"}
    result = run_dict(data)
    assert result.status == "failed"
    assert result.error.startswith("the code raised KeyboardInterrupt itself (no Ctrl-C or signal arrived)")
    assert "in RaisesInterrupt.step() at test_interruption.py:" in result.error


class LostInterrupt(Controller):
    """What numba does when the signal lands while it unboxes a typed List: the handler's exception
    is dropped and a TypeError with no cause takes its place."""

    period = 0.1

    def step(self) -> None:
        if self.now >= 0.5:
            lost = False
            try:
                os.kill(os.getpid(), signal.SIGINT)
            except KeyboardInterrupt:
                lost = True
            if lost:
                raise TypeError("can't unbox a <class 'numba.typed.typedlist.List'> as a <NULL>")


class TypeErrorAtHalf(Controller):
    period = 0.1

    def step(self) -> None:
        if self.now >= 0.5:
            raise TypeError("a bug in the controller")


def test_an_interrupt_that_compiled_code_replaced_by_another_error_interrupts_the_run(run_dict):
    data = base_scenario(duration=2.0)
    data["groups"][0]["controller"] = {"class": "tests.cosim.core.test_interruption:LostInterrupt"}
    result = run_dict(data)
    assert result.status == "interrupted" and "interrupted by the user" in result.error
    data["groups"][0]["controller"] = {"class": "tests.cosim.core.test_interruption:TypeErrorAtHalf"}
    result = run_dict(data)  # the same process, with no signal this time: a failure
    assert result.status == "failed" and "TypeError: a bug in the controller" in result.error


class SwallowsInterrupt(Controller):
    """Code that catches everything (as numba's compiler can while a signal lands in it): the
    handler's interruption is swallowed once, and the run must still end interrupted."""

    period = 0.1

    def step(self) -> None:
        if 0.5 <= self.now < 0.55:
            try:
                os.kill(os.getpid(), signal.SIGTERM)
            except BaseException:  # swallowing it is the point
                pass


def test_an_interrupt_swallowed_where_it_landed_still_ends_the_run(run_dict):
    data = base_scenario(duration=30.0)
    data["groups"][0]["controller"] = {"class": "tests.cosim.core.test_interruption:SwallowsInterrupt"}
    result = run_dict(data)
    assert result.status == "interrupted" and "terminated by SIGTERM" in result.error
    status = json.loads((result.directory / "status.json").read_text())
    assert status["t_s"] < 1.0  # ended at the next report, not at the run's end
