"""Every leaf of a scenario, replaced by hostile values (huge, tiny, negative, wrong types): each
is refused with a ScenarioError or accepted; none raises anything else or hangs."""

import copy
import signal

import pytest

import cosim
from cosim.errors import ScenarioError
from tests.conftest import base_scenario

HOSTILE = [-1, 0, 1e300, -1e300, 1e-300, 1e14, "x", [], {}, True, 10**30]


def _scenario() -> dict:
    data = base_scenario()
    data["network"]["routing"] = {"protocol": "direct"}
    data["traffic"] = [{"rate": 2.0, "size": 64, "sessions": 3, "start": 0.5}]
    data["groups"][0]["robot"] = {"model": "point", "radius": 0.2, "mass": 0.1, "max_speed": 3.0}
    data["groups"][0]["sensors"] = {"compass": {"noise_std": 0.1, "rate_hz": 10.0}, "range": {"count": 8, "max_range": 2.0}}
    data["world"] = {"arena_lower": [-50, -50, 0], "arena_upper": [50, 50, 20], "obstacles": [
        {"type": "box", "center": [5, 5, 1], "size": [1, 1, 2]}]}
    return data


def _leaves(node, path=()):
    if isinstance(node, dict):
        for key, value in node.items():
            yield from _leaves(value, (*path, key))
    elif isinstance(node, list) and node and not all(isinstance(v, (int, float)) for v in node):
        for i, value in enumerate(node):
            yield from _leaves(value, (*path, i))
    else:
        yield path, node


def _cases():
    base = _scenario()
    for path, _ in _leaves(base):
        if path[0] != "name":
            yield from ((path, bad) for bad in HOSTILE)


class _Hang(Exception):
    pass


def _alarm(signum, frame):
    raise _Hang


def test_no_hostile_value_gives_a_traceback_or_a_hang():
    base = _scenario()
    cosim.from_dict(copy.deepcopy(base), source="test.yaml")  # the unmutated one is valid
    cases = list(_cases())
    assert len(cases) >= 300
    before = signal.signal(signal.SIGALRM, _alarm)
    problems = []
    try:
        for path, bad in cases:
            data = copy.deepcopy(base)
            node = data
            for p in path[:-1]:
                node = node[p]
            node[path[-1]] = bad
            signal.alarm(10)
            try:
                cosim.from_dict(data, source="test.yaml")
            except ScenarioError:
                pass
            except _Hang:
                problems.append((path, bad, "hangs"))
            except Exception as exc:  # what the test looks for
                problems.append((path, bad, f"{type(exc).__name__}: {exc}"))
            finally:
                signal.alarm(0)
    finally:
        signal.signal(signal.SIGALRM, before)
    assert not problems, problems[:10]


@pytest.mark.parametrize("path", [("network", "radio", "pathloss", "model"), ("groups", 0, "layout", "type"),
                                  ("network", "radio", "standard")])
def test_a_list_where_a_name_goes_is_a_message(path):
    data = _scenario()
    node = data
    for p in path[:-1]:
        node = node[p]
    node[path[-1]] = []
    with pytest.raises(ScenarioError, match=r"test.yaml: .*: (unknown|expected)"):
        cosim.from_dict(data, source="test.yaml")
