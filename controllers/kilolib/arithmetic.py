"""kilolib's arithmetic, written once in the subset numba compiles: the Python kilolib calls these
functions as they are, and compiled programs and the fused engine call the same source compiled
(numba's register_jitable). The infrared model: a reading is a gain times 1/distance^2, 10 bits,
the high gain saturating close up."""

from __future__ import annotations

import math

from numba.extending import register_jitable

HIGH_K = 1023.0 * 33.0**2
"""High-gain reading times distance^2 (mm^2): it saturates at 33 mm."""
LOW_K = 1023.0 * 10.0**2
"""Low-gain reading times distance^2 (mm^2)."""
SATURATED = 900
"""High-gain readings at or above this are read as saturated (the low gain is used instead)."""


@register_jitable
def gains(mm: float) -> tuple[int, int]:
    """The (high, low) gains a message sent from `mm` millimetres reads (at least 1 mm)."""
    return min(1023, round(HIGH_K / mm**2)), min(1023, round(LOW_K / mm**2))


@register_jitable
def estimate_distance(d) -> int:
    """Millimetres from a distance measurement (the low gain where the high one saturates)."""
    if 0 < d.high_gain < SATURATED:
        mm = math.sqrt(HIGH_K / d.high_gain)
    else:
        mm = math.sqrt(LOW_K / max(1, d.low_gain))
    return min(255, round(mm))


@register_jitable
def crc_update(crc: int, byte: int) -> int:
    """One byte of CRC-16 CCITT (avr-libc's _crc_ccitt_update), as kilolib computes message CRCs."""
    byte ^= crc & 0xFF
    byte = (byte ^ (byte << 4)) & 0xFF
    return (((byte << 8) | (crc >> 8)) ^ (byte >> 4) ^ (byte << 3)) & 0xFFFF


@register_jitable
def message_crc(msg) -> int:
    """CRC-16 (CCITT) over a message's 9 data bytes (missing ones read as 0) and its type."""
    crc = 0xFFFF
    for j in range(9):
        crc = crc_update(crc, int(msg.data[j]) if j < len(msg.data) else 0)
    return crc_update(crc, int(msg.type) & 0xFF)
