import pytest

from cosim.core.timeunits import DurationError, parse_duration_ns


@pytest.mark.parametrize(
    ("text", "ns"),
    [(0.1, 100_000_000), (1, 1_000_000_000), ("10 ms", 10_000_000), ("2.5ms", 2_500_000), ("250 Hz", 4_000_000),
     ("100us", 100_000), ("1/200 s", 5_000_000), ("3 min", 180_000_000_000)],
)
def test_durations_become_exact_nanoseconds(text, ns):
    assert parse_duration_ns(text) == ns


@pytest.mark.parametrize(("text", "fragment"), [("1/240 s", "whole number of nanoseconds"), ("10 parsecs", "unknown time unit"),
                                              (True, "boolean"), ("fast", "cannot read")])
def test_bad_durations_say_why(text, fragment):
    with pytest.raises(DurationError, match=fragment):
        parse_duration_ns(text)
