"""Reading scenario files: YAML to a validated Scenario, `--set` overrides, separate world files.

Unknown keys, wrong types, impossible values and unimportable classes raise ScenarioError naming
the file, the key path and what was expected.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from cosim.errors import ScenarioError
from cosim.scenario.checks import check
from cosim.scenario.input_files import MAX_MODEL_BYTES, check_input, read_text
from cosim.scenario.network_spec import NetworkSpec
from cosim.scenario.radio_keys import read_radio
from cosim.scenario.schema import Mapper
from cosim.scenario.specs import Scenario
from cosim.scenario.strict_yaml import load_yaml


def _controller_key_rename(data: Any) -> Any:
    # YAML says `class:` (a Python keyword); the dataclass field is `cls`.
    if isinstance(data, dict) and "class" in data:
        data = dict(data)
        data["cls"] = data.pop("class")
    return data


def _may_lack_controllers(mavlink: Any) -> bool:
    """With `mavlink.ground_station` a group may name no controller (the checks then say which may: its
    group and the served ones, whose robots relay MAVLink); otherwise every group needs one."""
    return isinstance(mavlink, dict) and isinstance(mavlink.get("ground_station"), dict)


def from_dict(data: Any, source: str = "<memory>") -> Scenario:
    """Validate plain data (as parsed from YAML) into a Scenario; raises ScenarioError."""
    m = Mapper(source)
    if not isinstance(data, dict):
        raise m.error("", f"expected a mapping at the top level, got {type(data).__name__}")
    data = dict(data)
    groups = data.get("groups")
    if isinstance(groups, list):
        optional = _may_lack_controllers(data.get("mavlink"))
        data["groups"] = [
            g if not isinstance(g, dict) or ("controller" not in g and optional)
            else {**g, "controller": _controller_key_rename(g.get("controller", {}))} for g in groups
        ]
    if "seed" in data and (not isinstance(data["seed"], int) or isinstance(data["seed"], bool) or data["seed"] < 0):
        raise m.error("seed", f"expected a non-negative integer, got {data['seed']!r}")
    if "world" in data:
        data["world"] = _world_section(data["world"], source, m)
    if "groups" in data:
        data["groups"] = _model_files(data["groups"], source, m)
    if isinstance(data.get("initial_state"), str):
        base = Path(source).parent if source != "<memory>" else Path.cwd()
        data["initial_state"] = str((base / data["initial_state"]).resolve())
    network = data.get("network")
    if isinstance(network, dict):
        # the radio section is read once for every engine (cosim.scenario.radio_keys)
        network = dict(network)
        backend = network.get("backend", "fast")
        network["radio"] = read_radio(network.get("radio"), backend, "network.radio", m)
        if isinstance(network.get("interfaces"), list):
            network["interfaces"] = [_interface(item, k, m) for k, item in enumerate(network["interfaces"])]
        data["network"] = m.build(NetworkSpec, {k: v for k, v in network.items() if k != "radio"}, "network",
                                  extra={"radio": network["radio"]})
    scenario: Scenario = m.build(Scenario, data, "", extra={"source": source})
    check(scenario, m)
    return scenario


def _interface(item: Any, k: int, m: Mapper) -> Any:
    """network.interfaces[k]: its radio is read for the backend named beside it."""
    if not isinstance(item, dict):
        return item
    path = f"network.interfaces[{k}]"
    backend = item.get("backend", "fast")
    if backend not in ("fast", "ns3"):
        raise m.error(f"{path}.backend", f"expected one of 'fast', 'ns3', got {backend!r}")
    return {**item, "radio": read_radio(item.get("radio"), backend, f"{path}.radio", m)}


def _model_file(base: Path, name: str, key: str, m: Mapper) -> str:
    """A model file's path resolved against the file that names it, checked before anything reads it."""
    path = (base / name).resolve()
    try:
        check_input(path, MAX_MODEL_BYTES)
    except ValueError as exc:
        raise m.error(key, str(exc)) from None
    return str(path)


def _model_files(groups: Any, source: str, m: Mapper) -> Any:
    """Resolve each group's `robot.urdf.file` against the scenario file."""
    if not isinstance(groups, list):
        return groups
    base = Path(source).parent if source != "<memory>" else Path.cwd()
    out = []
    for k, g in enumerate(groups):
        robot = g.get("robot") if isinstance(g, dict) else None
        urdf = robot.get("urdf") if isinstance(robot, dict) else None
        if isinstance(urdf, dict) and isinstance(urdf.get("file"), str):
            path = _model_file(base, urdf["file"], f"groups[{k}].robot.urdf.file", m)
            g = {**g, "robot": {**robot, "urdf": {**urdf, "file": path}}}
        out.append(g)
    return out


