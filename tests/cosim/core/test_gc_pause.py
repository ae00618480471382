"""The garbage collector paused while a run builds, and left as it was after."""

from __future__ import annotations

import gc

import pytest

from cosim.core.gc_pause import gc_paused


def test_paused_within_and_restored_after_even_on_error():
    assert gc.isenabled()
    with pytest.raises(RuntimeError), gc_paused():
        assert not gc.isenabled()
        with gc_paused():
            assert not gc.isenabled()
        assert not gc.isenabled()  # the inner block leaves the outer pause alone
        raise RuntimeError("a failed build")
    assert gc.isenabled()


def test_a_collector_the_user_turned_off_stays_off():
    gc.disable()
    try:
        with gc_paused():
            pass
        assert not gc.isenabled()
    finally:
        gc.enable()
