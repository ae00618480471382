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


@pytest.mark.parametrize("value, message", [
    ("1e999999999", "out of range"), ("1e-999999999 s", "out of range"), ("1/0 s", "division by zero"),
    (float("inf"), "not a finite number"), (float("nan"), "not a finite number"), (1e12, "at most about 292 years"),
    ("1e12 s", "at most about 292 years"), ("nan s", "cannot read"), (10**30, "at most about 292 years"),
])
def test_durations_that_would_hang_overflow_or_divide_by_zero_are_refused_at_once(value, message):
    with pytest.raises(DurationError, match=message):
        parse_duration_ns(value)


def test_the_longest_and_shortest_durations_stillparse_duration_ns():
    assert parse_duration_ns("292 years".replace(" years", "") + " h") == 292 * 3600 * 10**9
    assert parse_duration_ns("1 ns") == 1 and parse_duration_ns(9.2e9) == 9_200_000_000 * 10**9
