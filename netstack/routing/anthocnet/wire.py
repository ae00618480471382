"""AntHocNet's frames: kinds, ant subtypes and their binary layouts (little-endian, node ids as uint16)."""

from __future__ import annotations

import struct

DATA, HELLO, FANT, BANT, LFN = 0, 1, 2, 3, 4
REACTIVE, PROACTIVE, REPAIR = 0, 1, 2
ANT_NAMES = {REACTIVE: "reactive", PROACTIVE: "proactive", REPAIR: "repair"}

HELLO_FRAME = struct.Struct("<BH")
FANT_FRAME = struct.Struct("<BBHHIBf")  # kind, subtype, origin, destination, generation, broadcasts, time (s); path follows
BANT_FRAME = struct.Struct("<BBHHIBfB")  # kind, subtype, origin, destination, generation, hops, time (s), index; path follows
LFN_FRAME = struct.Struct("<BB")  # kind, count; then count items
LFN_ITEM = struct.Struct("<HfB")  # destination, best time (s) or -1 for no route, hops
LFN_MAX_ITEMS = 100
GENERATION_MEMORY_NS = 10_000_000_000


def path_of(frame: bytes, offset: int) -> list[int]:
    n = (len(frame) - offset) // 2
    return list(struct.unpack_from(f"<{n}H", frame, offset))


def pack_path(path: list[int]) -> bytes:
    return struct.pack(f"<{len(path)}H", *path)
