"""The fast radio's node table grows in place: each node added alive at the origin, earlier nodes'
flags kept, arrays the compiled kernels can take (C-ordered float64 and bool)."""

from __future__ import annotations

import numpy as np
import pytest

from netstack.fast.nodes import NodeTable


def test_nodes_added_in_order_grow_every_array():
    table = NodeTable()
    for i in range(100):
        table.add(i)
        if i == 3:
            table.alive[3] = False
    assert table.n == 100 and table.pos.shape == table.vel.shape == (100, 3) and table.alive.shape == (100,)
    assert not table.pos.any() and not table.vel.any()
    assert np.flatnonzero(~table.alive).tolist() == [3]  # a flag set before more nodes came is kept
    assert table.pos.flags.c_contiguous and table.alive.flags.c_contiguous and table.pos.dtype == np.float64


def test_nodes_out_of_order_are_refused():
    table = NodeTable()
    table.add(0)
    with pytest.raises(ValueError, match="expected 1, got 2"):
        table.add(2)
