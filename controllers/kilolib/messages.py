"""kilolib's data types: 9-byte messages with a type and a CRC, the infrared distance measurement
of a received message, and LED colours."""

from __future__ import annotations

from dataclasses import dataclass, field

from controllers.kilolib.arithmetic import message_crc

__all__ = ["NORMAL", "RGB", "distance_measurement_t", "message_crc", "message_t"]

NORMAL = 0
"""kilolib's message type for user messages."""


@dataclass
class message_t:
    """A Kilobot message: 9 bytes of data, a type and a CRC (`message_crc`)."""

    data: bytearray = field(default_factory=lambda: bytearray(9))
    type: int = NORMAL
    crc: int = 0

    def payload(self) -> bytes:
        return bytes(self.data[:9]).ljust(9, b"\0") + bytes([self.type & 0xFF]) + (self.crc & 0xFFFF).to_bytes(2, "little")

    @staticmethod
    def parse(payload: bytes) -> message_t | None:
        """The message a 12-byte frame carries, or None for anything else or a bad CRC."""
        if len(payload) != 12:
            return None
        m = message_t(bytearray(payload[:9]), payload[9], int.from_bytes(payload[10:12], "little"))
        return m if m.crc == message_crc(m) else None


@dataclass(frozen=True)
class distance_measurement_t:
    """The received message's infrared signal, as the two gains of the Kilobot's receiver read it
    (10-bit readings; the high gain saturates close up)."""

    high_gain: int
    low_gain: int


def RGB(r: int, g: int, b: int) -> int:
    """An LED colour, 0..3 per channel, packed as kilolib does (r | g << 2 | b << 4)."""
    for name, v in (("r", r), ("g", g), ("b", b)):
        if not 0 <= v <= 3:
            raise ValueError(f"RGB {name} must be within 0..3, got {v}")
    return r | (g << 2) | (b << 4)
