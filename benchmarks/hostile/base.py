"""The small scenario every case starts from, and helpers to write variants of it."""

from __future__ import annotations

import copy
from typing import Any

import yaml

SCENARIO: dict[str, Any] = {
    "name": "base",
    "seed": 1,
    "duration": 1,
    "quantum": "10 ms",
    "physics": {"backend": "kinematic", "dt": "10 ms"},
    "network": {
        "backend": "fast",
        "radio": {
            "standard": "802.15.4",
            "tx_power_dbm": 0,
            "rx_sensitivity_dbm": -85,
            "pathloss": {"model": "unit_disk", "range_m": 30},
            "fast": {"latency": "100 us", "contention": {"model": "none"}},
        },
    },
    "world": {"arena_lower": [-50, -50, 0], "arena_upper": [50, 50, 20]},
    "groups": [{
        "name": "bees",
        "count": 10,
        "layout": {"type": "random_disc", "center": [0, 0, 1], "radius": 10},
        "robot": {"radius": 0.1, "mass": 0.05, "max_speed": 2.0},
        "sensors": {"compass": {"noise_std": 0.2}},
        "controller": {
            "class": "controllers.library.instrument:InstrumentBee",
            "period": "100 ms",
            "params": {"max_speed": 2.0, "velocity_sigma": 0.2, "heading_sigma": 0.2, "sensor_period": 1.0,
                       "radio_period": 1.0},
        },
    }],
    "output": {"dir": "runs", "trace": {"positions_every": "100 ms", "network": True, "records": True}},
}

_MISSING = object()


def variant(changes: dict[str, Any] | None = None, remove: tuple[str, ...] = ()) -> dict[str, Any]:
    """The base scenario with dotted keys set (`groups.0.count`) and others removed."""
    data = copy.deepcopy(SCENARIO)
    for key, value in (changes or {}).items():
        parent, leaf = _walk(data, key)
        if isinstance(parent, list):
            parent[int(leaf)] = value
        else:
            parent[leaf] = value
    for key in remove:
        parent, leaf = _walk(data, key)
        del parent[int(leaf) if isinstance(parent, list) else leaf]
    return data


def _walk(data: Any, key: str) -> tuple[Any, str]:
    *path, leaf = key.split(".")
    node = data
    for part in path:
        node = node[int(part)] if isinstance(node, list) else node.setdefault(part, {})
    return node, leaf


def dump(data: Any) -> str:
    return yaml.safe_dump(data, sort_keys=False)


def scenario_text(changes: dict[str, Any] | None = None, remove: tuple[str, ...] = ()) -> str:
    return dump(variant(changes, remove))
