"""The encoding, virtual stigmergy's merge rules and frames, and group records, without a radio."""

from __future__ import annotations

import math

import pytest

from controllers.swarm import Entry, VirtualStigmergy, codec
from controllers.swarm.membership import Membership


@pytest.mark.parametrize("value", [None, True, False, 0, -1, 63, -64, 2**62, -(2**63), 1.5, math.inf, "", "žluť",
                                   b"\x00\xff", (1, "a", (2.5, None)), {"k": [1, 2], "z": {"y": b"x"}}])
def test_values_survive_the_encoding(value):
    back = codec.decode(codec.encode(value))
    expected = {"k": (1, 2), "z": {"y": b"x"}} if isinstance(value, dict) else value
    assert back == expected and type(back) is type(expected)


def test_small_integers_are_small_and_bad_values_are_refused():
    assert len(codec.encode(5)) == 2 and len(codec.encode(-3000)) == 3 and len(codec.encode(1.0)) == 9
    with pytest.raises(TypeError, match="cannot encode set"):
        codec.encode({1, 2})
    with pytest.raises(ValueError, match="does not fit 64 bits"):
        codec.encode(2**70)
    with pytest.raises(ValueError, match="truncated"):
        codec.decode(codec.encode("hello")[:-1])


def test_newer_clocks_win_and_equal_clocks_follow_the_conflict_rule():
    a, b = VirtualStigmergy(1, "t"), VirtualStigmergy(2, "t")
    a.put("k", "from a")
    b.put("k", "from b")  # both at clock 1
    for frame, _ in a.frames(250):
        b.absorb(frame)
    for frame, _ in b.frames(250):
        a.absorb(frame)
    assert a.get("k") == b.get("k") == "from b"  # the default: the higher writer
    a.put("k", "again")  # clock 2
    for frame, _ in a.frames(250):
        b.absorb(frame)
    assert b.entries["k"] == Entry("again", 2, 1)
    lowest = VirtualStigmergy(3, "t", conflict=lambda key, ours, theirs: min(ours, theirs, key=lambda e: e.value))
    lowest.put("k", "zzz")
    lowest.put("k", "zzz2")  # clock 2, as "again"
    lowest.merge("k", Entry("again", 2, 1))
    assert lowest.get("k") == "again"


def test_frames_respect_the_budget_and_another_table_is_ignored():
    t = VirtualStigmergy(7, "big")
    for k in range(50):
        t.put(k, float(k))
    frames = list(t.frames(120))
    assert all(len(f) <= 120 for f, _ in frames) and sum(n for _, n in frames) == 50
    other = VirtualStigmergy(8, "other")
    assert other.absorb(frames[0][0]) == 0 and len(other) == 0
    same = VirtualStigmergy(9, "big")
    assert sum(same.absorb(f) for f, _ in frames) == 50
    message = r"table 'big': the entry for 'huge' takes 3\d\d bytes with its frame header, more than"
    with pytest.raises(ValueError, match=message):
        t.put("huge", "x" * 300)
    assert "huge" not in t.keys()
    t.put("x", "y" * 150)  # fits the table's 250 bytes, not a 100-byte frame
    with pytest.raises(ValueError, match=r"an entry of \d+ bytes does not fit a 100-byte frame"):
        list(t.frames(100))
    with pytest.raises(TypeError, match="cannot encode"):
        t.put("bad", object())


def test_group_records_keep_each_robots_latest_version():
    a, b = Membership(1), Membership(2)
    a.set_mine(frozenset({1, 3}))
    for frame, _ in a.frames(250):
        b.absorb(frame)
    assert b.members(3) == [1]
    a.set_mine(frozenset({3}))
    stale = list(Membership(9).frames(250))
    for frame, _ in a.frames(250):
        b.absorb(frame)
    assert b.members(1) == [] and b.members(3) == [1]
    assert b.merge(1, 1, frozenset({1})) is False  # an older version changes nothing
    assert stale and b.groups_of(9) == frozenset()
