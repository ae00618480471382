"""What the fast radio hands Python at an instant: the frames arriving then (netstack.fast.air's due
slots), as the rows of one NetEvents: receptions by receivers still alive, losses, unicasts that
reached no one, and each unicast's status."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from netstack.backend import IndexedPayloads, NetEvents, TxStatus
from netstack.fast.air import Flights
from netstack.fast.config import FastRadioConfig

LOST = 0
UNREACHED = 1
DST_DEAD = 2
"""Drop reasons: the loss draw, a unicast's destination out of reach, a dead destination."""


def events(t: int, f: Flights, due: np.ndarray, received: tuple, alive: np.ndarray, payloads: Sequence[bytes],
           cfg: FastRadioConfig, shaded: bool) -> NetEvents:
    """The rows of the frames in `due` (slots, in the order sent) from their receivers (`received`:
    netstack.fast.air.rows), whose payloads are `payloads` (one per due slot); `shaded`: obstacles
    weakened the links (the receivers' `shade` dB)."""
    (rx_frame, node, rx_src, rx_tx, size), (dist, shade), (lost_frame, lost_node), unicasts = received
    rssi = cfg.tx_power_dbm - cfg.pathloss.loss_db(dist)
    if shaded:
        rssi = rssi - shade
    ev = NetEvents(t_ns=t, dst=node, src=rx_src, tx_id=rx_tx, rssi_dbm=rssi, snr_db=rssi - cfg.noise_floor_dbm, size=size,
                   payloads=IndexedPayloads(payloads, rx_frame))
    if not len(lost_frame) and not unicasts:
        return ev
    src = f.src[due]
    tx = f.tx[due]
    dst_req = f.dst[due]
    unicast = np.flatnonzero(dst_req >= 0)
    got = np.bincount(rx_frame, minlength=len(due))
    lost_n = np.bincount(lost_frame, minlength=len(due))
    ev.tx_status = [TxStatus(t, int(tx[k]), int(src[k]), int(dst_req[k]), bool(got[k] == 1)) for k in unicast.tolist()]
    unreached = unicast[(got[unicast] != 1) & (lost_n[unicast] == 0)]
    if not len(lost_frame) and not len(unreached):
        return ev
    by_frame = np.concatenate([lost_frame, unreached])
    order = np.argsort(by_frame, kind="stable")  # frame by frame, as sent: its losses, then whether it reached no one
    ev.drop_dst = np.concatenate([lost_node, dst_req[unreached]])[order]
    ev.drop_src = src[by_frame][order]
    ev.drop_tx_id = tx[by_frame][order]
    reasons = np.where(alive[dst_req[unreached]], UNREACHED, DST_DEAD)
    ev.drop_reason = np.concatenate([np.full(len(lost_frame), LOST), reasons]).astype(np.int8)[order]
    return ev
