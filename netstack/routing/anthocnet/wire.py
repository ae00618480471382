"""AntHocNet's frames: kinds, ant subtypes and their binary layouts (little-endian, node ids as uint16)."""

from __future__ import annotations

import struct

from netstack.routing.base import Packet
from netstack.routing.wire import DATA_HEADER, from_wire, to_wire

DATA = 0
HELLO = 1
FANT = 2
BANT = 3
LFN = 4
REACTIVE = 0
PROACTIVE = 1
REPAIR = 2
ANT_NAMES = {REACTIVE: "reactive", PROACTIVE: "proactive", REPAIR: "repair"}

HELLO_FRAME = struct.Struct("<BH")
FANT_FRAME = struct.Struct("<BBHHIBf")  # kind, subtype, origin, destination, generation, broadcasts, time (s); path follows
BANT_FRAME = struct.Struct("<BBHHIBfB")  # kind, subtype, origin, destination, generation, hops, time (s), index; path follows
LFN_FRAME = struct.Struct("<BB")  # kind, count; then count items
LFN_ITEM = struct.Struct("<HfB")  # destination, best time (s) or -1 for no route, hops
LFN_MAX_ITEMS = 100
GENERATION_MEMORY_NS = 10_000_000_000


def pack_routed(kind: int, packet: Packet, visited: list[int]) -> bytes:
    """A data frame: the shared data header (hops = nodes visited), the visited nodes, the payload.
    Carrying the path (2 bytes a hop) lets no node hand a packet back into its own past."""
    head = DATA_HEADER.pack(kind, packet.src, to_wire(packet.dst), packet.port, packet.seq, len(visited))
    return head + pack_path(visited) + packet.payload


def unpack_routed(frame: bytes) -> tuple[Packet, list[int]]:
    """(packet, visited nodes) from a data frame built by pack_routed."""
    _, src, dst, port, seq, hops = DATA_HEADER.unpack_from(frame)
    start = DATA_HEADER.size + 2 * hops
    visited = list(struct.unpack_from(f"<{hops}H", frame, DATA_HEADER.size))
    return Packet(src, from_wire(dst), port, seq, bytes(frame[start:])), visited


def path_of(frame: bytes, offset: int) -> list[int]:
    n = (len(frame) - offset) // 2
    return list(struct.unpack_from(f"<{n}H", frame, offset))


def pack_path(path: list[int]) -> bytes:
    return struct.pack(f"<{len(path)}H", *path)
