"""Map plain YAML data onto frozen dataclasses, with errors that name the key path.

Conventions: a field named `x_ns` is a duration read from the key `x` (seconds, or a string with a
unit); `tuple[float, float, float]` takes a list of three numbers; `tuple[Spec, ...]` takes a list;
a field whose metadata has `registry` takes a mapping whose `tag` key (default `type`) picks the
class. A dataclass's `__post_init__` may raise ValueError to reject impossible values.
"""

from __future__ import annotations

import dataclasses
import math
import re
import types
import typing
from collections.abc import Mapping
from typing import Any, Literal, get_args, get_origin, get_type_hints

from cosim.core.timeunits import DurationError, parse_duration_ns
from cosim.errors import KeyValueError, ScenarioError, combine


def yaml_key(field_name: str) -> str:
    return field_name[:-3] if field_name.endswith("_ns") else field_name


def _shown(key: str) -> str:
    """A key as the user writes it: `cls` fields are `class:` in YAML (cosim.scenario.loading renames it)."""
    return "class" if key == "cls" else key


def _type_name(tp: Any) -> str:
    origin = get_origin(tp)
    if tp is float:
        return "a number"
    if tp is int:
        return "an integer"
    if tp is bool:
        return "true or false"
    if tp is str:
        return "a string"
    if origin is Literal:
        return "one of " + ", ".join(repr(a) for a in get_args(tp))
    if origin is tuple:
        args = get_args(tp)
        if len(args) == 2 and args[1] is Ellipsis:
            return "a list"
        return f"a list of {len(args)} numbers"
    if dataclasses.is_dataclass(tp):
        return "a mapping"
    return str(tp)


class Mapper:
    """Converts data for one source file; `source` appears in every error."""

    def __init__(self, source: str) -> None:
        self.source = source

    def error(self, path: str, message: str) -> ScenarioError:
        return ScenarioError(self.source, path, message)

    def build(self, cls: type, data: Any, path: str, extra: Mapping[str, Any] | None = None) -> Any:
        """Instantiate dataclass `cls` from mapping `data`; `extra` supplies fields not read from data.
        An instance of `cls` (already validated) passes through unchanged."""
        if isinstance(data, cls):
            return data
        if data is None:
            data = {}
        if not isinstance(data, Mapping):
            raise self.error(path, f"expected a mapping, got {type(data).__name__} {data!r}")
        hints = get_type_hints(cls)
        fields = {yaml_key(f.name): f for f in dataclasses.fields(cls) if f.init}
        allowed = ", ".join(sorted(_shown(k) for k in fields if not (extra and fields[k].name in extra)))
        errors = [self.error(_join(path, str(k)), f"unknown key; expected one of: {allowed}") for k in data if k not in fields]
        kwargs: dict[str, Any] = dict(extra or {})
        for key, f in fields.items():
            if f.name in kwargs:
                continue
            sub = _join(path, _shown(key))
            if key in data:
                try:
                    kwargs[f.name] = self.value(hints[f.name], data[key], sub, f)
                except ScenarioError as exc:  # go on: every problem in the file is reported at once
                    errors.append(exc)
            elif f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING:
                errors.append(self.error(sub, f"missing required key ({_describe(hints[f.name], f)})"))
        if errors:
            raise combine(errors)
        try:
            return cls(**kwargs)
        except KeyValueError as exc:
            raise self.error(_join(path, exc.key), str(exc)) from None
        except (ValueError, TypeError) as exc:
            raise self.error(path or "(top level)", str(exc)) from None

    def each(self, items: Any, convert, path: str) -> tuple:
        """convert(item, its path) for every item of a list, reporting the problems of all items together."""
        out = []
        errors = []
        for i, item in enumerate(items):
            try:
                out.append(convert(item, f"{path}[{i}]"))
            except ScenarioError as exc:
                errors.append(exc)
        if errors:
            raise combine(errors)
        return tuple(out)

    def value(self, tp: Any, data: Any, path: str, f: dataclasses.Field | None = None) -> Any:
        meta = f.metadata if f is not None else {}
        if "item_registry" in meta:  # a list of tagged mappings
            if not isinstance(data, (list, tuple)):
                raise self.error(path, f"expected a list, got {data!r}")
            reg = meta["item_registry"]
            tag = meta.get("tag", "type")
            return self.each(data, lambda item, sub: self.tagged(reg, tag, item, sub), path)
        if "registry" in meta:
            if data is None and f is not None and f.default is None:
                return None
            return self.tagged(meta["registry"], meta.get("tag", "type"), data, path)
        if f is not None and f.name.endswith("_ns"):
            return self.duration(data, path, allow_none=_is_optional(tp))
        origin = get_origin(tp)
        if origin in (typing.Union, types.UnionType):
            args = [a for a in get_args(tp) if a is not type(None)]
            if data is None:
                return None
            return self.value(args[0], data, path, None)
        if tp is Any:
            return data
        if tp in (bool, int, float, str) or origin is Literal:
            return self.scalar(tp, data, path)
        return self.container(tp, data, path)

    def scalar(self, tp: Any, data: Any, path: str) -> Any:
        """A bool, int, float, str or one of a Literal's values, checked as such (no coercion)."""
        if tp is bool:
            if not isinstance(data, bool):
                raise self.error(path, f"expected true or false, got {data!r}")
            return data
        if tp is int:
            if isinstance(data, bool) or not isinstance(data, int):
                raise self.error(path, f"expected an integer, got {data!r}")
            return data
        if tp is float:
            return self._number(data, path)
        if tp is str:
            if not isinstance(data, str):
                raise self.error(path, f"expected a string, got {data!r}")
            return data
        if data not in get_args(tp):
            raise self.error(path, f"expected {_type_name(tp)}, got {data!r}")
        return data

    def container(self, tp: Any, data: Any, path: str) -> Any:
        """A tuple (fixed or `...`), dict, list or dataclass, its items converted in turn."""
        origin = get_origin(tp)
        if origin is tuple:
            args = get_args(tp)
            if not isinstance(data, (list, tuple)):
                raise self.error(path, f"expected {_type_name(tp)}, got {data!r}")
            if len(args) == 2 and args[1] is Ellipsis:
                return self.each(data, lambda item, sub: self.value(args[0], item, sub), path)
            if len(data) != len(args):
                raise self.error(path, f"expected {_type_name(tp)}, got {len(data)} items: {data!r}")
            return tuple(self.value(a, item, f"{path}[{i}]") for i, (a, item) in enumerate(zip(args, data)))
        if origin is dict or tp is dict:
            if not isinstance(data, Mapping):
                raise self.error(path, f"expected a mapping, got {data!r}")
            return dict(data)
        if origin is list or tp is list:
            if not isinstance(data, (list, tuple)):
                raise self.error(path, f"expected a list, got {data!r}")
            return list(data)
        if dataclasses.is_dataclass(tp):
            return self.build(tp, data, path)
        raise self.error(path, f"its declared type {getattr(tp, '__name__', tp)!r} is not one a scenario can fill (bool, "
                               "int, float, str, Literal[...], tuple[...], list, dict, a dataclass, or Any)")

    def _number(self, data: Any, path: str) -> float:
        """A finite number (NaN and infinities are refused: they would run on as NaN positions)."""
        if isinstance(data, str) and _SCIENTIFIC.fullmatch(data.strip()):
            data = float(data)  # YAML 1.1 reads 2.4e9 (no dot, no sign) as a string
        if isinstance(data, bool) or not isinstance(data, (int, float)):
            raise self.error(path, f"expected a number, got {data!r}")
        if not math.isfinite(data):
            raise self.error(path, f"expected a finite number, got {data!r}")
        if abs(data) > MAX_MAGNITUDE:
            raise self.error(path, f"expected a number within ±{MAX_MAGNITUDE:g} (SI units: no quantity in a scenario is "
                                   f"larger), got {data:g}")
        return float(data)

    def duration(self, data: Any, path: str, allow_none: bool = False) -> int | None:
        if data is None and allow_none:
            return None
        if isinstance(data, float) and not math.isfinite(data):
            raise self.error(path, f"expected a finite duration, got {data!r}")
        try:
            return parse_duration_ns(data)
        except DurationError as exc:
            raise self.error(path, str(exc)) from None

    def tagged(self, registry: Mapping[str, type], tag: str, data: Any, path: str) -> Any:
        if isinstance(data, str):
            data = {tag: data}
        if not isinstance(data, Mapping) or tag not in data:
            raise self.error(path, f"expected a mapping with `{tag}`: one of {', '.join(sorted(registry))}")
        name = data[tag]
        if not isinstance(name, str) or name not in registry:
            raise self.error(_join(path, tag), f"unknown {tag} {name!r}; expected one of: {', '.join(sorted(registry))}")
        rest = {k: v for k, v in data.items() if k != tag}
        return self.build(registry[name], rest, path)


