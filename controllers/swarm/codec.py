"""A compact binary encoding for the values swarm primitives carry: None, bools, integers, floats,
strings, bytes, and lists/tuples and str-keyed dicts of those. Integers are zig-zag varints, so
small numbers cost one or two bytes; a float costs nine."""

from __future__ import annotations

import struct
from typing import Any

_F64 = struct.Struct("<d")


def _varint(n: int, out: bytearray) -> None:
    while True:
        byte = n & 0x7F
        n >>= 7
        if n:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return


def _read_varint(data: bytes, i: int) -> tuple[int, int]:
    n = shift = 0
    while True:
        if i >= len(data):
            raise ValueError("truncated value")
        byte = data[i]
        i += 1
        n |= (byte & 0x7F) << shift
        if not byte & 0x80:
            return n, i
        shift += 7


def _put(value: Any, out: bytearray) -> None:
    if value is None:
        out += b"N"
    elif value is True or value is False:
        out += b"T" if value else b"F"
    elif isinstance(value, int):
        out += b"i"
        _varint((value << 1) ^ (value >> 63) if -(1 << 63) <= value < 1 << 63 else _too_big(value), out)
    elif isinstance(value, float):
        out += b"f" + _F64.pack(value)
    elif isinstance(value, (str, bytes)):
        raw = value.encode() if isinstance(value, str) else value
        out += b"s" if isinstance(value, str) else b"b"
        _varint(len(raw), out)
        out += raw
    elif isinstance(value, (list, tuple)):
        out += b"l"
        _varint(len(value), out)
        for v in value:
            _put(v, out)
    elif isinstance(value, dict):
        out += b"d"
        _varint(len(value), out)
        for k, v in value.items():
            if not isinstance(k, str):
                raise TypeError(f"dict keys must be str to be encoded, got {type(k).__name__}")
            _put(k, out)
            _put(v, out)
    else:
        raise TypeError(f"cannot encode {type(value).__name__}: use None, bool, int, float, str, bytes, lists or dicts")


def _too_big(value: int) -> int:
    raise ValueError(f"integer {value} does not fit 64 bits")


def encode(value: Any) -> bytes:
    out = bytearray()
    _put(value, out)
    return bytes(out)


def decode_at(data: bytes, i: int = 0) -> tuple[Any, int]:
    """The value starting at data[i] and the index after it (lists decode as tuples)."""
    if i >= len(data):
        raise ValueError("truncated value")
    tag = data[i:i + 1]
    i += 1
    if tag in (b"N", b"T", b"F"):
        return {b"N": None, b"T": True, b"F": False}[tag], i
    if tag == b"i":
        z, i = _read_varint(data, i)
        return (z >> 1) ^ -(z & 1), i
    if tag == b"f":
        if i + 8 > len(data):
            raise ValueError("truncated value")
        return _F64.unpack_from(data, i)[0], i + 8
    if tag in (b"s", b"b"):
        n, i = _read_varint(data, i)
        if i + n > len(data):
            raise ValueError("truncated value")
        raw = data[i:i + n]
        return (raw.decode() if tag == b"s" else bytes(raw)), i + n
    if tag in (b"l", b"d"):
        n, i = _read_varint(data, i)
        items = []
        for _ in range(n * (2 if tag == b"d" else 1)):
            v, i = decode_at(data, i)
            items.append(v)
        return (tuple(items) if tag == b"l" else dict(zip(items[::2], items[1::2]))), i
    raise ValueError(f"unknown value tag {tag!r}")


def decode(data: bytes) -> Any:
    value, end = decode_at(data)
    if end != len(data):
        raise ValueError(f"{len(data) - end} bytes after the value")
    return value
