"""The scenario's network: one backend per radio (`network.backend`/`radio`, then each of
`network.interfaces`), joined into netstack.interfaces.Interfaces when there are several."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from cosim.assembly.radio_geometry import solids_of
from cosim.core.seeding import SeedStreams
from cosim.scenario.network_spec import PRIMARY_INTERFACE
from cosim.scenario.specs import Scenario
from netstack.backend import NetworkBackend
from netstack.fast.backend import FastBackend
from netstack.fast.csma import CsmaBackend
from netstack.interfaces import Interface, Interfaces
from netstack.radio import RadioSpec
from netstack.routing.registry import NS3_PROTOCOLS, protocol_name


def make_network(s: Scenario, streams: SeedStreams, run_dir: Path | None = None) -> NetworkBackend | None:
    """The network backend the scenario names; ns-3 gets RngSeed/RngRun derived from the master seed."""
    if s.network.backend == "none":
        return None
    first = _backend(s, s.network.backend, s.network.radio, streams.generator("network"), streams, run_dir)
    if not s.network.interfaces:
        return first
    radios = [Interface(PRIMARY_INTERFACE, first, np.ones(s.n_nodes, dtype=bool), s.network.backend != "ns3")]
    for spec in s.network.interfaces:
        carried = np.concatenate([np.full(g.count, spec.groups is None or g.name in spec.groups) for g in s.groups])
        backend = _backend(s, spec.backend, spec.radio, streams.generator(f"network.{spec.name}"), streams, run_dir)
        radios.append(Interface(spec.name, backend, carried, spec.backend != "ns3"))
    return Interfaces(radios)


def _backend(s: Scenario, kind: str, radio: RadioSpec, rng: np.random.Generator, streams: SeedStreams,
             run_dir: Path | None) -> NetworkBackend:
    solids = solids_of(s.world.obstacles)
    if kind == "ns3":
        from netstack.ns3.backend import Ns3Backend

        pcap = str(run_dir / "pcap" / "node") if radio.ns3.pcap and run_dir is not None else None
        routing = s.network.routing
        name = None if routing is None else protocol_name(routing)
        ip = name in NS3_PROTOCOLS
        return Ns3Backend(radio.ns3_config(), streams.integer("ns3.seed") or 1, streams.integer("ns3.run"), pcap_prefix=pcap,
                          ip_routing=name if ip else None, ip_attributes=routing.ns3_attributes() if ip else None,
                          solids=solids)
    config = radio.fast_config()
    fast = FastBackend if config.contention is None else CsmaBackend
    return fast(config, rng, solids)
