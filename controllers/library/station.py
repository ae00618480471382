"""`Station`: a node that stays where it was placed (a mote, a relay, a traffic endpoint)."""

from __future__ import annotations

from controllers import Controller


class Station(Controller):
    """Holds still; its radio and routing still work, and traffic still flows through it."""

    period = None

    def setup(self) -> None:
        self.robot.hover()
