"""Routing protocols by the name a scenario uses for them (`network.routing.protocol`)."""

from __future__ import annotations

from netstack.routing.anthocnet import AntHocNet
from netstack.routing.direct import Direct
from netstack.routing.flooding import Flooding
from netstack.routing.ns3_ip import Aodv, Dsdv, Olsr

PROTOCOLS: dict[str, type] = {
    "direct": Direct, "flooding": Flooding, "anthocnet": AntHocNet, "aodv": Aodv, "olsr": Olsr, "dsdv": Dsdv,
}
NS3_PROTOCOLS = ("aodv", "olsr", "dsdv")
"""Run inside ns-3 (need `network.backend: ns3` with an 802.11 radio)."""

PARAMS: dict[str, type] = {name: cls.Params for name, cls in PROTOCOLS.items()}
PROTOCOL_OF_PARAMS: dict[type, type] = {cls.Params: cls for cls in PROTOCOLS.values()}
_NAME_OF_PARAMS: dict[type, str] = {params: name for name, params in PARAMS.items()}


def protocol_name(params: object) -> str:
    """The scenario name (`network.routing.protocol`) of a protocol's parameters."""
    return _NAME_OF_PARAMS[type(params)]
