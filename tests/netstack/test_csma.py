"""The fast radio's contention model: carrier sense, backoff, collisions, capture, ACKs, queues."""

from __future__ import annotations

import numpy as np
import pytest

from netstack.backend import BROADCAST, DROP_REASONS
from netstack.fast.config import FastRadioConfig
from netstack.fast.csma import CsmaBackend
from netstack.fast.medium import Csma
from netstack.fast.pathloss import Friis, LogDistance, TwoRayGround, UnitDisk
from netstack.fast.shadowing import Solids

pytestmark = pytest.mark.kernels  # also run bounds-checked: `make test`, NUMBA_BOUNDSCHECK=1

US = 1_000
# 802.11b at 1 Mbit/s with ns-3's radio defaults: about 51 m of range
RADIO = {"tx_power_dbm": 16.0206, "rx_threshold_dbm": -82.0, "noise_floor_dbm": -93.6, "bit_rate_bps": 1e6,
         "latency_ns": 0, "overhead_bytes": 36}
AIR_100 = 192 * US + (100 + 36) * 8 * US  # preamble + 136 bytes at 1 Mbit/s
DIFS = 50 * US  # SIFS + 2 slots
ACK = 192 * US + 14 * 8 * US
COLLISION, QUEUE, OUT_OF_RANGE, LOSS, BUSY, HALF_DUPLEX = (
    DROP_REASONS.index(r) for r in ("collision", "queue", "out_of_range", "loss", "busy", "half_duplex"))


RADIO_LIMITS = {"retry_limit": "retry_limit", "queue_frames": "queue_frames", "max_queue_delay_ns": "queue_lifetime_ns"}
"""The radio's limits the fast radio reads beside its contention model."""


def backend(positions, seed=1, radio=None, solids=None, **mac) -> CsmaBackend:
    limits = {RADIO_LIMITS[k]: mac.pop(k) for k in list(mac) if k in RADIO_LIMITS}
    config = FastRadioConfig(**(RADIO | (radio or {})), contention=Csma(**mac), **limits)
    b = CsmaBackend(config, np.random.default_rng(seed), solids)
    for i in range(len(positions)):
        b.add_node(i)
    b.set_positions(0, np.array(positions, float), np.zeros((len(positions), 3)))
    return b


def events(b, until=10**10) -> list:
    out = []
    while True:
        t, ev = b.advance(until)
        if ev is None:
            return out
        out.append((t, ev))


def test_a_frame_on_an_idle_medium_goes_after_difs_and_arrives_after_preamble_and_airtime():
    b = backend([(0, 0, 0), (20, 0, 0), (45, 0, 0), (60, 0, 0)])
    b.send(0, BROADCAST, bytes(100), at_ns=5 * US)
    (t, ev), = events(b)
    assert t == 5 * US + DIFS + AIR_100  # ns-3's DCF: immediate access is a DIFS of idle medium from the arrival
    assert ev.dst.tolist() == [1, 2] and ev.src.tolist() == [0, 0] and ev.payloads == [bytes(100)] * 2
    expected = 16.0206 - (46.6777 + 30 * np.log10(20.0))
    assert ev.rssi_dbm[0] == pytest.approx(expected) and ev.snr_db[0] == pytest.approx(expected + 93.6)
    assert b.mac_counts() == {"mac_frames_queued": 1, "phy_transmissions": 1}


def test_a_node_that_hears_the_medium_busy_defers_and_backs_off_whole_slots_after_difs():
    for seed in range(5):
        b = backend([(0, 0, 0), (20, 0, 0), (10, 0, 0)], seed=seed)
        b.send(0, BROADCAST, bytes(100), at_ns=0)
        b.advance(100 * US)
        b.send(1, BROADCAST, bytes(100), at_ns=100 * US)
        (t0, ev0), (t1, ev1) = events(b)
        assert (t0, ev0.src.tolist()) == (DIFS + AIR_100, [0, 0])
        start = t1 - AIR_100
        slots, rest = divmod(start - t0 - DIFS, 20 * US)
        assert rest == 0 and 0 <= slots <= 31 and ev1.dst.tolist() == [0, 2]


