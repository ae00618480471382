"""Records kept as codes come out in the order they were made, hash and write as plain strings."""

from __future__ import annotations

import numpy as np
import pyarrow.parquet as pq

from cosim.core.coded_text import Coded, joined, text_bytes
from cosim.core.record_buffer import RecordBuffer
from cosim.core.recorder import Recorder


def test_single_records_and_batches_keep_their_order():
    b = RecordBuffer()
    b.add(1, 0, "speed", 0.5)
    b.add_rows(np.array([2, 2]), np.array([3, 4]), np.array([b.code("color"), b.code("speed")]), np.array([7.0, 8.0]))
    b.add(3, 1, "color", 9.0)
    values = np.array([1.0, 2.0])
    b.add_rows(np.array([4, 4]), np.array([0, 1]), np.full(2, b.code("speed"), np.int32), values)
    values[:] = -1.0  # the caller writes its arrays again: the rows keep what was given
    assert b.rows == 6
    cols = b.take()
    assert cols["t_ns"].tolist() == [1, 2, 2, 3, 4, 4] and cols["node"].tolist() == [0, 3, 4, 1, 0, 1]
    assert cols["name"].strings() == ["speed", "color", "speed", "color", "speed", "speed"]
    assert cols["value"].tolist() == [0.5, 7, 8, 9, 1, 2]
    assert b.take() is None and b.rows == 0


def test_coded_text_hashes_and_joins_as_the_strings_do():
    a = Coded(np.array([0, 1, 0], np.int32), ("é", "b"))
    later = Coded(np.array([2, 1], np.int32), ("é", "b", "c"))
    plain = ["é", "b", "é", "c", "b"]
    assert text_bytes(joined([a, later])) == text_bytes(plain)
    assert joined([a, later]).strings() == plain
    assert joined([a, ["x"]]) == ["é", "b", "é", "x"]


def test_the_written_records_are_plain_text_and_the_digest_is_the_strings(tmp_path):
    digests = []
    for coded in (True, False):
        rec = Recorder()
        rec.stream_to(tmp_path / str(coded))
        if coded:
            rec.record_rows(np.array([5, 6, 7]), np.array([0, 1, 2]), ["a", "bb"], np.array([1, 0, 1]), np.ones(3))
        else:
            for t, node, name in ((5, 0, "bb"), (6, 1, "a"), (7, 2, "bb")):
                rec.record(t, node, name, 1.0)
        digests.append(rec.finish())
        table = pq.read_table(tmp_path / str(coded) / "records.parquet")
        assert str(table.schema.field("name").type) == "string"
        assert table.column("name").to_pylist() == ["bb", "a", "bb"]
    assert digests[0] == digests[1]
