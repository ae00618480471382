"""ns-3 costs 8-16 s and ~650 MB to import: do it once per test session."""

import pytest


@pytest.fixture(scope="session", autouse=True)
def ns3_loaded():
    from netstack.ns3.backend import _ns

    _ns()
