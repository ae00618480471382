"""Kilobot programs in kilolib's shape (paper 002, Kilombo): `KiloProgram` and kilolib's types.
See docs/kilolib.md."""

from controllers.kilolib.api import TICKS_PER_S, KiloParams, KiloProgram
from controllers.kilolib.messages import NORMAL, RGB, distance_measurement_t, message_crc, message_t

__all__ = ["NORMAL", "RGB", "TICKS_PER_S", "KiloParams", "KiloProgram", "distance_measurement_t", "message_crc",
           "message_t"]
