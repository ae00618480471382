"""The scenario reference (the documentation site's "Scenario keys" page): every key a scenario file
takes, with its type, unit, default, who reads it and what it does, generated from the specs
themselves so that it cannot drift from what `cosim validate` accepts."""

from __future__ import annotations

import ast
import dataclasses
import inspect
import itertools
import re
import textwrap
import types
import typing
from collections.abc import Iterator
from typing import Any, Literal, get_args, get_origin, get_type_hints

from cosim.scenario.robot_spec import MODEL_KEYS, RobotModelSpec
from cosim.scenario.schema import yaml_key
from cosim.scenario.specs import GroupSpec, Scenario
from cosim.scenario.world_spec import BACKEND_KEYS
from physics.sensors.onboard import SENSORS

UNITS = {"_ns": "s, or '10 ms'", "_m": "m", "_hz": "Hz", "_dbm": "dBm", "_db": "dB", "_mbps": "Mbit/s", "_bytes": "bytes",
         "_s": "s", "_deg": "degrees", "_kg": "kg", "_j": "J", "_bps": "bit/s"}
NAMED_UNITS = {"radius": "m", "mass": "kg", "max_speed": "m/s", "max_accel": "m/s²", "drag": "1/s", "heading": "rad",
               "rate_hz": "Hz", "noise_std": "sensor units", "max_range": "m", "rate": "packets/s", "size": "bytes",
               "wheel_base": "m", "max_wheel_speed": "m/s", "gust_std": "m/s", "gust_tau": "s", "mean": "m/s",
               "arena_lower": "m", "arena_upper": "m", "center": "m", "position": "m", "spacing": "m", "origin": "m"}


def attribute_docs(cls: type) -> dict[str, str]:
    """The docstrings written under a dataclass's fields (`x: int = 0` then `\"\"\"...\"\"\"`)."""
    try:
        tree = ast.parse(textwrap.dedent(inspect.getsource(cls)))
    except (OSError, TypeError):
        return {}
    body = tree.body[0].body if tree.body and isinstance(tree.body[0], ast.ClassDef) else []
    docs = {}
    for stmt, nxt in itertools.pairwise(body):
        if (isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name) and isinstance(nxt, ast.Expr)
                and isinstance(nxt.value, ast.Constant) and isinstance(nxt.value.value, str)):
            docs[stmt.target.id] = " ".join(nxt.value.value.split())
    return docs


def _type(tp: Any) -> str:
    origin = get_origin(tp)
    if origin in (typing.Union, types.UnionType):
        args = [a for a in get_args(tp) if a is not type(None)]
        return f"{_type(args[0])} or null"
    if origin is Literal:
        return " \\| ".join(f"`{a}`" for a in get_args(tp))
    if origin is tuple:
        args = get_args(tp)
        return "list" if len(args) == 2 and args[1] is Ellipsis else f"[{', '.join(_type(a) for a in args)}]"
    if origin is dict:
        return "mapping"
    if dataclasses.is_dataclass(tp):
        return "mapping"
    return {float: "number", int: "integer", bool: "bool", str: "string"}.get(tp, "any")


def _default(f: dataclasses.Field) -> str:
    if f.default is not dataclasses.MISSING:
        value = f.default
    elif f.default_factory is not dataclasses.MISSING:
        value = f.default_factory()
        if dataclasses.is_dataclass(value):
            return "(its own defaults)"
    else:
        return "**required**"
    if f.name.endswith("_ns") and isinstance(value, int):
        return f"`{value / 1e9:g} s`"
    if value is None:
        return "null"
    return f"`{value!r}`" if not isinstance(value, (tuple, dict)) or value else "none"


def _unit(name: str) -> str:
    for suffix, unit in UNITS.items():
        if name.endswith(suffix):
            return unit
    return NAMED_UNITS.get(name, "")


def _reads(cls: type, name: str, path: str) -> str:
    if cls is RobotModelSpec and name in MODEL_KEYS:
        return ", ".join(MODEL_KEYS[name]) + " robots"
    if path == "physics" and name in BACKEND_KEYS:
        return BACKEND_KEYS[name]
    if ".fast" in path:
        return "fast engine"
    if ".ns3" in path:
        return "ns-3"
    return "all"


def _nested(tp: Any) -> type | None:
    """The dataclass a field holds (directly, optionally, or as list items), if any."""
    origin = get_origin(tp)
    if origin in (typing.Union, types.UnionType) or origin is tuple:
        for arg in get_args(tp):
            if dataclasses.is_dataclass(arg):
                return arg
        return None
    return tp if dataclasses.is_dataclass(tp) else None


def _sections(cls: type, path: str, seen: dict[type, str]) -> Iterator[tuple[str, type, str]]:
    """(path, dataclass, note) for `cls` and everything under it, depth first; a class met before
    gets a note pointing to where its keys are listed."""
    if cls in seen:
        yield path, cls, f"The same keys as [`{seen[cls]}`](#{_anchor(seen[cls])})."
        return
    seen[cls] = path or "top level"
    yield path, cls, ""
    hints = get_type_hints(cls)
    for f in dataclasses.fields(cls):
        if not f.init or f.name == "source":
            continue
        key = _join(path, "class" if f.name == "cls" else yaml_key(f.name))
        registry = f.metadata.get("registry") or f.metadata.get("item_registry")
        if registry:
            tag = f.metadata.get("tag", "type")
            for name, sub in sorted(registry.items()):
                yield from _sections(sub, f"{key} ({tag}: {name})", seen)
        elif cls is GroupSpec and f.name == "sensors":
            for name, sensor in sorted(SENSORS.items()):
                yield from _sections(sensor.Options, f"{key}.{name}", seen)
        elif (sub := _nested(hints[f.name])) is not None:
            items = get_origin(hints[f.name]) is tuple
            yield from _sections(sub, key + ("[]" if items else ""), seen)


def _anchor(title: str) -> str:
    """The id Markdown's table of contents gives a heading: punctuation dropped, lower case,
    spaces and hyphens as one hyphen (`network.radio` -> `networkradio`)."""
    return re.sub(r"[-\s]+", "-", re.sub(r"[^\w\s-]", "", title).strip().lower())


def _join(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key


def _table(cls: type, path: str) -> list[str]:
    hints = get_type_hints(cls)
    docs = attribute_docs(cls)
    rows = ["| key | type | default | unit | read by | what it does |", "|---|---|---|---|---|---|"]
    for f in dataclasses.fields(cls):
        if not f.init or f.name == "source":
            continue
        key = "class" if f.name == "cls" else yaml_key(f.name)
        tp = "a model: see below" if f.metadata.get("registry") else _type(hints[f.name])
        if f.name.endswith("_ns"):
            tp = "duration" + (" or null" if "null" in tp else "")
        if f.metadata.get("item_registry"):
            tp = "list of models: see below"
        doc = docs.get(f.name, "").replace("|", "\\|")
        rows.append(f"| `{key}` | {tp} | {_default(f)} | {_unit(f.name)} | {_reads(cls, f.name, path)} | {doc} |")
    return rows


def reference_markdown() -> str:
    """Markdown for every section of a scenario file, from the top level down."""
    out: list[str] = []
    for path, cls, note in _sections(Scenario, "", {}):
        title = path or "top level"
        out.append(f"## `{title}`\n")
        if note:
            out.extend([note, ""])
            continue
        doc = inspect.getdoc(cls) or ""
        if doc and not doc.startswith(cls.__name__ + "("):
            out.append(" ".join(doc.split()) + "\n")
        out.extend(_table(cls, path))
        out.append("")
    return "\n".join(out)
