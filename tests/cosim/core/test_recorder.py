"""The trace streams to Parquet in row groups; content and digest do not depend on the chunk size."""

import numpy as np
import pyarrow.parquet as pq

import cosim
from cosim.core.recorder import DROP_REASONS, NET_KINDS
from tests.conftest import base_scenario


def simulate(tmp_path, chunk_rows, stream: bool):
    data = base_scenario(duration=2.0)
    data["network"]["radio"]["loss_probability"] = 0.3
    data["output"] = {"trace": {"positions_every": 0.25}}
    sim = cosim.build(cosim.from_dict(data, source="rec.yaml"))
    sim.recorder._chunk_rows = chunk_rows
    for table in sim.recorder._tables.values():
        table.chunk_rows = chunk_rows
    if stream:
        sim.recorder.stream_to(tmp_path)
    sim.run()
    return sim.recorder


def test_streamed_trace_equals_the_in_memory_one(tmp_path):
    memory = simulate(tmp_path / "m", 10**9, stream=False)
    tables = memory.tables()
    streamed = simulate(tmp_path / "s", 37, stream=True)
    assert streamed.finish() == memory.digest()
    for name, cols in tables.items():
        pf = pq.ParquetFile(tmp_path / "s" / f"{name}.parquet")
        assert pf.metadata.num_row_groups > 1
        on_disk = pf.read().to_pydict()
        for c, values in cols.items():
            if name == "network" and c in ("kind", "drop_reason"):
                labels = NET_KINDS if c == "kind" else DROP_REASONS
                assert on_disk[c] == [labels[v] for v in values.tolist()]
            elif isinstance(values, list):
                assert on_disk[c] == values
            else:
                assert np.array_equal(np.array(on_disk[c]), values, equal_nan=values.dtype.kind == "f")
    t = tables["network"]["t_ns"]
    assert np.all(np.diff(t) >= 0)  # chronological without sorting
    assert {"send", "deliver", "drop"} <= set(pq.read_table(tmp_path / "s" / "network.parquet").column("kind").to_pylist())


def test_digest_changes_with_the_content(tmp_path):
    a = simulate(tmp_path / "a", 50, stream=False).digest()
    data = base_scenario(duration=2.0, seed=4)
    sim = cosim.build(cosim.from_dict(data, source="rec.yaml"))
    sim.run()
    assert sim.recorder.digest() != a


def test_trace_switches_turn_tables_off(tmp_path):
    data = base_scenario(duration=1.0)
    data["groups"][0]["controller"] = {"class": "controllers.library.relay:ChainRelay", "params": {"first": 0, "last": 1}}
    data["groups"][0]["layout"] = {"type": "grid", "spacing": 1.0}
    data["output"] = {"trace": {"positions_every": None, "network": False, "records": False}}
    result = cosim.run(cosim.from_dict(data, source="off.yaml"), out_dir=tmp_path / "off")
    assert result.status == "ok" and result.metrics["messages_delivered"] == 1
    assert not (tmp_path / "off" / "trace").exists() or not list((tmp_path / "off" / "trace").iterdir())
    data["output"] = {"trace": {"positions_every": None, "network": False, "records": True}}
    result = cosim.run(cosim.from_dict(data, source="on.yaml"), out_dir=tmp_path / "on")
    assert pq.read_table(tmp_path / "on" / "trace" / "records.parquet").column("name").to_pylist() == ["delay_s", "hops"]


def test_a_ctrl_c_while_a_chunk_is_written_comes_after_it_is_written_and_counted(tmp_path, monkeypatch):
    import os
    import signal
    import time

    import pytest

    from cosim.core import recorder
    from cosim.core.trace_table import TraceTable
    from cosim.execution.signals import interrupts
    from cosim.output.trace_digest import trace_digest

    rec = recorder.Recorder(chunk_rows=4)
    rec.stream_to(tmp_path / "trace")
    write = TraceTable._write

    def pressed_meanwhile(table, cols):
        os.kill(os.getpid(), signal.SIGINT)
        time.sleep(0.2)  # the handler runs here, in the middle of the chunk
        write(table, cols)

    monkeypatch.setattr(TraceTable, "_write", pressed_meanwhile)
    with interrupts(), pytest.raises(KeyboardInterrupt):
        for k in range(4):
            rec.record(k, 0, "x", float(k))
    monkeypatch.undo()
    rec.record(9, 0, "x", 9.0)
    digest = rec.finish()
    assert pq.read_table(tmp_path / "trace" / "records.parquet").column("value").to_pylist() == [0.0, 1.0, 2.0, 3.0, 9.0]
    assert trace_digest(tmp_path / "trace") == digest  # what was counted is what is on disk
