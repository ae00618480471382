"""Intervals over replications: proportions stay within [0, 1], every interval says its n."""

from __future__ import annotations

import math

import pytest

from cosim.report.intervals import interval, is_proportion, wilson


def test_a_delivery_ratio_near_one_stays_within_zero_and_one():
    ratios = [1.0, 0.98, 0.7, 1.0, 1.0]  # a t interval of these reaches 1.1
    t = interval(ratios)
    assert t.high > 1.0
    w = interval(ratios, proportion=True)
    assert 0.0 <= w.low < w.mean < w.high <= 1.0 and (w.n, w.method) == (5, "wilson")


def test_all_delivered_and_none_delivered_still_have_an_interval():
    every = interval([1.0, 1.0, 1.0], proportion=True)
    assert every.high == 1.0 and every.low == pytest.approx(0.4385, abs=1e-4)  # not [1, 1] from three runs
    none = interval([0.0] * 3, proportion=True)
    assert none.low == 0.0 and none.high == pytest.approx(0.5615, abs=1e-4)
    assert interval([1.0] * 30, proportion=True).low > every.low  # more runs, a narrower interval


def test_one_replication_gives_a_value_and_no_interval():
    one = interval([0.93], proportion=True)
    assert one.n == 1 and math.isnan(one.low) and one.text() == "0.93 (n = 1)"
    assert interval([]).n == 0 and interval([]).text() == ""
    assert interval([None, math.nan, 2.0]).n == 1


def test_wilson_is_the_textbook_score_interval():
    low, high = wilson(0.5, 100)
    assert (low, high) == pytest.approx((0.4038, 0.5962), abs=1e-4)


def test_means_use_students_t_and_say_their_runs():
    i = interval([1.0, 2.0, 3.0])
    assert i.high - i.mean == pytest.approx(4.303 / math.sqrt(3)) and i.text() == "2 [-0.484, 4.48] (n = 3)"


def test_what_counts_as_a_proportion():
    assert is_proportion("routing.delivery_ratio", [0.2, 1.0])
    assert not is_proportion("routing.delivery_ratio", [0.2, 1.5])
    assert not is_proportion("messages_delivered", [0.0, 1.0])