def _world_section(world: Any, source: str, m: Mapper) -> Any:
    """Read `world: {file: ...}` (a separate world file, as Simbeeotic keeps it) and give untyped
    obstacles the type `box`; mesh paths are resolved against the file that names them."""
    if not isinstance(world, dict):
        return world
    base = Path(source).parent if source != "<memory>" else Path.cwd()
    if "file" in world:
        if set(world) != {"file"}:
            others = ", ".join(sorted(k for k in world if k != "file"))
            raise m.error("world", f"a world file replaces the whole section; move {others} into {world['file']}")
        path = base / str(world["file"])
        try:
            loaded = load_yaml(read_text(path))
        except ValueError as exc:
            raise m.error("world.file", f"cannot read the world file: {exc}") from None
        except yaml.YAMLError as exc:
            raise m.error("world.file", f"{path} is not valid YAML: {exc}") from None
        if not isinstance(loaded, dict):
            raise m.error("world.file", f"{path} must hold a mapping (arena_lower, arena_upper, obstacles, wind)")
        world = loaded
        base = path.parent
    world = dict(world)
    for key, with_file in (("obstacles", "mesh"), ("props", "model")):
        items = world.get(key)
        if isinstance(items, list):
            fixed = []
            for k, item in enumerate(items):
                if isinstance(item, dict):
                    item = {"type": "box", **item}
                    if item["type"] == with_file and isinstance(item.get("file"), str):
                        item["file"] = _model_file(base, item["file"], f"world.{key}[{k}].file", m)
                fixed.append(item)
            world[key] = fixed
    terrain = world.get("terrain")
    if isinstance(terrain, dict) and len(set(terrain) & {"heights", "file", "mesh"}) == 1:  # else the spec says why
        world["terrain"] = {k: _model_file(base, v, f"world.terrain.{k}", m) if k in ("file", "mesh") and isinstance(v, str)
                            else v for k, v in terrain.items()}
    return world


def load(path: str | Path, overrides: dict[str, Any] | None = None) -> Scenario:
    """Read, override (dotted keys) and validate a scenario file."""
    path = Path(path)
    source = str(path)
    try:
        text = read_text(path)
    except ValueError as exc:
        raise ScenarioError(source, "", f"cannot read the file: {exc}") from None
    try:
        data = load_yaml(text)
    except yaml.YAMLError as exc:
        raise ScenarioError(source, "", f"not valid YAML: {exc}") from None
    if data is None:
        raise ScenarioError(source, "", "the file is empty; expected a scenario mapping")
    if isinstance(data, dict):
        data.setdefault("name", path.stem)
    for key, value in (overrides or {}).items():
        data = apply_override(data, key, value, source)
    return from_dict(data, source)


def apply_override(data: Any, dotted: str, value: Any, source: str) -> Any:
    """Set `a.b.0.c = value` in nested mappings/lists; list indices must exist."""
    if not isinstance(data, dict):
        raise ScenarioError(source, dotted, "cannot override: the scenario is not a mapping")
    parts = dotted.split(".")
    node: Any = data
    for i, part in enumerate(parts):
        last = i == len(parts) - 1
        here = ".".join(parts[: i + 1])
        if isinstance(node, list):
            if not part.isdigit() or int(part) >= len(node):
                raise ScenarioError(source, here, f"override: expected a list index below {len(node)}")
            if last:
                node[int(part)] = value
            else:
                node = node[int(part)]
        elif isinstance(node, dict):
            if last:
                node[part] = value
            else:
                if part not in node or node[part] is None:
                    node[part] = {}
                node = node[part]
        else:
            raise ScenarioError(source, here, f"override: {'.'.join(parts[:i])} is not a mapping or list")
    return data


def parse_set_option(text: str) -> tuple[str, Any]:
    """Read `dotted.key=value` (value parsed as YAML) from the command line."""
    key, sep, raw = text.partition("=")
    if not sep or not key:
        raise ValueError(f"--set expects dotted.key=value, got {text!r}")
    try:
        value = yaml.safe_load(raw)
    except yaml.YAMLError as exc:
        raise ValueError(f"--set {key}: cannot read value {raw!r}: {exc}") from None
    return key, value
