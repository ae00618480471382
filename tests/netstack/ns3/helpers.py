"""Scenario builders for the ns-3 tests."""

from __future__ import annotations


def ns3_scenario(points, controller: dict, duration: float = 2.0, quantum: str = "10 ms", seed: int = 1, **radio) -> dict:
    radio = {"standard": "802.11b", **radio}
    return {
        "name": "ns3test",
        "seed": seed,
        "duration": duration,
        "quantum": quantum,
        "physics": {"backend": "kinematic", "dt": "1 ms", "collisions": False},
        "network": {"backend": "ns3", "radio": radio},
        "world": {"arena_lower": [-1000, -1000, 0], "arena_upper": [1000, 1000, 100]},
        "groups": [{"name": "n", "count": len(points), "layout": {"type": "list", "points": points},
                    "controller": controller}],
    }
