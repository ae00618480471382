"""The fused engine's records and codes: what its compiled loop (cosim.fused_engine.loop) takes as
named tuples of arrays (the programs, the log, the compiled groups), the kinds of timer rings it runs,
the statuses it returns, and its clock by name."""

from __future__ import annotations

from collections import namedtuple

Programs = namedtuple("Programs", ["prog", "slot", "states", "io", "gens", "params", "motion", "noise", "period", "msg",
                                   "dist", "rec_i", "rec_v", "rec_n", "air"])
"""Per robot: its program class (index), its row in that class's state array, its timer periods
(loop, transmit, motion); per class: the Kilobot motion and distance noise; buffers for one call;
the airtime of a kilolib frame (a 12-byte broadcast, ns)."""

Log = namedtuple("Log", ["t", "kind", "src", "dst", "tx", "dist", "size", "reason", "n", "counters", "room"])
"""Network rows for the trace (distance for receptions: the RSSI is computed from it in Python; the
trace's drop reason codes), and the counters: sent, delivered, dropped, physics steps, events, acked,
not acked. `room`: the rows a delivery's first part wants (0: none waiting), then what one call may
leave at most (records, network rows, frames: cosim.fused_engine.build.call_room); every call waits until
the buffers have that much room, so none overflows."""

Groups = namedtuple("Groups", ["parts", "group_of", "index", "always", "cursor", "full"])
"""The compiled groups (a tuple of cosim.fused_engine.groups.Parts), each node's group (-1: none) and index
in it, and an alive flag per group for their tick timers (a group's timers outlive its robots); the
step being applied (group, instant, stage, robot; group -1: none) when it paused for frames' room,
and the group whose inbox is full (-1: none), for Python to grow."""

LOOP = 1
TRANSMIT = 2
MOVE = 3
GROUP = 4
CTIMER = 5
"""The kinds of the rings the loop runs (timer_rings.PYTHON, 0, is Python's)."""
STOPPED = 0
ENDED = 1
FULL = 2
NEWTIMER = 3
DONE = 0

NEXT_TICK = 0
LATCH_AT = 1
DT = 2
QUANTUM = 3
END = 4
"""The loop's clock by name (int64 ns): the next physics step (-1: none left), the latch pending at
an instant (-1: none), the physics step, the quantum of position syncs, the run's end."""
