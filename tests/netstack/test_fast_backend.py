import numpy as np
import pytest

from netstack.backend import BROADCAST
from netstack.fast.backend import FastBackend
from netstack.fast.cells import candidates
from netstack.fast.config import FastRadioConfig
from netstack.fast.pathloss import LogDistance, UnitDisk

pytestmark = pytest.mark.kernels  # also run bounds-checked: `make test`, NUMBA_BOUNDSCHECK=1


def backend(positions, seed=0, **cfg) -> FastBackend:
    b = FastBackend(FastRadioConfig(**cfg), np.random.default_rng(seed))
    for i in range(len(positions)):
        b.add_node(i)
    b.set_positions(0, np.array(positions, dtype=float), np.zeros((len(positions), 3)))
    return b


def test_broadcast_reaches_nodes_above_threshold_at_airtime_plus_latency():
    cfg = {"pathloss": LogDistance(exponent=3.0), "tx_power_dbm": 16.0, "rx_threshold_dbm": -82.0,
           "bit_rate_bps": 1e6, "latency_ns": 50_000, "overhead_bytes": 10}
    rng_m = FastRadioConfig(**cfg).max_range_m()
    b = backend([(0, 0, 0), (rng_m * 0.9, 0, 0), (rng_m * 1.1, 0, 0)], **cfg)
    b.send(0, BROADCAST, b"x" * 90, at_ns=1_000)
    assert b.advance(800_000) == (800_000, None)  # (90 + 10) * 8 bits at 1 Mb/s = 800 us, + 50 us
    t, ev = b.advance(10**9)
    assert t == 1_000 + 800_000 + 50_000
    assert ev.dst.tolist() == [1] and ev.src.tolist() == [0] and ev.payloads == [b"x" * 90]
    expected_rssi = 16.0 - (46.6777 + 30 * np.log10(rng_m * 0.9))
    assert ev.rssi_dbm[0] == pytest.approx(expected_rssi)
    assert ev.snr_db[0] == pytest.approx(expected_rssi + 100.0)


def test_radio_sends_one_frame_at_a_time_and_advance_stops_at_each_arrival():
    b = backend([(0, 0, 0), (5, 0, 0)], pathloss=UnitDisk(10.0), bit_rate_bps=1e6, latency_ns=0)
    b.send(0, 1, b"a" * 125, at_ns=0)  # 1 ms airtime
    b.send(0, 1, b"b" * 125, at_ns=0)  # waits for the first
    t1, ev1 = b.advance(10**9)
    t2, ev2 = b.advance(10**9)
    assert (t1, t2) == (1_000_000, 2_000_000)
    assert ev1.payloads == [b"a" * 125] and ev2.payloads == [b"b" * 125]
    assert [s.acked for s in ev1.tx_status + ev2.tx_status] == [True, True]


def test_unicast_out_of_range_is_not_acked_and_recorded_as_drop():
    b = backend([(0, 0, 0), (50, 0, 0)], pathloss=UnitDisk(10.0))
    tx = b.send(0, 1, b"hi", at_ns=0)
    _, ev = b.advance(10**9)
    assert len(ev) == 0
    assert [(s.tx_id, s.acked) for s in ev.tx_status] == [(tx, False)]
    assert ev.drop_dst.tolist() == [1] and ev.drop_reason.tolist() == [1]  # out_of_range


def test_bernoulli_loss_rate_and_seeded_repeatability():
    positions = [(0, 0, 0)] + [(1 + i * 0.01, 0, 0) for i in range(200)]

    def received(seed):
        b = backend(positions, seed=seed, pathloss=UnitDisk(10.0), loss_probability=0.3)
        got = []
        for k in range(20):
            b.send(0, BROADCAST, b"p", at_ns=k * 10_000_000)
            got.append(b.advance(10**12)[1].dst)
        return np.concatenate(got)

    a, b_, c = received(1), received(1), received(2)
    assert np.array_equal(a, b_) and not np.array_equal(a, c)
    assert len(a) / (200 * 20) == pytest.approx(0.7, abs=0.03)


def test_positions_are_extrapolated_with_velocity_between_syncs():
    b = backend([(0, 0, 0), (5, 0, 0)], pathloss=UnitDisk(10.0))
    b.set_positions(0, np.array([[0, 0, 0], [5, 0, 0.0]]), np.array([[0, 0, 0], [2.0, 0, 0]]))
    b.send(0, BROADCAST, b"p", at_ns=3_000_000_000)  # node 1 is at 11 m by then
    assert len(b.advance(10**10)[1]) == 0


def test_dead_nodes_neither_send_nor_receive_and_oversize_payload_is_refused():
    b = backend([(0, 0, 0), (1, 0, 0), (2, 0, 0)], pathloss=UnitDisk(10.0), max_payload_bytes=127)
    b.set_alive(2, False)
    b.send(0, BROADCAST, b"p", at_ns=0)
    assert b.advance(10**9)[1].dst.tolist() == [1]
    with pytest.raises(ValueError, match="payload of 128 bytes exceeds the radio's limit of 127 bytes"):
        b.send(0, 1, bytes(128), at_ns=0)


