"""The differences between two runs' resolved scenarios (each run's scenario.yaml), key by key:
`cosim compare` lists them above its table, so that a difference in the figures is read beside the
difference in the set-up that may explain it (a `contention: none` on one side, another seed)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

ABSENT = "(absent)"
"""What a side shows for a key only the other scenario has."""
WIDTH = 60
"""Characters of a value shown before it is cut with an ellipsis."""


def flat(value: Any, prefix: str = "") -> dict[str, Any]:
    """Every leaf of a scenario as dotted key -> value; list items by index (groups.0.count). An empty
    mapping or list is a leaf."""
    if isinstance(value, Mapping) and value:
        items = [(f"{prefix}{k}", v) for k, v in value.items()]
    elif isinstance(value, list) and value:
        items = [(f"{prefix}{i}", v) for i, v in enumerate(value)]
    else:
        return {prefix[:-1]: value}
    out: dict[str, Any] = {}
    for key, v in items:
        out.update(flat(v, f"{key}."))
    return out


def differences(a: Mapping[str, Any], b: Mapping[str, Any]) -> list[tuple[str, Any, Any]]:
    """(dotted key, value in a, value in b) for every key whose values differ, in a's order and then
    the keys only b has; ABSENT stands for a missing key."""
    fa = flat(a)
    fb = flat(b)
    keys = [*fa, *(k for k in fb if k not in fa)]
    return [(k, fa.get(k, ABSENT), fb.get(k, ABSENT)) for k in keys if fa.get(k, ABSENT) != fb.get(k, ABSENT)]


def shown(value: Any) -> str:
    """A value as the scenario file would spell it, cut to WIDTH characters."""
    text = value if value is ABSENT else json.dumps(value, default=str)
    return text if len(text) <= WIDTH else text[:WIDTH - 1] + "…"


def describe(diffs: list[tuple[str, Any, Any]]) -> list[str]:
    """The lines `cosim compare` prints: a heading, then `key: A | B` for each difference."""
    if not diffs:
        return ["scenarios: the same resolved scenario"]
    head = f"scenarios differ in {len(diffs)} key{'s' if len(diffs) != 1 else ''} (A | B):"
    return [head, *(f"  {key}: {shown(x)} | {shown(y)}" for key, x, y in diffs)]