_SCIENTIFIC = re.compile(r"[-+]?(\d+\.?\d*|\.\d+)[eE][-+]?\d+")
MAX_MAGNITUDE = 1e15
"""The largest number a float key takes: beyond it a value is a typo or an attack (frequencies reach 3e11
Hz, bit rates 1e11 bit/s)."""


def _join(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key


def _is_optional(tp: Any) -> bool:
    return get_origin(tp) in (typing.Union, types.UnionType) and type(None) in get_args(tp)


def _describe(tp: Any, f: dataclasses.Field) -> str:
    if f.name.endswith("_ns"):
        return "a duration in seconds or a string like '10 ms'"
    return _type_name(tp)


def dump(obj: Any) -> Any:
    """A dataclass tree back to plain data (durations in seconds), for the resolved scenario. A field
    read through a registry gets its tag back (e.g. `type: wall`), found by the value's class."""
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        out: dict[str, Any] = {}
        for f in dataclasses.fields(obj):
            if not f.init:
                continue
            v = getattr(obj, f.name)
            if f.name.endswith("_ns"):
                out[yaml_key(f.name)] = None if v is None else v / 1e9
            elif "registry" in f.metadata and v is not None:
                out[f.name] = _dump_tagged(f.metadata["registry"], f.metadata.get("tag", "type"), v)
            elif "item_registry" in f.metadata:
                out[f.name] = [_dump_tagged(f.metadata["item_registry"], f.metadata.get("tag", "type"), x) for x in v]
            else:
                out[f.name] = dump(v)
        return out
    if isinstance(obj, (list, tuple)):
        return [dump(v) for v in obj]
    if isinstance(obj, dict):
        return {k: dump(v) for k, v in obj.items()}
    return obj


def _dump_tagged(registry: Mapping[str, type], tag: str, value: Any) -> dict[str, Any]:
    name = next(name for name, cls in registry.items() if type(value) is cls)
    return {tag: name, **dump(value)}