def test_large_swarms_use_the_cell_index_and_find_the_same_receivers():
    """From netstack.fast.cells.MIN_NODES on, single sends take candidates from the cell index; with
    nodes moving since the last sync, receivers must still equal a brute-force check at the send time
    (a send long after the sync finds the index stale and measures every node)."""
    rng = np.random.default_rng(9)
    n = 2000
    pos = rng.uniform(-300, 300, size=(n, 3)) * (1, 1, 0)
    vel = rng.uniform(-2, 2, size=(n, 3)) * (1, 1, 0)
    b = backend(pos, pathloss=UnitDisk(25.0), latency_ns=0)
    b.set_positions(0, pos, vel)
    narrowed = 0
    for src, t_send in ((0, 10**7), (1234, 5 * 10**7), (n - 1, 10**8), (7, 2 * 10**9), (99, 8 * 10**9)):
        b.send(src, BROADCAST, b"x", at_ns=t_send)
        _, ev = b.advance(10**12)
        now = pos + vel * (t_send / 1e9)
        d = np.linalg.norm(now - now[src], axis=1)
        expected = np.nonzero((d <= 25.0) & (np.arange(n) != src))[0]
        assert len(expected) > 3
        assert sorted(ev.dst.tolist()) == expected.tolist()
        narrowed += candidates(b.radio().cells, n, src, t_send / 1e9) < n / 10
    assert narrowed == 3  # 25 m range in a 600 m field: the three sends soon after the sync used the index


def test_two_ray_ground_is_friis_then_40_db_per_decade():
    from netstack.fast.pathloss import Friis, TwoRayGround

    m = TwoRayGround(frequency_hz=2.4e9, antenna_height_m=1.5)
    crossover = 4 * np.pi * 1.5 * 1.5 / (299_792_458.0 / 2.4e9)
    near = np.array([5.0, crossover * 0.99])
    assert m.loss_db(near) == pytest.approx(Friis(2.4e9).loss_db(near))
    far = np.array([crossover * 2, crossover * 20])
    assert far[0] > crossover
    assert np.diff(m.loss_db(far))[0] == pytest.approx(40.0)
    r = m.max_range_m(16.0, -82.0)
    assert 16.0 - m.loss_db(np.array([r]))[0] == pytest.approx(-82.0)


def test_events_iterate_as_delivery_records():
    from netstack.backend import Delivery

    b = backend([(0, 0, 0), (3, 0, 0), (6, 0, 0)], pathloss=UnitDisk(10.0), latency_ns=0)
    tx = b.send(1, BROADCAST, b"hey", at_ns=0)
    _, ev = b.advance(10**9)
    records = list(ev.deliveries())
    assert [type(d) for d in records] == [Delivery, Delivery]
    assert sorted((d.dst, d.src, d.payload, d.tx_id) for d in records) == [(0, 1, b"hey", tx), (2, 1, b"hey", tx)]


@pytest.mark.parametrize("n, disk", [(40, False), (600, False), (600, True)])  # every node, or the cell index
def test_send_many_equals_sending_one_by_one(n, disk):
    """Same receivers in the same order, the same loss draws, the same arrival times and tx ids."""
    rng = np.random.default_rng(5)
    pos = np.column_stack([rng.uniform(0, 60, n), rng.uniform(0, 60, n), np.zeros(n)])
    cfg = {"pathloss": UnitDisk(8.0) if disk else LogDistance(exponent=3.0), "tx_power_dbm": 0.0, "rx_threshold_dbm": -75.0,
           "loss_probability": 0.3}
    senders = rng.choice(n, size=n // 4, replace=False)
    payloads = [bytes([k % 256]) * (1 + k % 3) for k in range(len(senders))]
    one, many = backend(pos, seed=9, **cfg), backend(pos, seed=9, **cfg)
    one.set_alive(3, False), many.set_alive(3, False)
    ids_one = [one.send(int(s), BROADCAST, p, 1000) for s, p in zip(senders, payloads)]
    ids_many = many.send_many(senders, np.full(len(senders), BROADCAST), payloads, 1000)
    assert ids_many.tolist() == ids_one
    rows = {"one": [], "many": []}
    for name, b in (("one", one), ("many", many)):
        while (out := b.advance(10**9))[1] is not None:
            t, ev = out
            rows[name].append((t, ev.dst.tolist(), ev.src.tolist(), ev.tx_id.tolist(), ev.rssi_dbm.tolist(),
                               list(ev.payloads), ev.drop_dst.tolist(), ev.drop_tx_id.tolist()))
    assert rows["one"] == rows["many"]
    assert sum(len(r[1]) for r in rows["one"]) > len(senders) and sum(len(r[6]) for r in rows["one"]) > 0


def test_the_radio_record_holds_its_loss_stream_as_a_typed_list():
    """A numpy Generator in a compiled call's arguments is unboxed through ctypes.cast in Python at
    every send; a signal handler raising there made numba read a null pointer (a run killed by
    SIGSEGV instead of ending on SIGALRM). The record carries the run's Generator in a typed list,
    and its draws continue the same stream numpy would."""
    from numba import typed

    b = backend(np.zeros((3, 3)), seed=7, pathloss=UnitDisk(25.0), loss_probability=0.5, latency_ns=0)
    r = b.radio()
    assert isinstance(r.rng, typed.List) and len(r.rng) == 1
    heard = []
    for _ in range(8):
        b.send(0, BROADCAST, b"x", at_ns=0)
        _, ev = b.advance(10**12)
        heard += [n in ev.dst.tolist() for n in (1, 2)]
    twin = np.random.default_rng(7)  # the same stream, drawn by numpy: one draw per receiver in order
    assert heard == (twin.random(16) >= 0.5).tolist() and 0 < sum(heard) < 16
