"""Sensor sampling rates: the one range every sensor's `rate_hz` must fall in."""

MAX_SENSOR_HZ = 10_000.0
"""The fastest a sensor may sample (Hz): faster than any physics step a scenario can afford."""


def check_rate_hz(rate_hz: float) -> None:
    """Raise ValueError unless 0 <= rate_hz <= MAX_SENSOR_HZ (0: a fresh reading at every read)."""
    if not 0.0 <= rate_hz <= MAX_SENSOR_HZ:
        raise ValueError(f"rate_hz must be within 0..{MAX_SENSOR_HZ:,.0f} Hz (0: a fresh reading at every read), "
                         f"got {rate_hz:g}")
