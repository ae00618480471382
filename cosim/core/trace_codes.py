"""The codes of the trace's network table: its kinds of row and why a reception was lost (the drop
reasons of every engine, after the empty reason of rows that are not drops). Kept apart from the
recorder so that compiled code (cosim.fused_engine) can name them without depending on the recorder's code."""

from __future__ import annotations

from netstack.backend import DROP_REASONS as LINK_DROP_REASONS

NET_KINDS = ("send", "deliver", "drop", "ack", "noack")
SEND, DELIVER, DROP, ACK, NOACK = range(5)
DROP_REASONS = ("", *LINK_DROP_REASONS)