def test_frames_that_start_together_collide_and_a_sender_hears_nothing_while_it_sends():
    b = backend([(0, 0, 0), (20, 0, 0), (40, 0, 0)], sinr_threshold_db=4.0)
    b.send(0, BROADCAST, bytes(100), at_ns=0)
    b.send(2, BROADCAST, bytes(100), at_ns=2 * US)  # within the 4 us before node 2 could sense node 0
    out = events(b)
    assert [t for t, _ in out] == [DIFS + AIR_100, DIFS + 2 * US + AIR_100] and all(len(ev.dst) == 0 for _, ev in out)
    drops = [(s, d, r) for _, ev in out for s, d, r in zip(ev.drop_src.tolist(), ev.drop_dst.tolist(), ev.drop_reason.tolist())]
    # node 1 locked onto 0's frame (lost to 2's) and was busy for 2's; each sender was transmitting
    assert sorted(drops) == [(0, 1, COLLISION), (0, 2, HALF_DUPLEX), (2, 0, HALF_DUPLEX), (2, 1, BUSY)]


def test_hidden_terminals_collide_at_the_node_between_them_unless_the_first_frame_is_captured():
    # nodes 0 and 2 are 80 m apart (they cannot sense each other); node 1 hears both at the same power
    for threshold, received in ((4.0, []), (-5.0, [0])):
        b = backend([(0, 0, 0), (40, 0, 0), (80, 0, 0)], sinr_threshold_db=threshold)
        b.send(0, BROADCAST, bytes(100), at_ns=0)
        b.advance(300 * US)
        b.send(2, BROADCAST, bytes(100), at_ns=300 * US)
        out = events(b)
        assert [t for t, _ in out] == [DIFS + AIR_100, DIFS + 300 * US + AIR_100]  # node 2 did not defer
        assert [s for _, ev in out for s in ev.src.tolist()] == received
        assert sum(len(ev.drop_dst) for _, ev in out) == 2 - len(received)


def test_unicast_is_acknowledged_after_sifs_and_delivered_once():
    b = backend([(0, 0, 0), (20, 0, 0), (30, 0, 0)])
    tx = b.send(0, 1, bytes(100), at_ns=0)
    (t0, ev0), (t1, ev1) = events(b)
    assert (t0, ev0.dst.tolist(), ev0.tx_id.tolist()) == (DIFS + AIR_100, [1], [tx])
    assert t1 == t0 + 10 * US + ACK  # SIFS, then a 14-byte ACK
    assert [(s.tx_id, s.src, s.dst, s.acked) for s in ev1.tx_status] == [(tx, 0, 1, True)]
    assert b.mac_counts()["phy_transmissions"] == 2


def test_a_node_that_decodes_a_unicast_frame_for_another_defers_until_its_ack_has_ended():
    # node 2 hears node 0 (40 m) but not node 0's receiver, node 1 (80 m): only the NAV holds it off the ACK
    ack_end = DIFS + AIR_100 + 10 * US + ACK
    for nav, earliest in ((True, ack_end + DIFS), (False, DIFS + AIR_100 + DIFS)):
        starts = []
        for seed in range(8):
            b = backend([(0, 0, 0), (40, 0, 0), (-40, 0, 0)], seed=seed, virtual_carrier_sense=nav)
            b.send(0, 1, bytes(100), at_ns=0)
            b.advance(300 * US)
            b.send(2, BROADCAST, bytes(100), at_ns=300 * US)  # finds the medium busy: backs off
            out = events(b)
            starts.append(next(t for t, ev in out if 2 in ev.src.tolist() + ev.drop_src.tolist()) - AIR_100)
        assert min(starts) >= earliest and all((s - earliest) % (20 * US) == 0 for s in starts)
        if not nav:
            assert min(starts) < ack_end  # without it, node 2 sends over the ACK


def test_unicast_out_of_range_is_retried_then_given_up():
    b = backend([(0, 0, 0), (200, 0, 0)], retry_limit=3)
    tx = b.send(0, 1, bytes(100), at_ns=0)
    (t, ev), = events(b)
    assert [(s.tx_id, s.acked) for s in ev.tx_status] == [(tx, False)]
    assert ev.drop_dst.tolist() == [1] and ev.drop_reason.tolist() == [OUT_OF_RANGE]
    assert b.mac_counts()["phy_transmissions"] == 4  # the first try and three retries
    assert t > 4 * AIR_100


