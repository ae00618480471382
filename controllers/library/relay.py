"""A chain relay: node `first` originates a message; each node forwards it to node id + 1.

With `broadcast: true` every hop is a broadcast (no MAC acknowledgements) and a node forwards only
what it hears from node id - 1.

The message carries its origin time, so the last node records the end-to-end delay. Used to check
that packets reach controllers at their exact receive times, whatever the quantum.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass

from controllers import Controller, Message

_FMT = "<qI"  # origin time (ns), hop count


class ChainRelay(Controller):
    """Forward every received message to the next node; the last node records `delay_s` and `hops`."""

    @dataclass(frozen=True)
    class Params:
        first: int = 0
        last: int = 4
        start: float = 0.5
        messages: int = 1
        interval: float = 1.0
        broadcast: bool = False

    period = None

    def setup(self) -> None:
        if self.id == self.params.first:
            for k in range(self.params.messages):
                self.after(self.params.start + k * self.params.interval, self._originate)

    def _originate(self) -> None:
        t_ns = round(self.now * 1e9)
        self._forward(struct.pack(_FMT, t_ns, 0))

    def _forward(self, payload: bytes) -> None:
        if self.params.broadcast:
            self.net.broadcast(payload)
        else:
            self.net.send(self.id + 1, payload)

    def on_message(self, msg: Message) -> None:
        if self.params.broadcast and msg.src != self.id - 1:
            return  # an echo from downstream
        origin_ns, hops = struct.unpack(_FMT, msg.payload)
        if self.id == self.params.last:
            self.record("delay_s", (round(msg.t * 1e9) - origin_ns) / 1e9)  # exact: whole nanoseconds
            self.record("hops", hops + 1)
        else:
            self._forward(struct.pack(_FMT, origin_ns, hops + 1))
