"""The Controller base class and reference controllers."""

from controllers.base import Controller, Message, Neighbor

__all__ = ["Controller", "Message", "Neighbor"]