def test_a_full_queue_drops_what_does_not_fit_and_old_frames_expire():
    b = backend([(0, 0, 0), (20, 0, 0)], queue_frames=2)
    ids = [b.send(0, BROADCAST, bytes([k]) * 10, at_ns=0) for k in range(5)]
    out = events(b)
    drops = [(i, r) for _, ev in out for i, r in zip(ev.drop_tx_id.tolist(), ev.drop_reason.tolist())]
    assert drops == [(ids[2], QUEUE), (ids[3], QUEUE), (ids[4], QUEUE)]
    assert [ev.payloads[0] for _, ev in out if len(ev.dst)] == [bytes([0]) * 10, bytes([1]) * 10]
    b = backend([(0, 0, 0), (20, 0, 0)], max_queue_delay_ns=500 * US)
    b.send(0, BROADCAST, bytes(100), at_ns=0)
    late = b.send(0, BROADCAST, bytes(100), at_ns=0)  # waits behind the first, longer than 500 us
    out = events(b)
    assert [(i, r) for _, ev in out for i, r in zip(ev.drop_tx_id.tolist(), ev.drop_reason.tolist())] == [(late, QUEUE)]


def test_bernoulli_loss_applies_on_top_of_contention():
    b = backend([(0, 0, 0), (20, 0, 0), (30, 0, 0)], radio={"loss_probability": 1.0})
    b.send(0, BROADCAST, bytes(100), at_ns=0)
    (_, ev), = events(b)
    assert len(ev.dst) == 0 and ev.drop_reason.tolist() == [LOSS, LOSS]


def test_walls_take_their_loss_off_every_reception():
    wall = Solids(np.array([[10.0, 0, 0]]), np.array([[0.1, 5, 5]]), np.zeros(1), np.zeros((0, 3)), np.zeros(0), np.zeros(0))
    clear = backend([(0, 0, 0), (20, 0, 0)], radio={"obstacle_loss_db": 6.0})
    walled = backend([(0, 0, 0), (20, 0, 0)], radio={"obstacle_loss_db": 6.0}, solids=wall)
    for b in (clear, walled):
        b.send(0, BROADCAST, bytes(100), at_ns=0)
    (_, a), = events(clear)
    (_, w), = events(walled)
    assert a.rssi_dbm[0] - w.rssi_dbm[0] == pytest.approx(6.0)


def test_the_same_seed_gives_the_same_run_and_another_seed_another():
    rng = np.random.default_rng(3)
    pos = np.column_stack([rng.uniform(0, 120, 40), rng.uniform(0, 120, 40), np.zeros(40)])

    def run(seed):
        b = backend(pos, seed=seed)
        t = 0
        for k in range(400):
            t += int(rng_sends[k])
            b.advance(t)
            while b.advance(t)[1] is not None:
                pass
            b.send(k % 40, BROADCAST if k % 3 else (k + 1) % 40, bytes(60), at_ns=t)
        return [(t, ev.dst.tolist(), ev.drop_dst.tolist(), [s.acked for s in ev.tx_status]) for t, ev in events(b)]

    rng_sends = np.random.default_rng(4).integers(0, 400 * US, 400)
    first = run(1)
    assert first == run(1) and first != run(2)
    assert sum(len(d) for _, _, d, _ in first) > 0  # the load makes collisions


@pytest.mark.parametrize("model", [LogDistance(), LogDistance(2.2, 40.0, 2.0), Friis(), Friis(5.9e9), TwoRayGround(),
                                   TwoRayGround(2.4e9, 0.3), UnitDisk(30.0)])
def test_compiled_path_loss_equals_the_numpy_model(model):
    from netstack.fast.csma_compiled import loss_db

    d = np.concatenate([[0.0, 0.005, 0.5, 1.0, 2.0], np.geomspace(0.01, 5000, 200)])
    compiled = np.array([loss_db(*model.kernel(), x) for x in d])
    assert np.allclose(compiled, model.loss_db(d), rtol=1e-12, atol=0) or np.array_equal(compiled, model.loss_db(d))
