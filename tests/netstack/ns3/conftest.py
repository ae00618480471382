"""ns-3 costs about 6 s and 550 MB to load: do it once per test session."""

import pytest


@pytest.fixture(scope="session", autouse=True)
def ns3_loaded():
    from netstack.ns3.loader import load

    load()
