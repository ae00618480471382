"""What the fast radio hands Python at an instant: the frames arriving then (netstack.fast.air's due
slots), as the rows of one NetEvents: receptions by receivers still alive, losses, unicasts that
reached no one, and each unicast's status."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from netstack.backend import IndexedPayloads, NetEvents, TxStatus
from netstack.fast.air import Flights
from netstack.fast.config import FastRadioConfig

LOST, UNREACHED, DST_DEAD = 0, 1, 2
"""Drop reasons: the loss draw, a unicast's destination out of reach, a dead destination."""


def events(t: int, f: Flights, due: np.ndarray, alive: np.ndarray, payloads: Sequence[bytes], cfg: FastRadioConfig,
           shaded: bool) -> NetEvents:
    """The rows of the frames in `due` (slots, in the order sent), whose payloads are `payloads`
    (one per due slot); `shaded`: obstacles weakened the links (the receivers' `shade` dB)."""
    counts = f.count[due]
    frame = np.repeat(np.arange(len(due)), counts)  # each receiver's frame (index into due)
    q = np.repeat(f.start[due] - np.cumsum(counts) + counts, counts) + np.arange(len(frame))  # its pool row
    node, lost = f.node[q], f.lost[q]
    heard = np.flatnonzero(~lost & alive[node])
    src, tx, dst_req = f.src[due], f.tx[due], f.dst[due]
    rx_frame, rx_q = frame[heard], q[heard]
    rssi = cfg.tx_power_dbm - cfg.pathloss.loss_db(f.dist[rx_q])
    if shaded:
        rssi = rssi - f.shade[rx_q]
    ev = NetEvents(t_ns=t, dst=node[heard], src=src[rx_frame], tx_id=tx[rx_frame], rssi_dbm=rssi,
                   snr_db=rssi - cfg.noise_floor_dbm, size=f.size[due][rx_frame], payloads=IndexedPayloads(payloads, rx_frame))
    lost_rows = np.flatnonzero(lost)
    unicast = np.flatnonzero(dst_req >= 0)
    if not len(lost_rows) and not len(unicast):
        return ev
    got = np.bincount(rx_frame, minlength=len(due))
    lost_n = np.bincount(frame[lost_rows], minlength=len(due))
    ev.tx_status = [TxStatus(t, int(tx[k]), int(src[k]), int(dst_req[k]), bool(got[k] == 1)) for k in unicast.tolist()]
    unreached = unicast[(got[unicast] != 1) & (lost_n[unicast] == 0)]
    if not len(lost_rows) and not len(unreached):
        return ev
    by_frame = np.concatenate([frame[lost_rows], unreached])
    order = np.argsort(by_frame, kind="stable")  # frame by frame, as sent: its losses, then whether it reached no one
    ev.drop_dst = np.concatenate([node[lost_rows], dst_req[unreached]])[order]
    ev.drop_src = src[by_frame][order]
    ev.drop_tx_id = tx[by_frame][order]
    reasons = np.where(alive[dst_req[unreached]], UNREACHED, DST_DEAD)
    ev.drop_reason = np.concatenate([np.full(len(lost_rows), LOST), reasons]).astype(np.int8)[order]
    return ev
