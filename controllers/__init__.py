"""Robot programs. `controllers.api` is everything a controller sees (re-exported here);
`controllers.library` holds general controllers (random walk, waypoints, relays, probes);
`controllers.case_studies` the seed papers' programs (BARAKA, Kilombo, ROSBuzz, UAV flocking, Simbeeotic)."""

from controllers.api import (
    BROADCAST,
    Controller,
    Group,
    GroupController,
    Inbox,
    Message,
    Neighbor,
    Net,
    Outcome,
    Robot,
    Services,
    TimerHandle,
    Unbound,
)

__all__ = [
    "BROADCAST", "Controller", "Group", "GroupController", "Inbox", "Message", "Neighbor", "Net", "Outcome", "Robot",
    "Services",
    "TimerHandle", "Unbound",
]
