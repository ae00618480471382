"""`Station`: a node that stays where it was placed (a mote, a relay, a traffic endpoint)."""

from __future__ import annotations

from controllers import Controller, GroupController


class Station(Controller):
    """Holds still; its radio and routing still work, and traffic still flows through it."""

    period = None

    def setup(self) -> None:
        self.robot.hover()


class StationGroup(GroupController):
    """A group of stations: its robots hold still. Given a `period`, its step runs at every tick and
    does nothing, which measures what a group tick costs the framework (benchmarks/kilombo.py)."""

    period = None

    def step(self) -> None:
        """Nothing to decide: the robots stand where they were placed."""
