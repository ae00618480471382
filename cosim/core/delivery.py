"""Handing one instant's network events to the run: counters, the trace, neighbour tables, group
inboxes, controllers' on_message, and in routed scenarios the per-node stacks."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from controllers import Message, Outcome
from cosim.core.timeunits import NS_PER_S
from netstack.backend import DROP_REASONS, NetEvents

if TYPE_CHECKING:
    from cosim.core.coordinator import Simulation


def deliver(sim: Simulation, ev: NetEvents) -> None:
    c = sim.counters
    c.delivered += len(ev.dst)
    c.dropped += len(ev.drop_dst)
    for st in ev.tx_status:
        if st.acked:
            c.acked += 1
        else:
            c.not_acked += 1
    if sim.recorder.takes_network:
        sim.recorder.net_events(ev)
    _hear(sim, ev)
    if sim.stacks is not None:
        _to_stacks(sim, ev)
        return
    if ev.tx_status:
        _outcomes(sim, ev)
    if len(ev.dst) == 0:
        return
    if sim.group_router is not None:
        sim.group_router.deliver(ev, sim.alive)
    listening = np.nonzero(sim.listens[ev.dst] & sim.alive[ev.dst])[0]
    if len(listening):
        _to_controllers(sim, ev, listening)


def _outcomes(sim: Simulation, ev: NetEvents) -> None:
    """on_outcome for each unicast status whose sender hears outcomes, with the reason of the
    destination's drop row for that frame (the backends write both at the same instant)."""
    wants, alive = sim.hears_outcomes, sim.alive_list
    mine = [st for st in ev.tx_status if wants[st.src] and alive[st.src]]
    if not mine:
        return
    reasons = {}
    if any(not st.acked for st in mine):
        rows = zip(ev.drop_tx_id.tolist(), ev.drop_dst.tolist(), ev.drop_ifaces().tolist(), ev.drop_reason.tolist())
        reasons = {(tx, dst, iface): DROP_REASONS[r] for tx, dst, iface, r in rows}  # ids are per interface
    for st in mine:
        sim.current_node = st.src
        reason = None if st.acked else reasons.get((st.tx_id, st.dst, st.iface), "retries")
        sim.controllers[st.src].on_outcome(Outcome(st.tx_id, st.dst, st.acked, reason, st.t_ns / NS_PER_S))


def _hear(sim: Simulation, ev: NetEvents) -> None:
    """Who heard whom, for the neighbour tables: the one-hop senders where the backend reports them
    (ns-3's IP routing delivers datagrams from their origin, hops away), else the deliveries."""
    if ev.heard is not None:
        h = ev.heard
        sim.neighbor_table.update(h.t_ns, h.dst, h.src, np.full(len(h.dst), np.nan))
    elif len(ev.dst):
        times = ev.t_ns if ev.rx_t_ns is None else ev.rx_t_ns
        sim.neighbor_table.update(times, ev.dst, ev.src, ev.rssi_dbm)


def _to_controllers(sim: Simulation, ev: NetEvents, rows: np.ndarray) -> None:
    """on_message for each listening receiver, in row order (columns read once, as Python lists)."""
    ctrls = sim.controllers
    dst, src = ev.dst[rows].tolist(), ev.src[rows].tolist()
    t_ns = [ev.t_ns] * len(rows) if ev.rx_t_ns is None else ev.rx_t_ns[rows].tolist()
    rssi, snr = ev.rssi_dbm[rows].tolist(), ev.snr_db[rows].tolist()
    lqi = [None] * len(rows) if ev.lqi is None else [q if q >= 0 else None for q in ev.lqi[rows].tolist()]
    names = sim.interface_names
    iface = [names[0]] * len(rows) if ev.iface is None else [names[i] for i in ev.iface[rows].tolist()]
    payloads = ev.payloads
    for k, row in enumerate(rows.tolist()):
        node = dst[k]
        sim.current_node = node
        ctrls[node].on_message(Message(src[k], payloads[row], t_ns[k] / NS_PER_S, rssi[k], snr[k], lqi[k],
                                       interface=iface[k]))


def _to_stacks(sim: Simulation, ev: NetEvents) -> None:
    """Routed scenarios: every frame goes to the receiver's stack, every status to the sender's."""
    stacks = sim.stacks
    alive = sim.alive_list
    names = sim.interface_names
    if len(ev.dst):
        rssi = ev.rssi_dbm.tolist()
        iface = ev.row_ifaces().tolist()
        rx = sim.rx_per_node
        reached = sim.now_ns
        row_t = ev.row_times().tolist()
        for k, (dst, src) in enumerate(zip(ev.dst.tolist(), ev.src.tolist())):
            rx[dst] += 1
            if alive[dst]:
                sim.current_node = dst
                sim.now_ns = row_t[k]  # earlier rows: passive frames handed over with this event
                stacks[dst].on_frame(src, ev.payloads[k], rssi[k], names[iface[k]])
        sim.now_ns = reached
    for st in ev.tx_status:
        if alive[st.src]:
            sim.current_node = st.src
            stacks[st.src].on_tx_status(st.tx_id, st.dst, st.acked)
