"""Conversions between user-facing durations (seconds, unit strings) and internal integer nanoseconds."""

from __future__ import annotations

import re
from decimal import Decimal, InvalidOperation
from fractions import Fraction

from netstack.backend import NS_PER_S as NS_PER_S  # one definition, shared with the network backends

_UNITS_NS: dict[str, Fraction] = {
    "ns": Fraction(1),
    "us": Fraction(1_000),
    "µs": Fraction(1_000),
    "ms": Fraction(1_000_000),
    "s": Fraction(NS_PER_S),
    "min": Fraction(60 * NS_PER_S),
    "h": Fraction(3600 * NS_PER_S),
}
_DURATION_RE = re.compile(r"^\s*([0-9.eE+\-]+(?:\s*/\s*[0-9.eE+\-]+)?)\s*([A-Za-zµ]*)\s*$")


class DurationError(ValueError):
    """A duration that cannot be represented as a whole number of nanoseconds."""


MAX_NS = 2**63 - 1
"""The longest time there is: int64 nanoseconds, about 292 years."""


def _to_fraction(text: str) -> Fraction:
    if "/" in text:
        num, den = text.split("/", 1)
        denominator = _to_fraction(den.strip())
        if denominator == 0:
            raise DurationError(f"division by zero in {text!r}")
        return _to_fraction(num.strip()) / denominator
    try:
        d = Decimal(text)
    except (InvalidOperation, ValueError) as exc:
        raise DurationError(f"not a number: {text!r}") from exc
    return _decimal_fraction(d, text)


def _decimal_fraction(d: Decimal, text: str) -> Fraction:
    """The exact value of a finite decimal whose exponent keeps it within reach of nanoseconds (an
    exponent of a billion would take forever to expand)."""
    if not d.is_finite():
        raise DurationError(f"not a finite number: {text!r}")
    if d and not -40 <= d.adjusted() <= 40:
        raise DurationError(f"{text!r} is out of range (a duration is between 1 ns and about 292 years)")
    return Fraction(d)


def parse_duration_ns(value: object) -> int:
    """Turn seconds (int/float) or a string with a unit ('10 ms', '1/240 s', '250 Hz') into ns.

    The result must be a whole number of nanoseconds; floats are read through their shortest
    decimal representation, so 0.1 s is exactly 100_000_000 ns.
    """
    if isinstance(value, bool):
        raise DurationError("expected a duration (seconds or a string like '10 ms'), got a boolean")
    if isinstance(value, int):
        amount = Fraction(value) * NS_PER_S
    elif isinstance(value, float):
        amount = _decimal_fraction(Decimal(repr(value)), repr(value)) * NS_PER_S
    elif isinstance(value, str):
        match = _DURATION_RE.match(value)
        if not match:
            raise DurationError(f"cannot read {value!r} as a duration; use seconds or '<number> <ns|us|ms|s|min|h|Hz>'")
        number = match.group(1)
        unit = match.group(2) or "s"
        quantity = _to_fraction(number)
        if unit.lower() == "hz":
            if quantity <= 0:
                raise DurationError(f"a rate must be positive, got {value!r}")
            amount = Fraction(NS_PER_S) / quantity
        elif unit in _UNITS_NS:
            amount = quantity * _UNITS_NS[unit]
        else:
            raise DurationError(f"unknown time unit {unit!r} in {value!r}; use ns, us, ms, s, min, h or Hz")
    else:
        raise DurationError(f"expected a duration (seconds or a string like '10 ms'), got {type(value).__name__}")
    if abs(amount) > MAX_NS:
        raise DurationError(f"{value!r} is out of range: time is kept in int64 nanoseconds, at most about 292 years")
    if amount.denominator != 1:
        raise DurationError(
            f"{value!r} is not a whole number of nanoseconds ({float(amount):.3f} ns); "
            "internal time is integer nanoseconds"
        )
    return int(amount)


def format_ns(t_ns: int) -> str:
    """Human-readable duration, e.g. '10 ms', '2.5 s'."""
    for unit, scale in (("s", NS_PER_S), ("ms", 1_000_000), ("us", 1_000)):
        if t_ns % scale == 0 or abs(t_ns) >= scale:
            return f"{t_ns / scale:g} {unit}"
    return f"{t_ns} ns"
