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


MAX_DEPTH = 100
"""The deepest nesting of lists and mappings a file may have (a scenario has about 6)."""
MAX_VALUES = 1_000_000
"""The most values a file may stand for once its aliases are expanded (a scenario has thousands)."""


def load_yaml(text: str) -> Any:
    """Parse YAML text; raises yaml.YAMLError (a duplicate key among them) with line numbers, and
    for aliases that nest into more than MAX_VALUES values (a kilobyte can stand for billions)."""
    loader = _StrictLoader(text)
    try:
        try:
            node = loader.get_single_node()
        except RecursionError:
            raise yaml.YAMLError(f"the document nests too deeply (more than {MAX_DEPTH} levels are refused)") from None
        if node is None:
            return None
        depth = _depth(node)
        if depth > MAX_DEPTH:
            raise yaml.YAMLError(f"the document nests {depth} levels deep, more than {MAX_DEPTH}; a scenario needs a "
                                 "few (write deep data to a file of its own)")
        try:
            size = _expanded(node, {}, set())
        except RecursionError:
            raise yaml.YAMLError("the document nests too deeply") from None
        if size > MAX_VALUES:
            many = f"more than {size:,}" if size >= 10 * MAX_VALUES else f"{size:,}"
            raise yaml.YAMLError(f"its aliases (*name) expand to {many} values, over the limit of {MAX_VALUES:,}; "
                                 "write the values out, or use fewer nested aliases")
        return loader.construct_document(node)
    finally:
        loader.dispose()


def _depth(root: yaml.Node) -> int:
    """How deeply lists and mappings nest under `root` (iteratively: any depth; an alias counts once)."""
    deepest = 0
    stack = [(root, 1)]
    seen = set()
    while stack:
        node, d = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        deepest = max(deepest, d)
        if isinstance(node, yaml.SequenceNode):
            stack.extend((child, d + 1) for child in node.value)
        elif isinstance(node, yaml.MappingNode):
            stack.extend((child, d + 1) for pair in node.value for child in pair)
    return deepest


def _expanded(node: yaml.Node, sizes: dict[int, int], open_: set[int]) -> int:
    """How many values `node` stands for with every alias expanded (each shared node counted once)."""
    key = id(node)
    if key in sizes:
        return sizes[key]
    if key in open_:
        raise yaml.YAMLError(f"a recursive alias at line {node.start_mark.line + 1}")
    open_.add(key)
    if isinstance(node, yaml.SequenceNode):
        size = 1 + sum(_expanded(child, sizes, open_) for child in node.value)
    elif isinstance(node, yaml.MappingNode):
        size = 1 + sum(_expanded(k, sizes, open_) + _expanded(v, sizes, open_) for k, v in node.value)
    else:
        size = 1
    open_.discard(key)
    sizes[key] = min(size, 10 * MAX_VALUES)  # a cap keeps the sums small; the verdict is the same
    return sizes[key]
