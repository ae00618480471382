"""Byte layout of the data header every Python protocol puts in front of an application payload.

type (1 B) | src (2 B) | dst (2 B) | port (2 B) | seq (4 B) | hops (1 B): 12 bytes, little-endian.
Node ids are 16-bit, so a routed scenario has at most 65,535 nodes (0xFFFF is broadcast).
"""

from __future__ import annotations

import struct

from netstack.routing.base import BROADCAST, Packet

DATA_HEADER = struct.Struct("<BHHHIB")
DATA_HEADER_BYTES = DATA_HEADER.size
WIRE_BROADCAST = 0xFFFF
MAX_NODES = 0xFFFF


def to_wire(node: int) -> int:
    return WIRE_BROADCAST if node == BROADCAST else node


def from_wire(node: int) -> int:
    return BROADCAST if node == WIRE_BROADCAST else node


def pack_data(kind: int, packet: Packet, hops: int) -> bytes:
    return DATA_HEADER.pack(kind, packet.src, to_wire(packet.dst), packet.port, packet.seq, min(hops, 255)) + packet.payload


def unpack_data(frame: bytes) -> tuple[Packet, int]:
    """(packet, hops so far) from a data frame."""
    _, src, dst, port, seq, hops = DATA_HEADER.unpack_from(frame)
    return Packet(src, from_wire(dst), port, seq, bytes(frame[DATA_HEADER_BYTES:])), hops
