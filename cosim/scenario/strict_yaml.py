"""YAML as scenario, world and sweep files are read: PyYAML's safe loader, except that a key given
twice in one mapping is an error (plain YAML keeps the last silently, so a typo'd copy of a block
would quietly replace the first)."""

from __future__ import annotations

from typing import Any

import yaml


class _StrictLoader(yaml.SafeLoader):
    """SafeLoader that refuses duplicate mapping keys."""


def _mapping(loader: _StrictLoader, node: yaml.MappingNode, deep: bool = False) -> dict:
    explicit = [k for k, _ in node.value if k.tag != "tag:yaml.org,2002:merge"]  # merged keys may be overridden
    loader.flatten_mapping(node)
    seen: dict[Any, int] = {}
    for key_node in explicit:
        key = loader.construct_object(key_node, deep=True)
        line = key_node.start_mark.line + 1
        try:
            first = seen.get(key)
        except TypeError:  # an unhashable key: let the constructor report it
            break
        if first is not None:
            raise yaml.constructor.ConstructorError(
                None, None, f"the key {key!r} is given twice in one mapping (lines {first} and {line}); keep one",
                key_node.start_mark)
        seen[key] = line
    return loader.construct_mapping(node, deep=deep)


_StrictLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _mapping)


def load_yaml(text: str) -> Any:
    """Parse YAML text; raises yaml.YAMLError (a duplicate key among them) with line numbers."""
    return yaml.load(text, Loader=_StrictLoader)
