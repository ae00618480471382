"""The whole API a controller sees, for a simulated robot, a MAVLink-flown vehicle or a ghost twin:
`Controller` to subclass, the `Robot` and `Net` it is handed, the `Message` and `Neighbor` it
receives, and the `Services` (clock, timers, metrics) behind its `every`, `after` and `record`."""

from controllers.api.controller import Controller, Unbound
from controllers.api.group import Group, GroupController, Inbox
from controllers.api.messages import Message, Neighbor, Outcome
from controllers.api.net import BROADCAST, Net
from controllers.api.robot import Robot
from controllers.api.services import Services, TimerHandle

__all__ = [
    "BROADCAST", "Controller", "Group", "GroupController", "Inbox", "Message", "Neighbor", "Net", "Outcome", "Robot",
    "Services",
    "TimerHandle", "Unbound",
]
