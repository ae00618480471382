"""Handing one instant's network events to the run: counters, the trace, neighbour tables, group
inboxes, controllers' on_message, and in routed scenarios the per-node stacks."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from controllers import Message, Outcome
from cosim.core.clock import Clock
from cosim.core.counters import Counters
from cosim.core.group_handle import GroupRouter
from cosim.core.neighbor_table import NeighborTable
from cosim.core.population import Population
from cosim.core.recorder import Recorder
from cosim.core.timeunits import NS_PER_S
from netstack.backend import DROP_REASONS, NetEvents
from netstack.stack import NodeStack


class Delivery:
    """Where an instant's events go: counted, recorded, heard by the neighbour tables, then handed to
    the stacks (routed scenarios) or to the groups and the listening controllers, as the clock's
    current node. `rx_per_node` counts the frames each node's stack was handed."""

    def __init__(self, clock: Clock, population: Population, counters: Counters, recorder: Recorder,
                 neighbor_table: NeighborTable | None, stacks: Sequence[NodeStack] | None,
                 group_router: GroupRouter | None, interface_names: Sequence[str]) -> None:
        self.clock = clock
        self.population = population
        self.counters = counters
        self.recorder = recorder
        self.neighbor_table = neighbor_table
        self.stacks = stacks
        self.group_router = group_router
        self.interface_names = tuple(interface_names)
        self.rx_per_node: list[int] = [0] * len(population)

    def __call__(self, ev: NetEvents) -> None:
        c = self.counters
        c.delivered += len(ev.dst)
        c.dropped += len(ev.drop_dst)
        for st in ev.tx_status:
            if st.acked:
                c.acked += 1
            else:
                c.not_acked += 1
        if self.recorder.takes_network:
            self.recorder.net_events(ev)
        _hear(self, ev)
        if self.stacks is not None:
            _to_stacks(self, ev)
            return
        if ev.tx_status:
            _outcomes(self, ev)
        if len(ev.dst) == 0:
            return
        pop = self.population
        if self.group_router is not None:
            self.group_router.deliver(ev, pop.alive)
        listening = np.nonzero(pop.listens[ev.dst] & pop.alive[ev.dst])[0]
        if len(listening):
            _to_controllers(self, ev, listening)


def _outcomes(d: Delivery, ev: NetEvents) -> None:
    """on_outcome for each unicast status whose sender hears outcomes, with the reason of the
    destination's drop row for that frame (the backends write both at the same instant)."""
    wants = d.population.hears_outcomes
    alive = d.population.alive_list
    mine = [st for st in ev.tx_status if wants[st.src] and alive[st.src]]
    if not mine:
        return
    reasons = {}
    if any(not st.acked for st in mine):
        rows = zip(ev.drop_tx_id.tolist(), ev.drop_dst.tolist(), ev.drop_ifaces().tolist(), ev.drop_reason.tolist())
        reasons = {(tx, dst, iface): DROP_REASONS[r] for tx, dst, iface, r in rows}  # ids are per interface
    for st in mine:
        d.clock.current_node = st.src
        reason = None if st.acked else reasons.get((st.tx_id, st.dst, st.iface), "retries")
        d.population.controllers[st.src].on_outcome(Outcome(st.tx_id, st.dst, st.acked, reason, st.t_ns / NS_PER_S))


def _hear(d: Delivery, ev: NetEvents) -> None:
    """Who heard whom, for the neighbour tables: the one-hop senders where the backend reports them
    (ns-3's IP routing delivers datagrams from their origin, hops away), else the deliveries."""
    if ev.heard is not None:
        h = ev.heard
        d.neighbor_table.update(h.t_ns, h.dst, h.src, np.full(len(h.dst), np.nan))
    elif len(ev.dst):
        times = ev.t_ns if ev.rx_t_ns is None else ev.rx_t_ns
        d.neighbor_table.update(times, ev.dst, ev.src, ev.rssi_dbm)


def _to_controllers(d: Delivery, ev: NetEvents, rows: np.ndarray) -> None:
    """on_message for each listening receiver, in row order (columns read once, as Python lists)."""
    ctrls = d.population.controllers
    dst = ev.dst[rows].tolist()
    src = ev.src[rows].tolist()
    t_ns = [ev.t_ns] * len(rows) if ev.rx_t_ns is None else ev.rx_t_ns[rows].tolist()
    rssi = ev.rssi_dbm[rows].tolist()
    snr = ev.snr_db[rows].tolist()
    lqi = [None] * len(rows) if ev.lqi is None else [q if q >= 0 else None for q in ev.lqi[rows].tolist()]
    names = d.interface_names
    iface = [names[0]] * len(rows) if ev.iface is None else [names[i] for i in ev.iface[rows].tolist()]
    payloads = ev.payloads
    for k, row in enumerate(rows.tolist()):
        node = dst[k]
        d.clock.current_node = node
        ctrls[node].on_message(Message(src[k], payloads[row], t_ns[k] / NS_PER_S, rssi[k], snr[k], lqi[k],
                                       interface=iface[k]))


def _to_stacks(d: Delivery, ev: NetEvents) -> None:
    """Routed scenarios: every frame goes to the receiver's stack, every status to the sender's."""
    stacks = d.stacks
    alive = d.population.alive_list
    names = d.interface_names
    clock = d.clock
    if len(ev.dst):
        rssi = ev.rssi_dbm.tolist()
        iface = ev.row_ifaces().tolist()
        rx = d.rx_per_node
        reached = clock.now_ns
        row_t = ev.row_times().tolist()
        for k, (dst, src) in enumerate(zip(ev.dst.tolist(), ev.src.tolist())):
            rx[dst] += 1
            if alive[dst]:
                clock.current_node = dst
                clock.now_ns = row_t[k]  # earlier rows: passive frames handed over with this event
                stacks[dst].on_frame(src, ev.payloads[k], rssi[k], names[iface[k]])
        clock.now_ns = reached
    for st in ev.tx_status:
        if alive[st.src]:
            clock.current_node = st.src
            stacks[st.src].on_tx_status(st.tx_id, st.dst, st.acked)
