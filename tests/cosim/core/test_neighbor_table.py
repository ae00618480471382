"""The neighbour table's two storages (a matrix for small swarms, sorted pair keys for big ones) give
the same answers for the same receptions."""

import numpy as np

from cosim.core import neighbor_table
from cosim.core.neighbor_table import NeighborTable


def test_sparse_and_dense_tables_agree(monkeypatch):
    dense = NeighborTable(60)
    monkeypatch.setattr(neighbor_table, "DENSE_MAX_NODES", 10)
    sparse = NeighborTable(60)
    assert dense.dense and not sparse.dense
    rng = np.random.default_rng(1)
    for step in range(40):
        m = int(rng.integers(1, 80))
        dst, src = rng.integers(0, 60, m), rng.integers(0, 60, m)
        times = np.sort(rng.integers(step * 1000, step * 1000 + 999, m)) if step % 2 else step * 1000
        rssi = rng.uniform(-90, -40, m)
        dense.update(times, dst, src, rssi)
        sparse.update(times, dst, src, rssi)
        if step % 5 == 4:  # counts between updates, against the pairs each node lists
            since = step * 1000 - 6000
            every = np.ones(60, dtype=bool)
            listed = np.mean([len(dense.heard_arrays(node, since)[0]) for node in range(60)])
            assert dense.mean_count(since, every) == sparse.mean_count(since, every) == listed > 0
    alive = rng.random(60) > 0.2
    for since in (0, 15_000, 38_500):
        assert dense.mean_count(since, alive) == sparse.mean_count(since, alive)
        for node in range(60):
            a, b = dense.heard_arrays(node, since), sparse.heard_arrays(node, since)
            assert all(np.array_equal(x, y) for x, y in zip(a, b)), node
    assert len(sparse.heard_by(3, 0)) > 0


def test_a_pair_heard_twice_in_one_batch_keeps_its_last_row(monkeypatch):
    monkeypatch.setattr(neighbor_table, "DENSE_MAX_NODES", 10)
    for table in (NeighborTable(60), NeighborTable(8)):
        table.update(100, np.array([1]), np.array([2]), np.array([-50.0]))  # (1 hears 2) known before
        times = np.array([200, 300, 400, 500, 600])
        dst, src = np.array([1, 1, 4, 1, 4]), np.array([2, 2, 5, 2, 5])  # an old pair thrice, a new one twice
        table.update(times, dst, src, np.array([-60.0, -61.0, -70.0, -62.0, -71.0]))
        assert table.heard_by(1, 0) == [(2, 500, -62.0)] and table.heard_by(4, 0) == [(5, 600, -71.0)], table.dense
