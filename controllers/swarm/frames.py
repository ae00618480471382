"""Swarm frames on the radio: one magic byte, a kind, then the kind's body. Each frame stands on its
own (no reassembly), so a lost frame loses only what it carried.

    topic   b"\\xb7" b"t" topic(str) value          one listen/emit message
    table   b"\\xb7" b"v" table(str) entries...     virtual stigmergy entries: key, value, clock, writer
    groups  b"\\xb7" b"g" records...                membership records: robot, version, group ids
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

MAGIC = 0xB7
TOPIC = b"t"
TABLE = b"v"
GROUPS = b"g"
BUZZ_BUDGET = 250
"""Bytes per frame in ROSBuzz's XBee setting (paper 004): the default budget."""


def header(kind: bytes) -> bytes:
    return bytes([MAGIC]) + kind


def kind_of(payload: bytes) -> bytes | None:
    """The swarm frame kind of a payload, or None for anything else."""
    if len(payload) >= 2 and payload[0] == MAGIC:
        return payload[1:2]
    return None


def pack(head: bytes, items: Iterable[bytes], budget: int) -> Iterator[tuple[bytes, int]]:
    """(frame, items in it): frames of at most `budget` bytes, each `head` and as many whole items
    as fit, in order. An item that cannot fit even alone raises ValueError naming the sizes."""
    frame = bytearray(head)
    count = 0
    for item in items:
        if len(head) + len(item) > budget:
            raise ValueError(f"an entry of {len(item)} bytes does not fit a {budget}-byte frame with its "
                             f"{len(head)}-byte header; make the value smaller or raise the swarm's budget")
        if len(frame) + len(item) > budget:
            yield bytes(frame), count
            frame = bytearray(head)
            count = 0
        frame += item
        count += 1
    if count:
        yield bytes(frame), count
