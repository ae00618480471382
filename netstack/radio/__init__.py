"""The radio hardware as a scenario describes it, for every network engine (netstack.radio.spec),
and the standards both engines model (netstack.radio.standards)."""

from netstack.radio.spec import FastOptions, NoContention, Ns3Options, RadioSpec

__all__ = ["FastOptions", "NoContention", "Ns3Options", "RadioSpec"]
