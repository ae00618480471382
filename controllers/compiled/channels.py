"""The names compiled code records under, as numbers: `record(k, "name", v)` writes the name's channel,
a stable hash (the same in every process), and Python turns it back into the name when it collects
the records. Every compiled class lists its names in `records`; a name no class lists is refused
when the callback compiles."""

from __future__ import annotations

import zlib

from numba import types
from numba.core.errors import TypingError

_CHANNELS: dict[int, str] = {}


def channel(name: str) -> int:
    """The number `record(k, name, v)` writes for `name` (registers the name)."""
    ch = zlib.crc32(name.encode()) & 0x7FFFFFFF
    known = _CHANNELS.setdefault(ch, name)
    if known != name:
        raise ValueError(f"record names {known!r} and {name!r} collide; rename one")
    return ch


def channel_name(ch: int) -> str:
    return _CHANNELS[ch]


def is_channel(name: str) -> bool:
    """Whether some compiled class lists `name` in its `records`."""
    return name in _CHANNELS.values()


def literal_channel(name: types.Type, call: str) -> int | None:
    """For a `record` overload: the channel of a name given as a string literal (None when it is not
    one: numba then looks further); a name no class lists is refused, saying where to list it."""
    if not isinstance(name, types.StringLiteral):
        return None
    if not is_channel(name.literal_value):
        raise TypingError(f"{call}{name.literal_value!r}, ...): list {name.literal_value!r} in the class's `records`")
    return channel(name.literal_value)
