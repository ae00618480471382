"""The fast radio's records and kernels (netstack.fast.air), as both engines call them: frames sent
together find, sender by sender, the numpy reference's receivers through the cell index; the pool of
receivers compacts without mixing frames, and a batch that outgrows it stops where it must."""

from __future__ import annotations

import numpy as np
import pytest

from jit.streams import own_stream
from netstack.fast import air
from netstack.fast.air import POOL_USED, SLOTS_USED
from netstack.fast.cells import cells_of, index
from tests.netstack import kernels_reference as reference

pytestmark = pytest.mark.kernels  # also run bounds-checked: `make test`, NUMBA_BOUNDSCHECK=1


def radio(pos: np.ndarray, vel: np.ndarray, range_m: float, loss_p: float = 0.0, seed: int = 0) -> air.Radio:
    """A radio record over these positions (synced at 0 ns), its index built, nobody busy."""
    n = len(pos)
    r = air.Radio(pos.copy(), vel.copy(), np.zeros(1, np.int64), np.zeros(n, np.int64), own_stream(np.random.default_rng(seed)),
                  loss_p, range_m, range_m, 1000, cells_of(n))
    index(r.cells, r.pos, r.vel, range_m)
    return r


def launched(f: air.Flights, slots: np.ndarray) -> list[tuple[np.ndarray, np.ndarray]]:
    """Each slot's receivers and distances, in the pool."""
    return [(f.node[f.start[s]:f.start[s] + f.count[s]].copy(), f.dist[f.start[s]:f.start[s] + f.count[s]].copy())
            for s in slots.tolist()]


@pytest.mark.parametrize("spread", [40.0, 2000.0])  # a start table of cells, and sorted keys searched
def test_frames_sent_together_find_what_each_would_alone(spread):
    """launch_many through the index gives, sender by sender, the numpy reference's receivers among
    every node (the index only narrows the search), dead-reckoned to each frame's start."""
    rng = np.random.default_rng(4)
    n = 800
    pos = np.column_stack([rng.uniform(0, spread, n), rng.uniform(0, spread, n), np.zeros(n)])
    pos[n // 2:, :2] = pos[: n // 2, :2] + rng.uniform(-2, 2, (n // 2, 2))  # everyone has a neighbour
    vel = np.column_stack([rng.normal(0, 1, (n, 2)), np.zeros(n)])
    alive = rng.random(n) > 0.1
    srcs = rng.choice(n, 60, replace=False)
    r = radio(pos, vel, 3.0)
    assert air.candidates(r.cells, n, int(srcs[0]), 0.0) < n // 4  # the index narrows
    for t_ns in (0, 50_000_000):
        f = air.flights_of(n, 0)
        slots = np.zeros(len(srcs), np.int64)
        k = len(srcs)
        ones = np.ones(k, np.int64)
        assert air.launch_many(f, r, alive, srcs, -ones, ones, ones * 10, t_ns, slots) == k
        got = launched(f, slots)
        total = 0
        for s, (nodes, dist) in zip(srcs.tolist(), got):
            want = reference.within(pos, vel, t_ns / 1e9, alive, np.arange(n), s, 3.0) if alive[s] else ([], [])
            assert np.array_equal(nodes, want[0]) and np.array_equal(dist, want[1])
            total += len(nodes)
        assert total > 40
        r.busy[:] = 0


def test_a_batch_that_outgrows_the_pool_stops_and_resumes_where_it_stopped():
    """Every sender hears every other: the pool holds two frames' receivers, so launch_many stops
    after two and the caller carries on in a roomier record, with the same receivers and loss draws
    as one by one."""
    n = 40
    pos, vel = np.random.default_rng(6).uniform(0, 5, (n, 3)), np.zeros((n, 3))
    alive = np.ones(n, dtype=bool)
    srcs, ones = np.arange(n), np.ones(n, np.int64)
    f, r = air.flights_of(n, 0, slots=8, pool=2 * n), radio(pos, vel, 50.0, loss_p=0.25)
    slots = np.zeros(n, np.int64)
    done = air.launch_many(f, r, alive, srcs, -ones, ones, ones, 0, slots)
    assert done == 2
    while done < n:
        f = air.roomy(f, n, n - done)
        done += air.launch_many(f, r, alive, srcs[done:], -ones[done:], ones[done:], ones[done:], 0, slots[done:])
    one, r1 = air.flights_of(n, 0), radio(pos, vel, 50.0, loss_p=0.25)
    alone = np.array([air.launch(one, r1, alive, s, -1, 1, 1, 0) for s in range(n)])
    for (a_nodes, _), (b_nodes, _), s, t in zip(launched(f, slots), launched(one, alone), slots, alone):
        assert np.array_equal(a_nodes, b_nodes) and len(a_nodes) == n - 1
        assert np.array_equal(f.lost[f.start[s]:f.start[s] + n - 1], one.lost[one.start[t]:one.start[t] + n - 1])
    assert 0 < sum(f.lost[f.start[s]:f.start[s] + n - 1].sum() for s in slots) < n * (n - 1) // 2


def test_compaction_moves_each_frames_receivers_intact_whatever_the_slot_order():
    """A reused low slot holds the newest frame, its receivers last in the pool: moving slot by slot
    would write them over the older frame's before those moved."""
    F = air.flights_of(8, 12, slots=4, pool=16)
    F.live[:3] = True, True, False
    F.state[SLOTS_USED], F.state[POOL_USED] = 3, 12
    F.start[:3], F.count[:3] = (8, 2, 0), (4, 5, 2)
    F.node[:12] = np.arange(100, 112)
    F.dist[:12] = np.arange(12) / 10
    air.compact(F)
    assert F.state[POOL_USED] == 9 and sorted(F.start[:2].tolist()) == [0, 5]
    assert F.node[F.start[0]:F.start[0] + 4].tolist() == [108, 109, 110, 111]
    assert F.node[F.start[1]:F.start[1] + 5].tolist() == [102, 103, 104, 105, 106]
    assert F.dist[F.start[0]:F.start[0] + 4].tolist() == [0.8, 0.9, 1.0, 1.1]
